package kread

import (
	"context"
	"fmt"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
	"golang.org/x/sync/errgroup"

	"github.com/zkmigrate/zkmigrate/internal/kafkaconn"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// NodeEntry is one broker config entry as DescribeConfigs returns it.
type NodeEntry struct {
	Key string
	// Value is nil when the broker hides it: Kafka returns keys it does
	// not define (super.users, allow.everyone.if.no.acl.found) as
	// sensitive, without their value.
	Value *string
	// Source is Kafka's config source: STATIC_BROKER_CONFIG (the node's
	// properties file), DYNAMIC_BROKER_CONFIG, DEFAULT_CONFIG, ...
	Source string
}

// NodeConfig is what one broker node returns for the keys asked.
type NodeConfig struct {
	Node    int32
	Addr    string
	Entries []NodeEntry // only the keys the node returned, in the order asked
}

// Get returns the entry for key, or nil when the node did not return it.
func (n *NodeConfig) Get(key string) *NodeEntry {
	for i := range n.Entries {
		if n.Entries[i].Key == key {
			return &n.Entries[i]
		}
	}
	return nil
}

// ReadNodeConfigs asks every broker that Metadata lists for the given keys
// of its own config (DescribeConfigs of the broker resource, sent to that
// broker), sorted by node id. A key the node does not return is absent
// from its Entries; an entry with no value is one the node hides. Every
// node must answer: the error names the one that did not, or the ACL
// missing (Cluster:DescribeConfigs).
func ReadNodeConfigs(ctx context.Context, conn *kafkaconn.Conn, keys []string) ([]NodeConfig, error) {
	brokers, err := ListBrokers(ctx, conn)
	if err != nil {
		return nil, err
	}
	r := &reader{principal: conn.Principal, addr: strings.Join(conn.Bootstrap, ",")}
	if r.principal == "" {
		r.principal = "User:ANONYMOUS"
	}
	out := make([]NodeConfig, len(brokers))
	var g errgroup.Group
	g.SetLimit(4)
	for i, b := range brokers {
		out[i] = NodeConfig{Node: b.Broker, Addr: b.Addr}
		g.Go(func() error {
			es, err := r.nodeEntries(ctx, conn.Client.Broker(int(b.Broker)), b.Broker, keys)
			if err != nil {
				return fmt.Errorf("broker %d (%s): %w", b.Broker, b.Addr, err)
			}
			out[i].Entries = es
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}

// nodeEntries describes the keys of broker id's own config through via.
func (r *reader) nodeEntries(ctx context.Context, via kmsg.Requestor, id int32, keys []string) ([]NodeEntry, error) {
	req := kmsg.NewPtrDescribeConfigsRequest()
	rr := kmsg.NewDescribeConfigsRequestResource()
	rr.ResourceType = kmsg.ConfigResourceTypeBroker
	rr.ResourceName = brokerName(id)
	rr.ConfigNames = keys
	req.Resources = append(req.Resources, rr)
	what := "reading the authorizer settings of broker " + brokerName(id)
	resp, err := req.RequestWith(ctx, via)
	if err != nil {
		return nil, r.wrap(err, what, "Cluster:DescribeConfigs")
	}
	byKey := map[string]NodeEntry{}
	for _, res := range resp.Resources {
		if err := kerr.ErrorForCode(res.ErrorCode); err != nil {
			if isAuth(err) {
				return nil, r.wrap(err, what, "Cluster:DescribeConfigs")
			}
			return nil, fmt.Errorf("kread: %s: %s", what, codeMsg(err, res.ErrorMessage))
		}
		for _, c := range res.Configs {
			e := NodeEntry{Key: c.Name, Source: c.Source.String()}
			if !c.IsSensitive && c.Value != nil {
				v := *c.Value
				e.Value = &v
			}
			byKey[c.Name] = e
		}
	}
	var out []NodeEntry
	for _, k := range keys {
		if e, ok := byKey[k]; ok {
			out = append(out, e)
		}
	}
	return out, nil
}

// ReadACLs reads every ACL of the cluster (one DescribeAcls), with a
// finding for each ACL it cannot represent and for a cluster without an
// authorizer (it then holds none).
func ReadACLs(ctx context.Context, conn *kafkaconn.Conn) ([]snapshot.ACL, []snapshot.Finding, error) {
	r := &reader{cl: conn.Client, any: conn.Client, principal: conn.Principal, addr: strings.Join(conn.Bootstrap, ",")}
	if r.principal == "" {
		r.principal = "User:ANONYMOUS"
	}
	acls, err := r.acls(ctx)
	if err != nil {
		return nil, nil, err
	}
	s := &snapshot.Snapshot{ACLs: acls}
	s.Sort()
	return s.ACLs, r.findings, nil
}
