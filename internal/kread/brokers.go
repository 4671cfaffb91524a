package kread

import (
	"context"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
	"golang.org/x/sync/errgroup"

	"github.com/zkmigrate/zkmigrate/internal/kafkaconn"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// BrokerRead is one read of the cluster through one of its brokers.
type BrokerRead struct {
	Broker int32  // the broker's node id
	Addr   string // its host:port as Metadata lists it
	// Snapshot is what that broker showed; nil when Err is set.
	Snapshot *snapshot.Snapshot
	// Err is why the read through this broker failed; it names the
	// broker.
	Err error
}

// ReadEachBroker reads the cluster once through each broker that Metadata
// lists, every request of a read sent to that broker, except those only
// one broker can answer: a broker's own configs (to that broker) and the
// partition reassignments (to the controller). Each KRaft broker applies
// the metadata log on its own, so right after a change one broker may
// still answer with the old state, and a client that asks a random broker
// sees either: a change is on the cluster when every broker's read shows
// it. The reads are sorted by broker id. The error is for the Metadata
// request that lists the brokers; a broker whose read fails has its Err
// set, naming it, and the other reads are still made.
func ReadEachBroker(ctx context.Context, conn *kafkaconn.Conn, opts Options) ([]BrokerRead, error) {
	return readEachBroker(ctx, conn, opts, func(id int32) kmsg.Requestor { return conn.Client.Broker(int(id)) })
}

// readEachBroker is ReadEachBroker with the requests to broker id sent
// through pin(id).
func readEachBroker(ctx context.Context, conn *kafkaconn.Conn, opts Options, pin func(id int32) kmsg.Requestor) ([]BrokerRead, error) {
	opts.defaults()
	out, err := ListBrokers(ctx, conn)
	if err != nil {
		return nil, err
	}
	var g errgroup.Group
	g.SetLimit(max(1, opts.Concurrency/2))
	for i := range out {
		g.Go(func() error {
			out[i] = readBroker(ctx, conn, out[i], opts, pin(out[i].Broker))
			return nil
		})
	}
	_ = g.Wait()
	return out, nil
}

// ListBrokers returns the brokers that Metadata lists, sorted by id, as
// BrokerReads without a read (Snapshot and Err unset). The error names
// the cluster.
func ListBrokers(ctx context.Context, conn *kafkaconn.Conn) ([]BrokerRead, error) {
	req := kmsg.NewPtrMetadataRequest()
	req.Topics = []kmsg.MetadataRequestTopic{} // brokers only, no topics
	resp, err := req.RequestWith(ctx, conn.Client)
	if err == nil {
		err = kerr.ErrorForCode(resp.ErrorCode)
	}
	if err != nil {
		r := &reader{principal: conn.Principal, addr: strings.Join(conn.Bootstrap, ",")}
		return nil, r.wrap(err, "listing the brokers (Metadata)", "Topic:Describe")
	}
	out := make([]BrokerRead, 0, len(resp.Brokers))
	for _, b := range resp.Brokers {
		out = append(out, BrokerRead{Broker: b.NodeID, Addr: net.JoinHostPort(b.Host, strconv.Itoa(int(b.Port)))})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("kread: the cluster at %s lists no brokers in Metadata", strings.Join(conn.Bootstrap, ","))
	}
	slices.SortFunc(out, func(a, b BrokerRead) int { return int(a.Broker - b.Broker) })
	return out, nil
}

// ReadBroker reads the cluster once through broker b (one ListBrokers
// returned), as ReadEachBroker reads each: b with its Snapshot, or its Err
// naming the broker.
func ReadBroker(ctx context.Context, conn *kafkaconn.Conn, b BrokerRead, opts Options) BrokerRead {
	return readBroker(ctx, conn, b, opts, conn.Client.Broker(int(b.Broker)))
}

func readBroker(ctx context.Context, conn *kafkaconn.Conn, b BrokerRead, opts Options, via kmsg.Requestor) BrokerRead {
	b.Snapshot, b.Err = read(ctx, conn, via, opts)
	if b.Err != nil {
		b.Snapshot = nil
		b.Err = fmt.Errorf("broker %d (%s): %w", b.Broker, b.Addr, b.Err)
	}
	return b
}
