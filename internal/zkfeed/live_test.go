package zkfeed

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/zkmigrate/zkmigrate/internal/kafkaconn"
	"github.com/zkmigrate/zkmigrate/internal/testkit/testbed"
	"github.com/zkmigrate/zkmigrate/internal/zkconn"
	"github.com/zkmigrate/zkmigrate/internal/zkwire"
)

// bound is how long the test waits for the feed to report a change Kafka
// made: a hang bound, not a speed claim.
const bound = 30 * time.Second

// refuseAddWatch is a proxy to ZooKeeper at addr that answers addWatch
// as ZooKeeper 3.5 does (UNIMPLEMENTED, then the connection closed) and
// passes everything else through; it returns its address.
func refuseAddWatch(t *testing.T, addr string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	go func() {
		for {
			client, err := ln.Accept()
			if err != nil {
				return
			}
			server, err := net.Dial("tcp", addr)
			if err != nil {
				client.Close()
				continue
			}
			mu.Lock()
			conns = append(conns, client, server)
			mu.Unlock()
			var wmu sync.Mutex // the client's writes: replies, or the refusal
			go func() {
				buf := make([]byte, 32<<10)
				for {
					n, err := server.Read(buf)
					if n > 0 {
						wmu.Lock()
						client.Write(buf[:n])
						wmu.Unlock()
					}
					if err != nil {
						client.Close()
						return
					}
				}
			}()
			go func() {
				defer server.Close()
				br := bufio.NewReader(client)
				for first := true; ; first = false {
					var hdr [4]byte
					if _, err := io.ReadFull(br, hdr[:]); err != nil {
						return
					}
					frame := make([]byte, binary.BigEndian.Uint32(hdr[:]))
					if _, err := io.ReadFull(br, frame); err != nil {
						return
					}
					// after the connect request: xid, op, body
					if !first && len(frame) >= 8 && int32(binary.BigEndian.Uint32(frame[4:])) == 106 {
						reply := binary.BigEndian.AppendUint32(nil, 16)
						reply = append(reply, frame[:4]...)                              // xid
						reply = binary.BigEndian.AppendUint64(reply, 0)                  // zxid
						reply = binary.BigEndian.AppendUint32(reply, uint32(0xfffffffa)) // -6
						wmu.Lock()
						client.Write(reply)
						wmu.Unlock()
						client.Close()
						return
					}
					if _, err := server.Write(append(hdr[:], frame...)); err != nil {
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String()
}

// TestLiveFeed changes the 3.9 source through its brokers' admin API (so
// Kafka itself writes ZooKeeper and its notifications) and expects the
// feed to name each changed entity, with persistent watches (the test
// bed's ZooKeeper is 3.8) and, through a proxy that refuses addWatch as
// ZooKeeper 3.5 does, with the one-shot watches it falls back to.
// Everything it creates it removes.
func TestLiveFeed(t *testing.T) {
	t.Run("persistent", func(t *testing.T) { liveFeed(t, true) })
	t.Run("addWatch refused", func(t *testing.T) { liveFeed(t, false) })
}

func liveFeed(t *testing.T, persistent bool) {
	zkAddr := testbed.ZK(t)
	if !persistent {
		zkAddr = refuseAddWatch(t, zkAddr)
	}
	bootstrap := testbed.SourceBootstrap(t)
	cfg, err := kafkaconn.Load(testbed.SourceClientProps(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	zc, err := zkconn.Dial(ctx, zkconn.Options{Connect: zkAddr, NoMultiRead: true, Connections: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer zc.Close()
	feed, err := Start(ctx, zc)
	if err != nil {
		t.Fatal(err)
	}
	p, why := feed.Mode()
	if p != persistent || persistent != (why == nil) || !persistent && !errors.Is(why, zkwire.ErrUnimplemented) {
		t.Fatalf("Mode = %v, %v; want persistent %v (else the refusal)", p, why, persistent)
	}
	kc, err := kafkaconn.Dial(ctx, []string{bootstrap}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(kc.Close)
	adm := kc.Admin

	id := fmt.Sprintf("zkfeed-%d", time.Now().UnixNano())
	topic, prefix, user := id, id+"-pfx-", id+"-user"
	t.Cleanup(func() { // before kc.Close, which Cleanup runs after this
		testbed.DeleteACLs(t, adm,
			kadm.NewACLs().Topics(topic).ResourcePatternType(kadm.ACLPatternLiteral).Allow("User:"+user).AllowHosts().Operations(kadm.OpRead),
			kadm.NewACLs().Topics(prefix).ResourcePatternType(kadm.ACLPatternPrefixed).Allow("User:"+user).AllowHosts().Operations(kadm.OpWrite),
			kadm.NewACLs().TransactionalIDs(topic).ResourcePatternType(kadm.ACLPatternLiteral).Allow("User:"+user).AllowHosts().Operations(kadm.OpWrite))
		testbed.RemoveUserQuota(t, adm, user, "producer_byte_rate")
		testbed.DeleteSCRAM(t, adm, user, kadm.ScramSha256)
		testbed.DeleteTopicsAndWait(t, adm, bound, topic)
	})

	steps := []struct {
		name string
		do   func() error
		want Entity
		// zxid: the event carries the zxid of the znode that told of
		// it (a notification's, or the topic znode's after a change to
		// its assignment), which a topic's creation alone does not.
		zxid bool
	}{
		{"create topic", func() error {
			_, err := adm.CreateTopic(ctx, 1, 1, nil, topic)
			return err
		}, Entity{Topic, topic}, false},
		{"alter topic config", func() error {
			v := "3600000"
			r, err := adm.AlterTopicConfigs(ctx, []kadm.AlterConfig{{Name: "retention.ms", Value: &v}}, topic)
			return firstErr(err, r)
		}, Entity{Config, "topics/" + topic}, true},
		{"add a partition", func() error {
			r, err := adm.CreatePartitions(ctx, 1, topic)
			if err == nil {
				err = r.Error()
			}
			return err
		}, Entity{Topic, topic}, true},
		{"literal ACL", func() error {
			r, err := adm.CreateACLs(ctx, kadm.NewACLs().Topics(topic).ResourcePatternType(kadm.ACLPatternLiteral).Allow("User:"+user).AllowHosts().Operations(kadm.OpRead))
			return aclErr(err, r)
		}, Entity{ACL, "Topic:LITERAL:" + topic}, true},
		{"prefixed ACL", func() error {
			r, err := adm.CreateACLs(ctx, kadm.NewACLs().Topics(prefix).ResourcePatternType(kadm.ACLPatternPrefixed).Allow("User:"+user).AllowHosts().Operations(kadm.OpWrite))
			return aclErr(err, r)
		}, Entity{ACL, "Topic:PREFIXED:" + prefix}, true},
		{"transactional id ACL", func() error {
			r, err := adm.CreateACLs(ctx, kadm.NewACLs().TransactionalIDs(topic).ResourcePatternType(kadm.ACLPatternLiteral).Allow("User:"+user).AllowHosts().Operations(kadm.OpWrite))
			return aclErr(err, r)
		}, Entity{ACL, "TransactionalId:LITERAL:" + topic}, true},
		{"user quota", func() error {
			rate := 1048576.0
			r, err := adm.AlterClientQuotas(ctx, []kadm.AlterClientQuotaEntry{{Entity: kadm.ClientQuotaEntity{{Type: "user", Name: &user}}, Ops: []kadm.AlterClientQuotaOp{{Key: "producer_byte_rate", Value: rate}}}})
			if err == nil {
				for _, x := range r {
					if x.Err != nil {
						return x.Err
					}
				}
			}
			return err
		}, Entity{Config, "users/" + user}, true},
		{"SCRAM credential", func() error {
			r, err := adm.AlterUserSCRAMs(ctx, nil, []kadm.UpsertSCRAM{{User: user, Mechanism: kadm.ScramSha256, Iterations: 4096, Password: "feed-secret"}})
			if err == nil {
				err = r.Error()
			}
			return err
		}, Entity{Config, "users/" + user}, true},
		{"delete topic", func() error {
			r, err := adm.DeleteTopics(ctx, topic)
			if err == nil {
				err = r.Error()
			}
			return err
		}, Entity{Topic, topic}, false},
	}
	var lastZxid int64
	for _, s := range steps {
		if err := testbed.RetryUnknownTopic(bound, s.do); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		ev := waitFor(t, feed, s.want)
		if s.zxid && ev.Zxid == 0 {
			t.Errorf("%s: event %+v has no zxid", s.name, ev)
		}
		if ev.Zxid != 0 && ev.Zxid < lastZxid {
			t.Errorf("%s: zxid %d went back from %d", s.name, ev.Zxid, lastZxid)
		}
		lastZxid = max(lastZxid, ev.Zxid)
		t.Logf("%s: %v after %s", s.name, ev.Entities, time.Since(ev.Seen))
	}
}

// waitFor reads events until one names want; a resync fails the test
// (nothing was lost here).
func waitFor(t *testing.T, f *Feed, want Entity) Event {
	t.Helper()
	timer := time.NewTimer(bound)
	defer timer.Stop()
	for {
		select {
		case ev, ok := <-f.Events():
			if !ok {
				t.Fatalf("feed closed before %v", want)
			}
			if ev.Resync {
				t.Fatalf("resync while waiting for %v: %v", want, ev.Err)
			}
			if slices.Contains(ev.Entities, want) {
				return ev
			}
		case <-timer.C:
			t.Fatalf("no %v within %s", want, bound)
		}
	}
}

func firstErr(err error, r kadm.AlterConfigsResponses) error {
	if err != nil {
		return err
	}
	for _, x := range r {
		if x.Err != nil {
			return x.Err
		}
	}
	return nil
}

func aclErr(err error, r kadm.CreateACLsResults) error {
	if err != nil {
		return err
	}
	for _, x := range r {
		if x.Err != nil {
			return x.Err
		}
	}
	return nil
}
