package kread

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/catalogue"
	"github.com/zkmigrate/zkmigrate/internal/secret"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// TestSourceFindings names each item a protocol read lacks, and nothing for
// what it does carry.
func TestSourceFindings(t *testing.T) {
	ref := func(r string) *secret.Secret { s := secret.Ref(r); return &s }
	known := func(r string) *secret.Secret { s := secret.New(r, "v"); return &s }
	kraft := []snapshot.Feature{{Name: "metadata.version", MaxLevel: 27, Enabled: true}}
	tests := []struct {
		name string
		s    snapshot.Snapshot
		want []string // id + " " + resource
	}{
		{
			name: "KRaft cluster with nothing uncarried",
			s: snapshot.Snapshot{Features: kraft, Topics: []snapshot.Topic{{Name: "t", Configs: []snapshot.Config{{Key: "retention.ms", Value: "1"}}}},
				BrokerConfigs: []snapshot.BrokerConfig{{Broker: "1", Configs: []snapshot.Config{{Key: "log.cleaner.threads", Value: "2"}}}}},
		},
		{
			name: "ZooKeeper mode (no metadata.version) says pending deletions are invisible",
			s:    snapshot.Snapshot{Address: "h:9092"},
			want: []string{catalogue.IDKReadZooKeeperMode + " source h:9092"},
		},
		{
			name: "each SCRAM user by name",
			s: snapshot.Snapshot{Features: kraft, ScramUsers: []snapshot.ScramUser{
				{Name: "alice", Credentials: []snapshot.ScramCredential{{Mechanism: "SCRAM-SHA-256", Iterations: 8192, Secret: ref("kafka:user/alice#SCRAM-SHA-256")}, {Mechanism: "SCRAM-SHA-512", Iterations: 4096}}},
				{Name: "bob", Credentials: []snapshot.ScramCredential{{Mechanism: "SCRAM-SHA-512", Iterations: 4096}}},
			}},
			want: []string{catalogue.IDKReadScramKeys + " scram-user User:alice", catalogue.IDKReadScramKeys + " scram-user User:bob"},
		},
		{
			name: "each unknown sensitive config, default, broker and topic; known ones not",
			s: snapshot.Snapshot{Features: kraft,
				BrokerConfigs: []snapshot.BrokerConfig{
					{Broker: "", Configs: []snapshot.Config{{Key: "ssl.key.password", Sensitive: true, Secret: ref("kafka:broker/<default>#ssl.key.password")}}},
					{Broker: "2", Configs: []snapshot.Config{{Key: "listener.name.x.ssl.key.password", Sensitive: true, Secret: ref("r")}, {Key: "sasl.jaas.config", Sensitive: true, Secret: known("r")}, {Key: "log.cleaner.threads", Value: "2"}}},
				},
				Topics: []snapshot.Topic{{Name: "t", Configs: []snapshot.Config{{Key: "odd.password", Sensitive: true}}}}},
			want: []string{
				catalogue.IDKReadSensitiveConfig + " broker <default> ssl.key.password",
				catalogue.IDKReadSensitiveConfig + " broker 2 listener.name.x.ssl.key.password",
				catalogue.IDKReadSensitiveConfig + " topic t odd.password",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, f := range SourceFindings(&tt.s) {
				if f.Severity == "" || f.Message == "" || f.Fix == "" {
					t.Errorf("finding %s %s lacks severity, message or fix: %+v", f.ID, f.Resource, f)
				}
				got = append(got, f.ID+" "+f.Resource)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("findings:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestReadKfakeAsSource reads kfake (a KRaft-like cluster) as a source: the
// SCRAM users are named as not carried, errors call the cluster the source,
// and a cluster that does not answer DescribeDelegationToken still reads.
func TestReadKfakeAsSource(t *testing.T) {
	c := newCluster(t)
	conn := dial(t, c, "admin", "admin-secret")
	seed(t, conn.Admin)
	got, err := Read(context.Background(), conn, Options{Now: fixedNow, Source: true})
	if err != nil {
		t.Fatal(err)
	}
	var scram []string
	for _, f := range got.Findings {
		if f.ID == catalogue.IDKReadScramKeys {
			scram = append(scram, f.Resource)
		}
		if f.ID == catalogue.IDKReadZooKeeperMode {
			t.Errorf("kfake finalizes metadata.version, yet the read calls it ZooKeeper mode: %+v", f)
		}
	}
	var want []string
	for _, u := range got.ScramUsers {
		want = append(want, "scram-user User:"+u.Name)
	}
	if len(want) == 0 || !slices.Equal(scram, want) {
		t.Errorf("SCRAM findings %q, want one per user %q", scram, want)
	}

	// A cluster that stopped answering is named as the source.
	c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	_, err = Read(ctx, conn, Options{Source: true, Concurrency: 1})
	if err == nil || !strings.Contains(err.Error(), "source "+strings.Join(conn.Bootstrap, ",")) {
		t.Errorf("read of a closed cluster: %v, want the source named", err)
	}
}
