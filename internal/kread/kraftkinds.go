package kread

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// kraftKinds reads the config resources only a KRaft cluster has: client-
// metrics subscriptions (KIP-714) and group configs (KIP-848). Their names
// come from ListConfigResources (API 74): v1 (Kafka 4.1, KIP-1142) lists
// both; v0 (ListClientMetricsResources, Kafka 3.7-4.0) lists subscriptions
// only, and then the groups are those ListGroups knows (a group config set
// for a group that does not exist is not visible before 4.1). A cluster
// without API 74 has neither. Only the entries set on the resource count
// (CLIENT_METRICS_CONFIG, GROUP_CONFIG), not the defaults.
func (r *reader) kraftKinds(ctx context.Context, s *snapshot.Snapshot) error {
	ver, err := r.apiVersion(ctx, 74)
	if err != nil || ver < 0 {
		return err
	}
	req := kmsg.NewPtrListConfigResourcesRequest()
	req.ResourceTypes = []int8{int8(kmsg.ConfigResourceTypeClientMetrics), int8(kmsg.ConfigResourceTypeGroupConfig)}
	resp, err := req.RequestWith(ctx, r.cl)
	if err != nil {
		return r.wrap(err, "listing client-metrics subscriptions and groups (ListConfigResources)", "Cluster:DescribeConfigs")
	}
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		if isAuth(err) {
			return r.wrap(err, "listing client-metrics subscriptions and groups (ListConfigResources)", "Cluster:DescribeConfigs")
		}
		if errors.Is(err, kerr.UnsupportedVersion) || errors.Is(err, kerr.InvalidRequest) {
			return nil // a broker that has no such resources (ZooKeeper mode)
		}
		return fmt.Errorf("kread: listing client-metrics subscriptions and groups: %s", codeMsg(err, nil))
	}
	var subs, groups []string
	for _, cr := range resp.ConfigResources {
		switch {
		case resp.Version == 0 || cr.Type == int8(kmsg.ConfigResourceTypeClientMetrics):
			subs = append(subs, cr.Name)
		case cr.Type == int8(kmsg.ConfigResourceTypeGroupConfig):
			groups = append(groups, cr.Name)
		}
	}
	if resp.Version == 0 {
		if groups, err = r.groupNames(ctx); err != nil {
			return err
		}
	}
	if s.ClientMetrics, err = r.namedConfigs(ctx, kmsg.ConfigResourceTypeClientMetrics, kmsg.ConfigSourceClientMetricsConfig, "client-metrics", subs, "Cluster:DescribeConfigs"); err != nil {
		return err
	}
	s.GroupConfigs, err = r.namedConfigs(ctx, kmsg.ConfigResourceTypeGroupConfig, kmsg.ConfigSourceGroupConfig, "group", groups, "Group:DescribeConfigs")
	return err
}

// apiVersion is the highest version of API key the cluster serves, -1 when
// it does not serve it.
func (r *reader) apiVersion(ctx context.Context, key int16) (int16, error) {
	req := kmsg.NewPtrApiVersionsRequest()
	req.ClientSoftwareName, req.ClientSoftwareVersion = "zkmigrate", "1"
	resp, err := req.RequestWith(ctx, r.cl)
	if err != nil {
		return -1, r.wrap(err, "asking the API versions", "nothing")
	}
	for _, k := range resp.ApiKeys {
		if k.ApiKey == key {
			return k.MaxVersion, nil
		}
	}
	return -1, nil
}

// groupNames lists every group of every broker (ListGroups, sent to each).
func (r *reader) groupNames(ctx context.Context) ([]string, error) {
	req := kmsg.NewPtrListGroupsRequest()
	resp, err := req.RequestWith(ctx, r.any)
	if err != nil {
		return nil, r.wrap(err, "listing groups (ListGroups)", "Group:Describe")
	}
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		return nil, r.wrap(err, "listing groups (ListGroups)", "Group:Describe")
	}
	names := make([]string, 0, len(resp.Groups))
	for _, g := range resp.Groups {
		names = append(names, g.Group)
	}
	slices.Sort(names)
	return slices.Compact(names), nil
}

// namedConfigs describes resources of one type in batches and keeps, for
// each that has any, the entries set on it (source src). A resource gone
// since it was listed is left out.
func (r *reader) namedConfigs(ctx context.Context, rt kmsg.ConfigResourceType, src kmsg.ConfigSource, what string, names []string, acl string) ([]snapshot.NamedConfigs, error) {
	var out []snapshot.NamedConfigs
	for start := 0; start < len(names); start += r.opts.ConfigBatch {
		req := kmsg.NewPtrDescribeConfigsRequest()
		for _, n := range names[start:min(start+r.opts.ConfigBatch, len(names))] {
			rr := kmsg.NewDescribeConfigsRequestResource()
			rr.ResourceType, rr.ResourceName = rt, n
			req.Resources = append(req.Resources, rr)
		}
		resp, err := req.RequestWith(ctx, r.cl)
		if err != nil {
			return nil, r.wrap(err, "reading "+what+" configs", acl)
		}
		for _, res := range resp.Resources {
			if err := kerr.ErrorForCode(res.ErrorCode); err != nil {
				if isAuth(err) {
					return nil, r.wrap(err, fmt.Sprintf("reading the configs of %s %s", what, res.ResourceName), acl)
				}
				if errors.Is(err, kerr.GroupIDNotFound) || errors.Is(err, kerr.ResourceNotFound) {
					continue
				}
				if rt == kmsg.ConfigResourceTypeGroupConfig && errors.Is(err, kerr.InvalidRequest) {
					// A Kafka 3.x KRaft cluster (ListConfigResources v0)
					// has no group configs: "Unsupported resource type".
					return nil, nil
				}
				return nil, fmt.Errorf("kread: reading the configs of %s %s: %s", what, res.ResourceName, codeMsg(err, res.ErrorMessage))
			}
			cs := dynamicConfigs(res.Configs, src, func(key string) string { return "kafka:" + what + "/" + res.ResourceName + "#" + key })
			if len(cs) > 0 {
				out = append(out, snapshot.NamedConfigs{Name: res.ResourceName, Configs: cs})
			}
		}
	}
	return out, nil
}
