package kread

import (
	"context"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"

	"github.com/zkmigrate/zkmigrate/internal/kafkaconn"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

func setNamed(t *testing.T, conn *kafkaconn.Conn, rt kmsg.ConfigResourceType, name, key, value string) {
	t.Helper()
	req := kmsg.NewPtrIncrementalAlterConfigsRequest()
	res := kmsg.NewIncrementalAlterConfigsRequestResource()
	res.ResourceType, res.ResourceName = rt, name
	e := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
	e.Name, e.Value = key, kmsg.StringPtr(value)
	res.Configs = append(res.Configs, e)
	req.Resources = append(req.Resources, res)
	resp, err := req.RequestWith(context.Background(), conn.Client)
	if err != nil || resp.Resources[0].ErrorCode != 0 {
		t.Fatalf("alter %s %s: %v %+v", rt, name, err, resp)
	}
}

// TestReadKRaftKindsByVersion: a Kafka 4.1 cluster (ListConfigResources v1)
// names every subscription and every group with configs; a 4.0 one (v0)
// names the subscriptions, and the groups come from ListGroups, so a config
// of a group that does not exist is not seen; a 3.9 one (no API 74 in
// kfake's 3.9 versions, like a ZooKeeper-mode broker) has neither.
func TestReadKRaftKindsByVersion(t *testing.T) {
	tests := []struct {
		name       string
		versions   *kversion.Versions
		subs       int
		wantGroups []string
	}{
		{"4.1", kversion.V4_1_0(), 1, []string{"exists", "no-such-group"}},
		{"4.0", kversion.V4_0_0(), 1, []string{"exists"}},
		{"3.9", kversion.V3_9_0(), 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.MaxVersions(tt.versions), kfake.SeedTopics(1, "t"))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			conn, err := kafkaconn.Dial(context.Background(), c.ListenAddrs(), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if tt.subs > 0 {
				setNamed(t, conn, kmsg.ConfigResourceTypeClientMetrics, "all", "metrics", "*")
				setNamed(t, conn, kmsg.ConfigResourceTypeGroupConfig, "exists", "consumer.session.timeout.ms", "50000")
				setNamed(t, conn, kmsg.ConfigResourceTypeGroupConfig, "no-such-group", "consumer.session.timeout.ms", "50000")
				var os kadm.Offsets
				os.Add(kadm.Offset{Topic: "t", Partition: 0, At: 0})
				if _, err := conn.Admin.CommitOffsets(context.Background(), "exists", os); err != nil {
					t.Fatal(err)
				}
			}
			s, err := Read(context.Background(), conn, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(s.ClientMetrics) != tt.subs {
				t.Errorf("subscriptions %+v, want %d", s.ClientMetrics, tt.subs)
			}
			var groups []string
			for _, g := range s.GroupConfigs {
				groups = append(groups, g.Name)
				if len(g.Configs) != 1 || g.Configs[0] != (snapshot.Config{Key: "consumer.session.timeout.ms", Value: "50000", Source: "GROUP_CONFIG"}) {
					t.Errorf("group %s configs %+v, want only consumer.session.timeout.ms=50000 (no defaults)", g.Name, g.Configs)
				}
			}
			if len(groups) != len(tt.wantGroups) || (len(groups) > 0 && !equalStrings(groups, tt.wantGroups)) {
				t.Errorf("groups %v, want %v", groups, tt.wantGroups)
			}
		})
	}
}

func equalStrings(a, b []string) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return len(a) == len(b)
}
