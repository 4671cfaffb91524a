package zkread

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// checkErr fails unless err matches want: "" no error, "version" a
// *VersionError, anything else a substring of a non-version error.
func checkErr(t *testing.T, err error, want string) {
	t.Helper()
	var ve *VersionError
	switch {
	case want == "" && err != nil:
		t.Fatalf("unexpected error: %v", err)
	case want == "version" && !errors.As(err, &ve):
		t.Fatalf("err = %v, want a VersionError", err)
	case want != "" && want != "version" && (err == nil || errors.As(err, &ve) || !strings.Contains(err.Error(), want)):
		t.Fatalf("err = %v, want one containing %q", err, want)
	}
}

func TestParseTopic(t *testing.T) {
	cases := []struct {
		name, data, err string
		want            snapshot.Topic
	}{
		{name: "v1", data: `{"version":1,"partitions":{"1":[2,1],"0":[1,2]}}`,
			want: snapshot.Topic{Name: "t", Partitions: []snapshot.Partition{{ID: 0, Replicas: []int32{1, 2}}, {ID: 1, Replicas: []int32{2, 1}}}}},
		{name: "v2 reassigning", data: `{"version":2,"partitions":{"0":[1,2,3]},"adding_replicas":{"0":[3]},"removing_replicas":{"0":[1]}}`,
			want: snapshot.Topic{Name: "t", Partitions: []snapshot.Partition{{ID: 0, Replicas: []int32{1, 2, 3}, Adding: []int32{3}, Removing: []int32{1}}}}},
		{name: "v3 with id", data: `{"version":3,"partitions":{"0":[1]},"adding_replicas":{},"removing_replicas":{},"topic_id":"Wm4s3qv8RHSv0DVk2nJtYA"}`,
			want: snapshot.Topic{Name: "t", ID: "Wm4s3qv8RHSv0DVk2nJtYA", Partitions: []snapshot.Partition{{ID: 0, Replicas: []int32{1}}}}},
		{name: "v3 without id", data: `{"version":3,"partitions":{"0":[1]},"adding_replicas":{},"removing_replicas":{}}`,
			want: snapshot.Topic{Name: "t", Partitions: []snapshot.Partition{{ID: 0, Replicas: []int32{1}}}}},
		{name: "unknown version kept", data: `{"version":4,"partitions":{"0":[1]}}`, err: "version",
			want: snapshot.Topic{Name: "t", Partitions: []snapshot.Partition{{ID: 0, Replicas: []int32{1}}}}},
		{name: "no partitions", data: `{"version":1}`, err: "no partitions"},
		{name: "bad key", data: `{"version":1,"partitions":{"a":[1]}}`, err: "not a partition number"},
		{name: "negative key", data: `{"version":1,"partitions":{"-1":[1]}}`, err: "not a partition number"},
		{name: "string replicas", data: `{"version":1,"partitions":{"0":["1"]}}`, err: "want int32"},
		{name: "reassignment of unknown partition", data: `{"version":2,"partitions":{"0":[1]},"adding_replicas":{"1":[2]}}`, err: "not in partitions"},
		{name: "empty", data: ``, err: "empty data"},
		{name: "not json", data: `partitions`, err: "bad JSON"},
		{name: "no version", data: `{"partitions":{"0":[1]}}`, err: "no version"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseTopic("t", []byte(c.data))
			checkErr(t, err, c.err)
			if c.err == "" || c.err == "version" {
				if d := cmp.Diff(c.want, got); d != "" {
					t.Fatal(d)
				}
			}
		})
	}
	if got, _ := ParseTopic("__consumer_offsets", []byte(`{"version":1,"partitions":{}}`)); !got.Internal {
		t.Error("__consumer_offsets not marked internal")
	}
}

func TestParseBroker(t *testing.T) {
	cases := []struct {
		name, data, err string
		want            snapshot.Broker
	}{
		{name: "v1 host/port only", data: `{"version":1,"host":"h1","port":9092,"jmx_port":-1,"timestamp":"1"}`,
			want: snapshot.Broker{ID: 7, Host: "h1", Port: 9092, Endpoints: []string{"PLAINTEXT://h1:9092"}, Version: 1}},
		{name: "v1 ipv6", data: `{"version":1,"host":"::1","port":9092}`,
			want: snapshot.Broker{ID: 7, Host: "::1", Port: 9092, Endpoints: []string{"PLAINTEXT://[::1]:9092"}, Version: 1}},
		{name: "v2 endpoints", data: `{"version":2,"host":"h1","port":9092,"endpoints":["PLAINTEXT://h1:9092","SSL://h1:9093"],"jmx_port":-1,"timestamp":"1"}`,
			want: snapshot.Broker{ID: 7, Host: "h1", Port: 9092, Endpoints: []string{"PLAINTEXT://h1:9092", "SSL://h1:9093"}, Version: 2}},
		{name: "v3 rack", data: `{"version":3,"host":"h1","port":9092,"endpoints":["PLAINTEXT://h1:9092"],"rack":"r1"}`,
			want: snapshot.Broker{ID: 7, Host: "h1", Port: 9092, Endpoints: []string{"PLAINTEXT://h1:9092"}, Rack: "r1", Version: 3}},
		{name: "v4 protocol map, no plaintext", data: `{"version":4,"host":null,"port":-1,"endpoints":["SASL_SSL://h1:9094"],"listener_security_protocol_map":{"SASL_SSL":"SASL_SSL"}}`,
			want: snapshot.Broker{ID: 7, Endpoints: []string{"SASL_SSL://h1:9094"}, Version: 4}},
		{name: "v5 features", data: `{"version":5,"host":"h","port":1,"endpoints":["INTERNAL://h:1"],"features":{"metadata.version":{"min_version":1,"max_version":21}},"rack":"dc2"}`,
			want: snapshot.Broker{ID: 7, Host: "h", Port: 1, Endpoints: []string{"INTERNAL://h:1"}, Rack: "dc2", Version: 5}},
		{name: "v6 unknown", data: `{"version":6,"endpoints":["X://h:1"]}`, err: "version",
			want: snapshot.Broker{ID: 7, Endpoints: []string{"X://h:1"}, Version: 6}},
		{name: "no endpoints", data: `{"version":4,"host":"h","port":1}`, err: "without endpoints"},
		{name: "v1 without host", data: `{"version":1}`, err: "without host and port"},
		{name: "port as string", data: `{"version":4,"port":"x","endpoints":["A://h:1"]}`, err: "port"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseBroker(7, []byte(c.data))
			checkErr(t, err, c.err)
			if c.err == "" || c.err == "version" {
				if d := cmp.Diff(c.want, got); d != "" {
					t.Fatal(d)
				}
			}
		})
	}
}

func TestParseSmallZnodes(t *testing.T) {
	t.Run("feature", func(t *testing.T) {
		for _, c := range []struct {
			name, data, err string
			want            []snapshot.Feature
		}{
			{name: "v1", data: `{"version":1,"status":1,"features":{"metadata.version":{"min_version_level":7,"max_version_level":7}}}`,
				want: []snapshot.Feature{{Name: "metadata.version", MinLevel: 7, MaxLevel: 7, Enabled: true}}},
			{name: "v2 disabled", data: `{"version":2,"status":0,"features":{"b":{"max_version_level":2},"a":{"max_version_level":1}}}`,
				want: []snapshot.Feature{{Name: "a", MaxLevel: 1}, {Name: "b", MaxLevel: 2}}},
			{name: "v2 empty", data: `{"version":2,"status":1,"features":{}}`},
			{name: "no status", data: `{"version":2,"features":{}}`, err: "no status"},
			{name: "no max", data: `{"version":2,"status":1,"features":{"x":{}}}`, err: "max_version_level"},
			{name: "v3", data: `{"version":3,"status":1,"features":{}}`, err: "version"},
		} {
			t.Run(c.name, func(t *testing.T) {
				got, err := ParseFeatures([]byte(c.data))
				checkErr(t, err, c.err)
				if c.err == "" {
					if d := cmp.Diff(c.want, got); d != "" {
						t.Fatal(d)
					}
				}
			})
		}
	})
	t.Run("controller", func(t *testing.T) {
		for _, c := range []struct {
			name, data, err string
			want            snapshot.Controller
		}{
			{name: "v1", data: `{"version":1,"brokerid":2,"timestamp":"1700000000000"}`, want: snapshot.Controller{BrokerID: 2, KRaftControllerEpoch: -1}},
			{name: "v2 zk", data: `{"version":2,"brokerid":2,"timestamp":"1","kraftControllerEpoch":-1}`, want: snapshot.Controller{BrokerID: 2, KRaftControllerEpoch: -1}},
			{name: "v2 kraft", data: `{"version":2,"brokerid":3000,"timestamp":"1","kraftControllerEpoch":5}`, want: snapshot.Controller{BrokerID: 3000, KRaftControllerEpoch: 5}},
			{name: "no brokerid", data: `{"version":1}`, err: "no brokerid"},
			{name: "v3", data: `{"version":3,"brokerid":1}`, err: "version"},
		} {
			t.Run(c.name, func(t *testing.T) {
				got, err := ParseController([]byte(c.data))
				checkErr(t, err, c.err)
				if c.err == "" {
					if d := cmp.Diff(c.want, got); d != "" {
						t.Fatal(d)
					}
				}
			})
		}
		if e, err := ParseControllerEpoch([]byte("12\n")); err != nil || e != 12 {
			t.Errorf("controller epoch = %d, %v", e, err)
		}
		if _, err := ParseControllerEpoch([]byte("x")); err == nil {
			t.Error("controller epoch x: no error")
		}
	})
	t.Run("cluster id", func(t *testing.T) {
		if id, err := ParseClusterID([]byte(`{"version":"1","id":"abc"}`)); err != nil || id != "abc" {
			t.Errorf("got %q, %v", id, err)
		}
		if id, err := ParseClusterID([]byte(`{"version":1,"id":"abc"}`)); err != nil || id != "abc" {
			t.Errorf("numeric version: got %q, %v", id, err)
		}
		checkErr(t, func() error { _, err := ParseClusterID([]byte(`{"version":"1"}`)); return err }(), "no id")
		checkErr(t, func() error { _, err := ParseClusterID([]byte(`{"version":"x","id":"a"}`)); return err }(), "not an integer")
	})
	t.Run("migration", func(t *testing.T) {
		got, err := ParseMigration([]byte(`{"version":0,"kraft_controller_id":3000,"kraft_controller_epoch":5,"kraft_metadata_offset":12345,"kraft_metadata_epoch":5}`))
		checkErr(t, err, "")
		if want := (snapshot.Migration{KRaftControllerID: 3000, KRaftControllerEpoch: 5, KRaftMetadataOffset: 12345, KRaftMetadataEpoch: 5}); got != want {
			t.Errorf("got %+v", got)
		}
		_, err = ParseMigration([]byte(`{"version":0,"kraft_controller_id":1}`))
		checkErr(t, err, "missing")
	})
	t.Run("partition state", func(t *testing.T) {
		got, err := ParsePartitionState([]byte(`{"controller_epoch":7,"leader":1,"version":1,"leader_epoch":12,"isr":[1,2,3],"leader_recovery_state":1}`), 9)
		checkErr(t, err, "")
		want := snapshot.PartitionState{Leader: 1, LeaderEpoch: 12, ISR: []int32{1, 2, 3}, ControllerEpoch: 7, LeaderRecoveryState: 1, PartitionEpoch: 9}
		if d := cmp.Diff(want, got); d != "" {
			t.Error(d)
		}
		_, err = ParsePartitionState([]byte(`{"version":1,"leader":1}`), 0)
		checkErr(t, err, "needs leader")
	})
	t.Run("producer id block", func(t *testing.T) {
		got, err := ParseProducerIDBlock([]byte(`{"version":1,"broker":0,"block_start":"1000","block_end":"1999"}`))
		checkErr(t, err, "")
		if got != (snapshot.ProducerIDBlock{Broker: 0, BlockStart: 1000, BlockEnd: 1999}) {
			t.Errorf("got %+v", got)
		}
		_, err = ParseProducerIDBlock([]byte(`{"version":1,"broker":0,"block_start":"x","block_end":"1"}`))
		checkErr(t, err, "not an integer")
	})
	t.Run("admin", func(t *testing.T) {
		a, err := ParseReassignPartitions([]byte(`{"version":1,"partitions":[{"topic":"t","partition":0,"replicas":[1,2,3]}]}`))
		checkErr(t, err, "")
		if d := cmp.Diff([]snapshot.PartitionAssignment{{Topic: "t", Partition: 0, Replicas: []int32{1, 2, 3}}}, a); d != "" {
			t.Error(d)
		}
		_, err = ParseReassignPartitions([]byte(`{"version":1,"partitions":[{"partition":0}]}`))
		checkErr(t, err, "without topic")
		p, err := ParsePartitionList([]byte(`{"version":1,"partitions":[{"topic":"t","partition":3}]}`))
		checkErr(t, err, "")
		if d := cmp.Diff([]snapshot.TopicPartition{{Topic: "t", Partition: 3}}, p); d != "" {
			t.Error(d)
		}
	})
}

func TestParseDelegationToken(t *testing.T) {
	cases := []struct {
		name, data, err string
		want            snapshot.DelegationToken
	}{
		{name: "v1 requester is owner", data: `{"version":1,"owner":"User%3Aalice","renewers":["User%3Abob","User%3ACN%3Dfoo%2COU%3Dbar"],"issueTimestamp":1,"maxTimestamp":3,"expiryTimestamp":2,"tokenId":"t1"}`,
			want: snapshot.DelegationToken{TokenID: "t1", Owner: "User:alice", Requester: "User:alice", Renewers: []string{"User:bob", "User:CN=foo,OU=bar"}, IssueTimestamp: 1, MaxTimestamp: 3, ExpiryTimestamp: 2}},
		{name: "v3 requester", data: `{"version":3,"owner":"User%3Aalice","tokenRequester":"User%3Acarol","renewers":[],"issueTimestamp":1,"maxTimestamp":3,"expiryTimestamp":2,"tokenId":"t1"}`,
			want: snapshot.DelegationToken{TokenID: "t1", Owner: "User:alice", Requester: "User:carol", IssueTimestamp: 1, MaxTimestamp: 3, ExpiryTimestamp: 2}},
		{name: "id from path", data: `{"version":1,"owner":"User%3Aa","issueTimestamp":1,"maxTimestamp":3,"expiryTimestamp":2}`,
			want: snapshot.DelegationToken{TokenID: "path-id", Owner: "User:a", Requester: "User:a", IssueTimestamp: 1, MaxTimestamp: 3, ExpiryTimestamp: 2}},
		{name: "v2 never written", data: `{"version":2,"owner":"User%3Aa","issueTimestamp":1,"maxTimestamp":3,"expiryTimestamp":2,"tokenId":"t"}`, err: "version",
			want: snapshot.DelegationToken{TokenID: "t", Owner: "User:a", Requester: "User:a", IssueTimestamp: 1, MaxTimestamp: 3, ExpiryTimestamp: 2}},
		{name: "no owner", data: `{"version":3,"issueTimestamp":1,"maxTimestamp":3,"expiryTimestamp":2}`, err: "needs owner"},
		{name: "bad escape", data: `{"version":3,"owner":"User%3","issueTimestamp":1,"maxTimestamp":3,"expiryTimestamp":2}`, err: "URL-encoded"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseDelegationToken("path-id", []byte(c.data))
			checkErr(t, err, c.err)
			if c.err == "" || c.err == "version" {
				if d := cmp.Diff(c.want, got); d != "" {
					t.Fatal(d)
				}
			}
		})
	}
}

func TestParseEntityConfig(t *testing.T) {
	cases := []struct {
		name, data, err string
		want            map[string]string
	}{
		{name: "null data", data: ``, want: map[string]string{}},
		{name: "json null", data: `null`, want: map[string]string{}},
		{name: "values", data: `{"version":1,"config":{"a":"1","b":"x"}}`, want: map[string]string{"a": "1", "b": "x"}},
		{name: "empty config", data: `{"version":1,"config":{}}`, want: map[string]string{}},
		{name: "no config key", data: `{"version":1}`, want: map[string]string{}},
		{name: "escaped value (slow path)", data: `{"version":1,"config":{"a":"x\u00e9\n"}}`, want: map[string]string{"a": "xé\n"}},
		{name: "duplicate key, last wins", data: `{"version":1,"config":{"a":"1","a":"2"}}`, want: map[string]string{"a": "2"}},
		{name: "non-string value", data: `{"version":1,"config":{"a":1}}`, err: `config "a" is not a string`},
		{name: "bad json never echoes values", data: `{"version":1,"config":{"SCRAM-SHA-256":"salt=c2VjcmV0`, err: "bad JSON in config znode"},
		{name: "v2", data: `{"version":2,"config":{}}`, err: "version", want: map[string]string{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseEntityConfig([]byte(c.data))
			checkErr(t, err, c.err)
			if err != nil && strings.Contains(err.Error(), "c2VjcmV0") {
				t.Fatalf("error echoes the value: %v", err)
			}
			if c.err == "" || c.err == "version" {
				if d := cmp.Diff(c.want, got); d != "" {
					t.Fatal(d)
				}
			}
		})
	}
}

func TestParseACLs(t *testing.T) {
	cases := []struct {
		name, data, err string
		want            []snapshot.ACL
	}{
		{name: "pascal case", data: `{"version":1,"acls":[{"principal":"User:alice","permissionType":"Allow","operation":"Read","host":"*"},{"principal":"User:*","permissionType":"Deny","operation":"IdempotentWrite","host":"10.0.0.7"}]}`,
			want: []snapshot.ACL{
				{ResourceType: "Topic", ResourceName: "t", PatternType: "PREFIXED", Principal: "User:alice", Host: "*", Operation: "Read", Permission: "Allow"},
				{ResourceType: "Topic", ResourceName: "t", PatternType: "PREFIXED", Principal: "User:*", Host: "10.0.0.7", Operation: "IdempotentWrite", Permission: "Deny"}}},
		{name: "upper case", data: `{"version":1,"acls":[{"principal":"User:a","permissionType":"ALLOW","operation":"DESCRIBE_CONFIGS","host":"*"},{"principal":"User:a","permissionType":"DENY","operation":"CLUSTER_ACTION","host":"*"}]}`,
			want: []snapshot.ACL{
				{ResourceType: "Topic", ResourceName: "t", PatternType: "PREFIXED", Principal: "User:a", Host: "*", Operation: "DescribeConfigs", Permission: "Allow"},
				{ResourceType: "Topic", ResourceName: "t", PatternType: "PREFIXED", Principal: "User:a", Host: "*", Operation: "ClusterAction", Permission: "Deny"}}},
		{name: "empty list", data: `{"version":1,"acls":[]}`, want: []snapshot.ACL{}},
		{name: "unknown op", data: `{"version":1,"acls":[{"principal":"User:a","permissionType":"Allow","operation":"Fly","host":"*"}]}`, err: "unknown operation"},
		{name: "unknown permission", data: `{"version":1,"acls":[{"principal":"User:a","permissionType":"Maybe","operation":"Read","host":"*"}]}`, err: "unknown permissionType"},
		{name: "bad principal", data: `{"version":1,"acls":[{"principal":"alice","permissionType":"Allow","operation":"Read","host":"*"}]}`, err: "not Type:name"},
		{name: "no host", data: `{"version":1,"acls":[{"principal":"User:a","permissionType":"Allow","operation":"Read"}]}`, err: "no host"},
		{name: "no acls", data: `{"version":1}`, err: "no acls"},
		{name: "v2", data: `{"version":2,"acls":[]}`, err: "version", want: []snapshot.ACL{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseACLs("Topic", "t", PatternPrefixed, []byte(c.data))
			checkErr(t, err, c.err)
			if c.err == "" || c.err == "version" {
				if d := cmp.Diff(c.want, got); d != "" {
					t.Fatal(d)
				}
			}
		})
	}
	for in, want := range map[string]string{"Topic": "Topic", "TRANSACTIONAL_ID": "TransactionalId", "DelegationToken": "DelegationToken", "USER": "User"} {
		if got, ok := CanonicalResourceType(in); !ok || got != want {
			t.Errorf("CanonicalResourceType(%q) = %q, %v", in, got, ok)
		}
	}
	if _, ok := CanonicalResourceType("Bogus"); ok {
		t.Error("Bogus accepted")
	}
}

func TestParseScramCredential(t *testing.T) {
	cases := []struct {
		name, in, err string
		iter          int32
	}{
		{name: "kafka order", in: aliceScram256, iter: 4096},
		{name: "any order", in: aliceScram512, iter: 8192},
		{name: "missing key", in: "salt=YQ==,stored_key=YQ==,iterations=4096", err: "3 keys"},
		{name: "extra key", in: "salt=YQ==,stored_key=YQ==,server_key=YQ==,iterations=4096,x=1", err: "5 keys"},
		{name: "wrong key", in: "salt=YQ==,stored_key=YQ==,serverkey=YQ==,iterations=4096", err: "no server_key"},
		{name: "bad base64", in: "salt=###,stored_key=YQ==,server_key=YQ==,iterations=4096", err: "salt is not base64"},
		{name: "bad iterations", in: "salt=YQ==,stored_key=YQ==,server_key=YQ==,iterations=many", err: "iterations"},
		{name: "no equals", in: "garbage", err: "without '='"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseScramCredential(c.in)
			checkErr(t, err, c.err)
			if err != nil && (strings.Contains(err.Error(), "YQ==") || strings.Contains(err.Error(), "###")) {
				t.Fatalf("error echoes the credential: %v", err)
			}
			if c.err == "" && got.Iterations != c.iter {
				t.Fatalf("iterations = %d, want %d", got.Iterations, c.iter)
			}
		})
	}
	c, _ := ParseScramCredential(aliceScram256)
	if string(c.Salt) != "fixedsalt123" {
		t.Errorf("salt = %q", c.Salt)
	}
}

func TestSanitizer(t *testing.T) {
	cases := []struct{ raw, stored string }{
		{"CN=foo,OU=bar", "CN%3Dfoo%2COU%3Dbar"},
		{"User With Space", "User%20With%20Space"},
		{"<default>", "%3Cdefault%3E"},
		{"x@y.com", "x%40y.com"},
		{"a~b*c", "a%7Eb%2Ac"},
		{"a/b", "a%2Fb"},
		{"é+&", "%C3%A9%2B%26"},
		{"plain-name_1.2", "plain-name_1.2"},
		{"::1", "%3A%3A1"},
	}
	for _, c := range cases {
		if got := Sanitize(c.raw); got != c.stored {
			t.Errorf("Sanitize(%q) = %q, want %q", c.raw, got, c.stored)
		}
		got, err := Desanitize(c.stored)
		if err != nil || got != c.raw {
			t.Errorf("Desanitize(%q) = %q, %v; want %q", c.stored, got, err, c.raw)
		}
	}
	// URLDecoder reads '+' as a space; Sanitizer never writes a raw '+'.
	if got, _ := Desanitize("a+b"); got != "a b" {
		t.Errorf("Desanitize(a+b) = %q", got)
	}
	if _, err := Desanitize("bad%zz"); err == nil {
		t.Error("Desanitize(bad%zz): no error")
	}
}
