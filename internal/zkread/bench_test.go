package zkread

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/zktree"
)

// bigTree builds a tree of n topics with 4 partitions of 3 replicas each,
// their configs and partition states, n/2 ACL znodes and n/5 users.
func bigTree(n int) *zktree.Tree {
	t := &zktree.Tree{}
	var zx int64
	add := func(p, data string, version int32) {
		zx++
		t.Nodes = append(t.Nodes, zktree.Node{Path: p, Data: []byte(data), Czxid: zx, Mzxid: zx, Version: version})
	}
	for _, d := range []string{"/brokers", "/brokers/ids", "/brokers/topics", "/config", "/config/topics", "/config/users", "/kafka-acl", "/kafka-acl/Topic", "/cluster"} {
		add(d, "", 0)
	}
	add("/cluster/id", `{"version":"1","id":"Xk3pQ9m2Rj6bV1cT0wYzAa"}`, 0)
	for b := range 3 {
		add("/brokers/ids/"+strconv.Itoa(b), fmt.Sprintf(`{"version":5,"host":"b%d","port":9092,"endpoints":["PLAINTEXT://b%d:9092"],"rack":"r%d"}`, b, b, b), 0)
	}
	for i := range n {
		name := fmt.Sprintf("topic-%06d", i)
		add("/brokers/topics/"+name, `{"version":3,"partitions":{"0":[0,1,2],"1":[1,2,0],"2":[2,0,1],"3":[0,2,1]},"adding_replicas":{},"removing_replicas":{},"topic_id":"Wm4s3qv8RHSv0DVk2nJtYA"}`, 0)
		add("/brokers/topics/"+name+"/partitions", "", 0)
		for p := range 4 {
			add(fmt.Sprintf("/brokers/topics/%s/partitions/%d", name, p), "", 0)
			add(fmt.Sprintf("/brokers/topics/%s/partitions/%d/state", name, p), `{"controller_epoch":7,"leader":1,"version":1,"leader_epoch":12,"isr":[0,1,2]}`, 3)
		}
		add("/config/topics/"+name, `{"version":1,"config":{"retention.ms":"86400000","cleanup.policy":"delete"}}`, 0)
		if i%2 == 0 {
			add("/kafka-acl/Topic/"+name, `{"version":1,"acls":[{"principal":"User:alice","permissionType":"Allow","operation":"Read","host":"*"},{"principal":"User:bob","permissionType":"Allow","operation":"Write","host":"*"}]}`, 0)
		}
		if i%5 == 0 {
			add(fmt.Sprintf("/config/users/user-%d", i), `{"version":1,"config":{"SCRAM-SHA-256":"salt=YQ==,stored_key=YQ==,server_key=YQ==,iterations=4096","producer_byte_rate":"1024"}}`, 0)
		}
	}
	t.Sort()
	return t
}

var bigTrees sync.Map // n → *zktree.Tree

func cachedBigTree(n int) *zktree.Tree {
	if t, ok := bigTrees.Load(n); ok {
		return t.(*zktree.Tree)
	}
	t := bigTree(n)
	bigTrees.Store(n, t)
	return t
}

// BenchmarkRead measures parsing and assembly over an in-memory tree (no
// network) at 10,000 and 50,000 topics in both modes.
func BenchmarkRead(b *testing.B) {
	for _, n := range []int{10_000, 50_000} {
		for _, full := range []bool{false, true} {
			mode := ModeMigration
			if full {
				mode = ModeFull
			}
			b.Run(fmt.Sprintf("topics=%d/%s", n, mode), func(b *testing.B) {
				tree := cachedBigTree(n)
				b.ReportAllocs()
				cpu0 := cpuTime()
				for b.Loop() {
					s, err := Read(context.Background(), tree, Options{Full: full})
					if err != nil {
						b.Fatal(err)
					}
					if len(s.Topics) != n {
						b.Fatalf("read %d topics", len(s.Topics))
					}
					b.ReportMetric(float64(s.Read.Znodes), "znodes/op")
				}
				b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
			})
		}
	}
}

// cpuTime is the process's user plus system CPU time in nanoseconds: on a
// shared machine wall time mostly measures waiting for a core.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// slowSource adds a fixed round-trip time to every request, like a network
// ensemble, so the benefit of requests in flight shows without a server.
type slowSource struct {
	*zktree.Tree
	rtt time.Duration
}

func (s slowSource) Get(p string) ([]byte, zktree.Stat, error) {
	time.Sleep(s.rtt)
	return s.Tree.Get(p)
}

func (s slowSource) Children(p string) ([]string, error) {
	time.Sleep(s.rtt)
	return s.Tree.Children(p)
}

// BenchmarkReadLatency compares one request at a time with pipelined
// workers over a source with a 200µs round trip (1,000 topics).
func BenchmarkReadLatency(b *testing.B) {
	src := slowSource{Tree: cachedBigTree(1000), rtt: 200 * time.Microsecond}
	for _, workers := range []int{1, 8, 64, 256} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			for b.Loop() {
				if _, err := Read(context.Background(), src, Options{Workers: workers}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
