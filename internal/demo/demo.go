// Package demo is `migrate demo`'s use case: the whole flow on embedded
// parts, with no servers. The legacy cluster is a ZooKeeper tree captured
// from a real Kafka 3.9 cluster of the test bed, with its password encoder
// secret and the SCRAM passwords the test bed set (test values, published
// on purpose); the target is an in-process Kafka (franz-go kfake).
package demo

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/zkmigrate/zkmigrate/internal/english"
	"github.com/zkmigrate/zkmigrate/internal/kafkaconn"
	"github.com/zkmigrate/zkmigrate/internal/kread"
	"github.com/zkmigrate/zkmigrate/internal/migration"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/zkread"
	"github.com/zkmigrate/zkmigrate/internal/zktree"
)

// The bundled legacy cluster.
var (
	//go:embed demodata/legacy.json
	Tree []byte // the captured ZooKeeper tree (zktree JSON)
	//go:embed demodata/legacy.encoder-secret
	EncoderSecret string // its password.encoder.secret
	//go:embed demodata/legacy.scram.json
	Scram []byte // its SCRAM users' passwords, as --scram-credentials reads them
)

// Demo is a started demo: the bundled source, read, and the in-process
// target. Close it.
type Demo struct {
	Source *snapshot.Snapshot
	// Notes say what the demo changed for its in-process target, for the
	// text output and the review.
	Notes []string
	// Target is the in-process Kafka's addresses.
	Target  []string
	Brokers int

	cluster *kfake.Cluster
	conn    *kafkaconn.Conn
	creds   []plan.Credential
}

// MaxBrokers is the most brokers the in-process target may have: each is
// a listener and a goroutine set of its own, and the bundled cluster's
// topics need 3.
const MaxBrokers = 32

// Start reads the bundled cluster, leaves out what the in-process Kafka
// cannot hold (AdaptForKfake), and starts that Kafka with brokers brokers.
func Start(ctx context.Context, brokers int) (*Demo, error) {
	if brokers < 1 || brokers > MaxBrokers {
		return nil, fmt.Errorf("%d brokers: the in-process Kafka has 1 to %d", brokers, MaxBrokers)
	}
	tree, err := zktree.Decode(bytes.NewReader(Tree))
	if err != nil {
		return nil, fmt.Errorf("bundled legacy tree: %w", err)
	}
	src, err := zkread.Read(ctx, tree, zkread.Options{Full: true, Address: "bundled Kafka 3.9 capture", EncoderSecrets: []string{strings.TrimSpace(EncoderSecret)}})
	if err != nil {
		return nil, err
	}
	creds, err := migration.ParseCredentials("bundled SCRAM credentials", Scram)
	if err != nil {
		return nil, err
	}
	d := &Demo{Source: src, Notes: AdaptForKfake(src), Brokers: brokers, creds: creds}
	if d.cluster, err = kfake.NewCluster(kfake.NumBrokers(brokers), kfake.ClusterID("zkmigrate-demo")); err != nil {
		return nil, fmt.Errorf("start in-process Kafka: %w", err)
	}
	d.Target = d.cluster.ListenAddrs()
	if d.conn, err = kafkaconn.Dial(ctx, d.Target, kafkaconn.Default()); err != nil {
		d.cluster.Close()
		return nil, err
	}
	d.Notes = append(d.Notes, "demo: --placement target: the in-process Kafka places replicas itself (\"placed by the target\"); a real Kafka target keeps the source's replica lists")
	return d, nil
}

// Plan reads the in-process target and plans the bundled source onto it.
// kfake places replicas itself whatever CreateTopics asks, so the demo lets
// the target place them (a real target keeps the source's replica lists:
// --placement auto). The result shares the demo's connection: do not close
// it, close the demo.
func (d *Demo) Plan(ctx context.Context) (*migration.Planned, error) {
	tgt, err := kread.Read(ctx, d.conn, kread.Options{})
	if err != nil {
		return nil, err
	}
	p, err := migration.BuildPlan(d.Source, tgt, d.creds, plan.Options{Principal: d.conn.Principal, Placement: plan.PlacementTarget}, nil, nil)
	if err != nil {
		return nil, err
	}
	return migration.NewPlanned(p, d.Source, tgt, d.conn, d.creds), nil
}

// Close stops the in-process Kafka.
func (d *Demo) Close() {
	d.conn.Close()
	d.cluster.Close()
}

// AdaptForKfake drops what the in-process Kafka cannot hold (kfake has no
// User or DelegationToken ACL resources, and keeps one config map for all
// brokers) and returns notes saying so.
func AdaptForKfake(s *snapshot.Snapshot) (notes []string) {
	kept := s.ACLs[:0]
	dropped := 0
	for _, a := range s.ACLs {
		if a.ResourceType == "User" || a.ResourceType == "DelegationToken" {
			dropped++
			continue
		}
		kept = append(kept, a)
	}
	s.ACLs = kept
	if dropped > 0 {
		notes = append(notes, fmt.Sprintf("demo: %s on User/DelegationToken resources left out: the in-process Kafka cannot store them", english.N(dropped, "ACL")))
	}
	// kfake keeps one broker config map for all brokers: keep one broker's.
	var kept1 []snapshot.BrokerConfig
	left := 0
	for _, bc := range s.BrokerConfigs {
		if bc.Broker != "" && len(kept1) == 0 {
			kept1 = append(kept1, bc)
			continue
		}
		left++
	}
	if left > 0 {
		notes = append(notes, fmt.Sprintf("demo: dynamic configs of %s (the cluster default and other brokers) left out: the in-process Kafka keeps one config map for all brokers", english.N(left, "broker entry", "broker entries")))
	}
	s.BrokerConfigs = kept1
	return notes
}

// pluralWord is "1 ACL", "3 ACLs", "2 broker entries".
// AuditDirPattern is AuditPath's pattern, for help texts.
var AuditDirPattern = filepath.Join(os.TempDir(), "zkmigrate-demo-UID", "audit-PID.db")

// AuditPath is where a demo run keeps its audit trail by default: a
// database of its own (audit-PID.db) in a directory of the user's own
// (zkmigrate-demo-UID in the temporary directory, mode 0700), so that two
// users, or two demos of one user, never share a database; the path stays
// after the run for the audit commands the demo prints. A directory of
// that name that another user owns, or others may write to, is refused,
// never used.
func AuditPath() (string, error) {
	uid := os.Getuid()
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("zkmigrate-demo-%d", uid))
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return "", fmt.Errorf("demo audit directory %s: %v", dir, err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return "", fmt.Errorf("demo audit directory %s: %v", dir, err)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); !fi.IsDir() || fi.Mode().Perm()&0o022 != 0 || ok && int(st.Uid) != uid {
		return "", fmt.Errorf("demo audit directory %s is not a directory only you can write to; remove it, or give --audit-db PATH", dir)
	}
	return filepath.Join(dir, fmt.Sprintf("audit-%d.db", os.Getpid())), nil
}
