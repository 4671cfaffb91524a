package zkfeed

import (
	"strings"
	"testing"
)

func TestParseNotification(t *testing.T) {
	for _, tc := range []struct {
		name, queue, data string
		want              Entity
		err               string
	}{
		{"config v2 topic", configChanges, `{"version":2,"entity_path":"topics/t1"}`, Entity{Config, "topics/t1"}, ""},
		{"config v2 user client", configChanges, `{"version":2,"entity_path":"users/alice%40corp/clients/app-1"}`, Entity{Config, "users/alice%40corp/clients/app-1"}, ""},
		{"config v2 broker default", configChanges, `{"version":2,"entity_path":"brokers/<default>"}`, Entity{Config, "brokers/<default>"}, ""},
		{"config v1", configChanges, `{"version":1,"entity_type":"topics","entity_name":"t1"}`, Entity{Config, "topics/t1"}, ""},
		{"config v2 without a type", configChanges, `{"version":2,"entity_path":"t1"}`, Entity{}, "unknown form (version 2)"},
		{"config v3", configChanges, `{"version":3,"entity_path":"topics/t1"}`, Entity{}, "unknown form (version 3)"},
		{"config not JSON", configChanges, `topics/t1`, Entity{}, "not JSON"},
		{"acl literal 2.5+", aclChanges, `TOPIC:orders`, Entity{ACL, "Topic:LITERAL:orders"}, ""},
		{"acl literal before 2.5", aclChanges, `Group:app`, Entity{ACL, "Group:LITERAL:app"}, ""},
		{"acl literal name with colon", aclChanges, `TRANSACTIONAL_ID:tx:1`, Entity{ACL, "TransactionalId:LITERAL:tx:1"}, ""},
		{"acl delegation token 2.5+", aclChanges, `DELEGATION_TOKEN:tok`, Entity{ACL, "DelegationToken:LITERAL:tok"}, ""},
		{"acl transactional id before 2.5", aclChanges, `TransactionalId:tx`, Entity{ACL, "TransactionalId:LITERAL:tx"}, ""},
		{"acl cluster", aclChanges, `CLUSTER:kafka-cluster`, Entity{ACL, "Cluster:LITERAL:kafka-cluster"}, ""},
		{"acl unknown type", aclChanges, `BROKER:1`, Entity{}, "no resource type"},
		{"acl no colon", aclChanges, `orders`, Entity{}, "no resource type"},
		{"acl extended", aclExtChanges, `{"version":1,"resourceType":"TOPIC","name":"pfx-","patternType":"PREFIXED"}`, Entity{ACL, "Topic:PREFIXED:pfx-"}, ""},
		{"acl extended 2.0 spelling", aclExtChanges, `{"version":1,"resourceType":"Topic","name":"pfx-","patternType":"Prefixed"}`, Entity{ACL, "Topic:PREFIXED:pfx-"}, ""},
		{"acl extended transactional id", aclExtChanges, `{"version":1,"resourceType":"TRANSACTIONAL_ID","name":"tx-","patternType":"PREFIXED"}`, Entity{ACL, "TransactionalId:PREFIXED:tx-"}, ""},
		{"acl extended version 2", aclExtChanges, `{"version":2,"resourceType":"TOPIC","name":"p","patternType":"PREFIXED"}`, Entity{}, "unknown form (version 2"},
		{"acl extended no pattern", aclExtChanges, `{"version":1,"resourceType":"TOPIC","name":"p"}`, Entity{}, "unknown form"},
		{"acl extended not JSON", aclExtChanges, `TOPIC:p`, Entity{}, "not JSON"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseNotification(tc.queue, []byte(tc.data))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}

func TestSeqOf(t *testing.T) {
	for name, want := range map[string]int64{
		"config_change_0000000012": 12,
		"acl_changes_0000001234":   1234,
		"short":                    -1,
		"config_change_00000000x2": -1,
	} {
		if got := seqOf(name); got != want {
			t.Errorf("seqOf(%q) = %d, want %d", name, got, want)
		}
	}
}

func FuzzParseNotification(f *testing.F) {
	for _, s := range []string{`{"version":2,"entity_path":"topics/t1"}`, `TOPIC:x`, `{"version":1,"resourceType":"TOPIC","name":"p","patternType":"PREFIXED"}`} {
		f.Add(0, s)
		f.Add(1, s)
		f.Add(2, s)
	}
	queues := []string{configChanges, aclChanges, aclExtChanges}
	f.Fuzz(func(t *testing.T, q int, data string) {
		e, err := parseNotification(queues[uint(q)%3], []byte(data))
		if err == nil && (e.Kind == "" || e.Name == "" && e.Kind == Config) {
			t.Fatalf("accepted %q as %+v", data, e)
		}
	})
}
