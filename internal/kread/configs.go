package kread

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
	"golang.org/x/sync/errgroup"

	"github.com/zkmigrate/zkmigrate/internal/catalogue"
	"github.com/zkmigrate/zkmigrate/internal/secret"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// configs reads topic configs in batches and the configs of brokers (a
// broker id, or "" for the cluster default), concurrently.
func (r *reader) configs(ctx context.Context, s *snapshot.Snapshot, brokers []string) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(r.opts.Concurrency)
	tc := &topicConfigSet{}
	names := make([]string, 0, len(s.Topics))
	for _, t := range s.Topics {
		names = append(names, t.Name)
	}
	r.describeTopicConfigs(g, gctx, names, tc)
	brokerCfgs := r.describeBrokerConfigs(g, gctx, brokers)
	if err := g.Wait(); err != nil {
		return err
	}
	if err := r.setTopicConfigs(s, tc); err != nil {
		return err
	}
	r.setBrokerConfigs(s, brokers, brokerCfgs)
	return nil
}

// topicConfigSet gathers what the DescribeConfigs requests of a read's
// topics found.
type topicConfigSet struct {
	mu       sync.Mutex
	cfgs     map[string][]snapshot.Config
	vanished []string // topics that no longer exist
	denied   []string // topics the principal may not describe
}

// describeTopicConfigs adds to g the DescribeConfigs requests of names,
// ConfigBatch topics each, gathering into tc.
func (r *reader) describeTopicConfigs(g *errgroup.Group, ctx context.Context, names []string, tc *topicConfigSet) {
	for start := 0; start < len(names); start += r.opts.ConfigBatch {
		batch := names[start:min(start+r.opts.ConfigBatch, len(names))]
		g.Go(func() error {
			got, gone, deny, err := r.topicConfigs(ctx, batch)
			if err != nil {
				return err
			}
			tc.mu.Lock()
			defer tc.mu.Unlock()
			if tc.cfgs == nil {
				tc.cfgs = make(map[string][]snapshot.Config, len(names))
			}
			for k, v := range got {
				tc.cfgs[k] = v
			}
			tc.vanished = append(tc.vanished, gone...)
			tc.denied = append(tc.denied, deny...)
			return nil
		})
	}
}

// setTopicConfigs gives s's topics the configs tc found, leaving out (with
// a finding) those deleted while they were read; a topic the principal
// may not describe fails the read.
func (r *reader) setTopicConfigs(s *snapshot.Snapshot, tc *topicConfigSet) error {
	if len(tc.denied) > 0 {
		more := ""
		if len(tc.denied) > 1 {
			more = fmt.Sprintf(" (and %d more topics)", len(tc.denied)-1)
		}
		return fmt.Errorf("kread: reading topic configs needs Topic:DescribeConfigs on %s%s for %s", tc.denied[0], more, r.principal)
	}
	gone := make(map[string]bool, len(tc.vanished))
	for _, n := range tc.vanished {
		gone[n] = true
		r.finding(snapshot.Finding{
			ID: catalogue.IDKReadTopicVanished, Severity: snapshot.SeverityWarning, Resource: "topic " + n,
			Message: "the topic was deleted while it was being read; it is left out",
		})
	}
	kept := s.Topics[:0]
	for _, t := range s.Topics {
		if gone[t.Name] {
			continue
		}
		t.Configs = tc.cfgs[t.Name]
		kept = append(kept, t)
	}
	s.Topics = kept
	return nil
}

// describeBrokerConfigs adds to g one DescribeConfigs request per broker
// config entity; each answer lands at its index in the slice returned.
func (r *reader) describeBrokerConfigs(g *errgroup.Group, ctx context.Context, brokers []string) [][]snapshot.Config {
	out := make([][]snapshot.Config, len(brokers))
	for i, b := range brokers {
		g.Go(func() (err error) {
			out[i], err = r.brokerConfigs(ctx, b)
			return err
		})
	}
	return out
}

// setBrokerConfigs adds the broker config entities that hold configs.
func (r *reader) setBrokerConfigs(s *snapshot.Snapshot, brokers []string, cfgs [][]snapshot.Config) {
	for i, b := range brokers {
		if len(cfgs[i]) > 0 {
			s.BrokerConfigs = append(s.BrokerConfigs, snapshot.BrokerConfig{Broker: b, Configs: cfgs[i]})
		}
	}
}

// configBrokers are the broker config entities a read describes: the
// cluster default and every broker listed, or those of them a scope names.
func (r *reader) configBrokers(s *snapshot.Snapshot) []string {
	all := make([]string, 0, len(s.Brokers)+1)
	all = append(all, "") // cluster default
	for _, b := range s.Brokers {
		all = append(all, brokerName(b.ID))
	}
	if r.opts.Scope == nil {
		return all
	}
	named := r.opts.Scope.sets().brokers
	return keep(all, func(b string) bool { return named[b] })
}

// topicConfigs describes one batch of topics. It returns the dynamic
// configs per topic, the topics that no longer exist, and the topics the
// principal may not describe.
func (r *reader) topicConfigs(ctx context.Context, names []string) (map[string][]snapshot.Config, []string, []string, error) {
	req := kmsg.NewPtrDescribeConfigsRequest()
	for _, n := range names {
		rr := kmsg.NewDescribeConfigsRequestResource()
		rr.ResourceType = kmsg.ConfigResourceTypeTopic
		rr.ResourceName = n
		req.Resources = append(req.Resources, rr)
	}
	resp, err := req.RequestWith(ctx, r.cl)
	if err != nil {
		return nil, nil, nil, r.wrap(err, "reading topic configs", "Topic:DescribeConfigs")
	}
	out := make(map[string][]snapshot.Config, len(names))
	var gone, denied []string
	for _, res := range resp.Resources {
		switch err := kerr.ErrorForCode(res.ErrorCode); {
		case err == nil:
		case err == kerr.UnknownTopicOrPartition:
			gone = append(gone, res.ResourceName)
			continue
		case isAuth(err):
			denied = append(denied, res.ResourceName)
			continue
		default:
			return nil, nil, nil, fmt.Errorf("kread: reading configs of topic %s: %s", res.ResourceName, codeMsg(err, res.ErrorMessage))
		}
		out[res.ResourceName] = dynamicConfigs(res.Configs, kmsg.ConfigSourceDynamicTopicConfig, func(key string) string {
			return "kafka:" + res.ResourceName + "#" + key
		})
	}
	return out, gone, denied, nil
}

// brokerConfigs describes one broker ("" for the cluster default) and keeps
// only the entries set at that level.
func (r *reader) brokerConfigs(ctx context.Context, broker string) ([]snapshot.Config, error) {
	req := kmsg.NewPtrDescribeConfigsRequest()
	rr := kmsg.NewDescribeConfigsRequestResource()
	rr.ResourceType = kmsg.ConfigResourceTypeBroker
	rr.ResourceName = broker
	req.Resources = append(req.Resources, rr)
	what := "reading the configs of broker " + broker
	src, ref := kmsg.ConfigSourceDynamicBrokerConfig, "kafka:broker/"+broker+"#"
	if broker == "" {
		what = "reading the cluster-default broker configs"
		src, ref = kmsg.ConfigSourceDynamicDefaultBrokerConfig, "kafka:broker/<default>#"
	}
	via := r.cl
	if broker != "" {
		via = r.any // only that broker answers for its own configs
	}
	resp, err := req.RequestWith(ctx, via)
	if err != nil {
		return nil, r.wrap(err, what, "Cluster:DescribeConfigs")
	}
	for _, res := range resp.Resources {
		if err := kerr.ErrorForCode(res.ErrorCode); err != nil {
			if isAuth(err) {
				return nil, r.wrap(err, what, "Cluster:DescribeConfigs")
			}
			return nil, fmt.Errorf("kread: %s: %s", what, codeMsg(err, res.ErrorMessage))
		}
		return dynamicConfigs(res.Configs, src, func(key string) string { return ref + key }), nil
	}
	return nil, nil
}

// dynamicConfigs keeps the entries whose source is src, set at that level;
// read-only topic entries are skipped. Kafka flags some dynamic broker keys
// as read-only in DescribeConfigs (listener-prefixed passwords, replication
// throttles) although they were set dynamically, so for brokers the source
// is what counts.
// Sensitive entries become secret references and their value is dropped:
// those the broker flags, those with no value, and Kafka's password-type
// keys (catalogue.IsSensitive) whatever the broker says, since a
// misconfigured or older broker (or kfake) returns them in clear.
func dynamicConfigs(cs []kmsg.DescribeConfigsResponseResourceConfig, src kmsg.ConfigSource, ref func(string) string) []snapshot.Config {
	var out []snapshot.Config
	for _, c := range cs {
		if c.Source != src || (c.ReadOnly && src == kmsg.ConfigSourceDynamicTopicConfig) {
			continue
		}
		sc := snapshot.Config{Key: c.Name, Source: src.String()}
		if c.IsSensitive || c.Value == nil || catalogue.IsSensitive(c.Name) {
			sec := secret.Ref(ref(c.Name))
			sc.Sensitive, sc.Secret = true, &sec
		} else {
			sc.Value = *c.Value
		}
		out = append(out, sc)
	}
	snapshot.SortConfigs(out)
	return out
}

// codeMsg renders a Kafka error code in one line: "INVALID_REQUEST: <the
// broker's message>" when the broker sent one, else kerr's description.
func codeMsg(err error, m *string) string {
	var ke *kerr.Error
	if errors.As(err, &ke) && m != nil && strings.TrimSpace(*m) != "" {
		return ke.Message + ": " + strings.Join(strings.Fields(*m), " ")
	}
	return err.Error()
}
