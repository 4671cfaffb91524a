package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/zkmigrate/zkmigrate/internal/demo"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/zkread"
	"github.com/zkmigrate/zkmigrate/internal/zktree"
)

// fixtureSource reads the project's fixture (the demo's legacy cluster,
// captured from a real Kafka 3.9) with its encoder secret, so that the
// broker passwords are decrypted in memory, and adapts it for kfake as the
// demo does.
func fixtureSource(t testing.TB) *snapshot.Snapshot {
	t.Helper()
	tree, err := zktree.Decode(bytes.NewReader(demo.Tree))
	if err != nil {
		t.Fatal(err)
	}
	src, err := zkread.Read(context.Background(), tree, zkread.Options{Address: "fixture", EncoderSecrets: []string{strings.TrimSpace(demo.EncoderSecret)}})
	if err != nil {
		t.Fatal(err)
	}
	demo.AdaptForKfake(src)
	src.Sort()
	return src
}

// fixtureFiles saves the fixture source as a snapshot file (secrets by
// reference) and writes its SCRAM credentials file, in dir.
func fixtureFiles(t testing.TB, dir string) (snap, creds string) {
	t.Helper()
	snap, creds = filepath.Join(dir, "source.json"), filepath.Join(dir, "scram.json")
	if err := snapshot.Save(snap, fixtureSource(t)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(creds, demo.Scram, 0o600); err != nil {
		t.Fatal(err)
	}
	return snap, creds
}

// kfakeTarget starts an in-process Kafka with three brokers and returns its
// bootstrap address and an admin client on it.
func kfakeTarget(t testing.TB, opts ...kfake.Opt) (string, *kadm.Client) {
	t.Helper()
	c, err := kfake.NewCluster(append([]kfake.Opt{kfake.NumBrokers(3), kfake.ClusterID("target-cluster")}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return strings.Join(c.ListenAddrs(), ","), kadm.NewClient(cl)
}
