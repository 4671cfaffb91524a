package migration

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/catalogue"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// TestLoadSource: a source read through the use case comes back sorted,
// with the broker config files put in (a saved copy of the same file
// replaced) and their findings; an input it cannot use is an error naming
// it, which a command words as its flag.
func TestLoadSource(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	props := writeFile(t, dir, "server.properties", "broker.id=1\nauthorizer.zookeeper.url=acls:2181\npassword.encoder.secret=s3\n")
	saved := source()
	saved.StaticConfigs = []snapshot.StaticConfig{{File: props, BrokerID: "9"}}
	file := writeSnapshot(t, dir, "source.json", saved)

	s, err := LoadSource(ctx, SourceRequest{SnapshotFile: file, BrokerConfigs: []string{props}})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.StaticConfigs) != 1 || s.StaticConfigs[0].BrokerID != "1" {
		t.Errorf("static configs %+v: want the file read now in place of the saved copy", s.StaticConfigs)
	}
	var ids []string
	for _, f := range s.Findings {
		ids = append(ids, f.ID)
	}
	for _, want := range []string{catalogue.IDACLStoreElsewhere, catalogue.IDEncoderSecretUnused} {
		if !slices.Contains(ids, want) {
			t.Errorf("findings %v lack %s", ids, want)
		}
	}
	if len(s.Topics) != 2 || s.Topics[0].Name != "orders" {
		t.Errorf("topics %+v: want the saved source's, sorted", s.Topics)
	}

	for _, tt := range []struct {
		name  string
		req   SourceRequest
		input Input // "" any error
	}{
		{"no source", SourceRequest{}, ""},
		{"missing broker config", SourceRequest{SnapshotFile: file, BrokerConfigs: []string{filepath.Join(dir, "none.properties")}}, ""},
		{"missing data dir", SourceRequest{DataDir: &DataDirSource{Dir: filepath.Join(dir, "none")}}, InputZKDataDir},
		{"no timeout", SourceRequest{ZooKeeper: &ZooKeeperSource{Connect: "127.0.0.1:1"}}, InputZKTimeout},
		{"missing source command config", SourceRequest{Kafka: &KafkaSource{Bootstrap: []string{"127.0.0.1:1"}, CommandConfig: filepath.Join(dir, "none.properties")}}, InputSourceCommandConfig},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := LoadSource(ctx, tt.req)
			var ie *InputError
			switch {
			case err == nil:
				t.Fatal("LoadSource succeeded")
			case tt.input != "" && (!errors.As(err, &ie) || ie.Input != tt.input):
				t.Errorf("LoadSource = %v, want an InputError blaming %q", err, tt.input)
			}
		})
	}
}

// TestLoadSourceNotKafka: a data directory whose tree holds no Kafka
// metadata under the chroot given is a NoKafkaError blaming the chroot.
func TestLoadSourceNotKafka(t *testing.T) {
	_, err := LoadSource(context.Background(), SourceRequest{DataDir: &DataDirSource{Dir: zkDataFixture, Chroot: "/zookeeper/quota"}})
	var nk *NoKafkaError
	if !errors.As(err, &nk) || nk.Chroot != InputZKChroot {
		t.Fatalf("LoadSource = %v, want a NoKafkaError blaming the chroot", err)
	}
	if got := nk.Text("--zk-chroot"); !strings.HasSuffix(got, "; wrong --zk-chroot?") {
		t.Errorf("Text(--zk-chroot) = %q", got)
	}
}
