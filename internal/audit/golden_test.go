package audit

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/secret"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/testkit/golden"
)

// goldenSecrets are secret values goldenPlan holds (sealed or in plain
// text); none may reach the database.
var goldenSecrets = []string{"sealed-topic-pw", "scram-pass-7", "jaas-pw-9", "url-pw-3", "known-leak-1", `jaas "quoted" pw`}

// goldenPlan is a plan that touches every column RecordPlan writes, with
// NULL and non-NULL values, secrets (sealed, in plain text, in JAAS and URL
// text, with quotes), non-ASCII text, floats, and more rows of each table
// than one INSERT statement carries, verdicts and blockers interleaved.
func goldenPlan() *plan.Plan {
	p := &plan.Plan{Format: plan.FormatVersion, Fingerprint: "fp-golden",
		Source:      plan.Endpoint{Kind: "zookeeper", Address: "zk1:2181/kafka", ClusterID: "src-id"},
		Target:      plan.Endpoint{Kind: "kafka", Address: "b1:9092", ClusterID: "dst-id"},
		PolicyNotes: []string{"rule no-tmp matched 3 topics", "note with password=known-leak-1 in it", "ünïcödé note"},
	}
	sealed := secret.New("zookeeper:/config/topics/t#ssl.key.password", "sealed-topic-pw")
	for i := range 150 {
		name := fmt.Sprintf("orders-%03d", i)
		if i%50 == 7 {
			name = fmt.Sprintf("tópico-ſecret-%d", i)
		}
		c := plan.Change{ID: "topic:" + name, Kind: plan.KindTopic, Action: plan.ActionCreate,
			Resource: plan.Resource{Type: "topic", Name: name},
			After: &plan.State{Partitions: int32(1 + i%4), ReplicationFactor: 3,
				Assignment: [][]int32{{1, 2, 3}, {2, 3, 1}},
				Configs: []snapshot.Config{
					{Key: "retention.ms", Value: fmt.Sprint(86400000 + i)},
					{Key: "ssl.key.password", Sensitive: true, Secret: &sealed},
					{Key: "custom.jaas", Value: `x required username="u" password="jaas-pw-9";`},
					{Key: "custom.url", Value: "SASL_SSL://alice:url-pw-3@b1:9093"},
					{Key: "custom.note", Value: "holds known-leak-1 and <html> & \"quotes\""},
				}}}
		if i%3 == 0 {
			c.Verdict = &plan.Verdict{Allowed: true, Rule: "rf-min", Message: "replication factor at least 3"}
		}
		if i%5 == 0 {
			c.Verdict = &plan.Verdict{Allowed: true}
		}
		p.Changes = append(p.Changes, c)
	}
	for i := range 40 {
		name := fmt.Sprintf("orders-%03d", i)
		p.Changes = append(p.Changes, plan.Change{ID: "topic-config:" + name, Kind: plan.KindTopicConfig, Action: plan.ActionUpdate,
			Resource: plan.Resource{Type: "topic", Name: name},
			Before:   &plan.State{Configs: []snapshot.Config{{Key: "retention.ms", Value: "1"}}},
			After:    &plan.State{Configs: []snapshot.Config{{Key: "retention.ms", Value: "2"}, {Key: "sasl.jaas.config", Value: `jaas "quoted" pw`, Sensitive: true}}},
		})
	}
	for i := range 12 {
		p.Changes = append(p.Changes, plan.Change{ID: fmt.Sprintf("quota:user=u%d", i), Kind: plan.KindQuota, Action: plan.ActionUpdate,
			Resource: plan.Resource{Type: "quota", Name: fmt.Sprintf("user=u%d", i)},
			After:    &plan.State{Quota: map[string]float64{"producer_byte_rate": 1024.5 * float64(i+1), "consumer_byte_rate": 1e9}}})
	}
	pw := secret.New("zookeeper:/config/users/alice#password", "scram-pass-7")
	for i := range 9 {
		p.Changes = append(p.Changes, plan.Change{ID: fmt.Sprintf("scram-user:alice%d/SCRAM-SHA-256", i), Kind: plan.KindScramUser, Action: plan.ActionUpdate,
			Resource: plan.Resource{Type: "user", Name: fmt.Sprintf("alice%d", i)},
			After:    &plan.State{Iterations: 4096, Password: &pw}})
	}
	p.Changes = append(p.Changes, plan.Change{ID: "topic:old", Kind: plan.KindTopic, Action: plan.ActionDelete,
		Resource: plan.Resource{Type: "topic", Name: "old"}, Before: &plan.State{Partitions: 1, ReplicationFactor: 1}})
	for i := range 70 {
		b := plan.Blocker{ID: "policy-denied", Kind: plan.KindTopic, Resource: fmt.Sprintf("tmp-%d", i),
			Reason: "policy rule no-tmp denies CREATE"}
		if i%2 == 0 {
			b.Fix = "rename the topic"
			b.Change = &plan.Change{ID: fmt.Sprintf("topic:tmp-%d", i), Kind: plan.KindTopic, Action: plan.ActionCreate,
				Verdict: &plan.Verdict{Allowed: false, Rule: "no-tmp", Message: "tmp topics (password=known-leak-1) are not migrated"}}
		}
		if i%7 == 0 {
			b.Change = &plan.Change{ID: fmt.Sprintf("topic:tmp-%d", i), Kind: plan.KindTopic, Action: plan.ActionCreate}
		}
		p.Blockers = append(p.Blockers, b)
	}
	for i := range 80 {
		f := snapshot.Finding{ID: "topic-id-changes", Severity: snapshot.SeverityInfo, Resource: fmt.Sprintf("orders-%03d", i),
			Message: "the topic id will change"}
		if i%4 == 0 {
			f.Fix = "nothing to do"
			f.Message = "listener SASL_SSL://bob:url-pw-3@h:9093 holds known-leak-1"
		}
		p.Findings = append(p.Findings, f)
	}
	return p
}

// TestRecordedChainGolden records two runs (one left unfinished and closed
// as abandoned by the other, which records snapshots, endpoints, a plan of
// every kind of row, notes and an apply) with a fixed clock, and compares
// the chain head with testdata/golden-chain.txt: every row and every
// column value is what it was when the file was written (the chain head
// hashes them all), however the rows are inserted. No secret is in the
// database file.
func TestRecordedChainGolden(t *testing.T) {
	ctx := context.Background()
	s, path := openTest(t)
	s.pid, s.hostname = 4242, "golden-host"
	a, err := s.BeginRun(ctx, RunInfo{Command: "apply", User: "ops", ToolVersion: "golden",
		Target: Endpoint{Kind: "kafka", Address: "b1:9092", ClusterID: "dst-id"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.RecordSnapshot(ctx, "target", "sha256:dst", map[string]int{"topics": 0}); err != nil {
		t.Fatal(err)
	}
	r, err := s.BeginRun(ctx, RunInfo{Command: "apply", User: "ops", ToolVersion: "golden",
		Args:    []string{"--plan", "p.json", "--sasl-password", "known-leak-1", "--zookeeper", "zk://u:url-pw-3@zk1:2181"},
		Options: map[string]any{"principal": "User:admin", "prune": true, "ssl.key.password": "known-leak-1"},
		Source:  Endpoint{Kind: "zookeeper", Address: "zk1:2181/kafka"},
		Target:  Endpoint{Kind: "kafka", Address: "b1:9092", ClusterID: "dst-id", Principal: "User:admin"}})
	if err != nil {
		t.Fatal(err)
	}
	r.AddSecrets("known-leak-1")
	if err := r.SetEndpoints(ctx, Endpoint{Kind: "zookeeper", Address: "zk1:2181/kafka", ClusterID: "src-id"}, Endpoint{}); err != nil {
		t.Fatal(err)
	}
	if err := r.RecordSnapshot(ctx, "source", "sha256:src", map[string]int{"topics": 150, "acls": 0}); err != nil {
		t.Fatal(err)
	}
	p := goldenPlan()
	if err := r.RecordPlan(ctx, p); err != nil {
		t.Fatal(err)
	}
	if err := r.Note(ctx, "warning", "broker said: password=known-leak-1 rejected"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.AbandonRuns(ctx, []int64{a.ID()}); err != nil {
		t.Fatal(err)
	}
	applyBatches(r.Observer(), p, 7, func(i int) bool { return i%11 == 3 })
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	head, err := r.Finish(ctx, "partial", 3)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Verify(ctx, head)
	if err != nil || !res.OK {
		t.Fatalf("Verify = %+v, %v", res, err)
	}
	var tables []string
	for _, table := range []string{"runs", "run_events", "run_endpoints", "snapshots", "plans", "changes", "verdicts", "blockers", "findings", "rpcs", "rpc_results", "change_events", "run_ends"} {
		n, digest := tableContent(t, s, table)
		tables = append(tables, fmt.Sprintf("%s %d %s", table, n, digest))
	}
	got := fmt.Sprintf("head %s\nrows %d\n%s\n", head, res.Rows, strings.Join(tables, "\n"))
	// A deliberate change of what is recorded (the plan's JSON, a column)
	// changes the head too: only then rerun with -update.
	golden.AssertString(t, filepath.Join("testdata", "golden-chain.txt"), got)
	s.Close()
	for _, f := range []string{path, path + "-wal"} {
		raw, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, sec := range goldenSecrets {
			if bytes.Contains(raw, []byte(sec)) {
				t.Errorf("%s holds the secret %q", filepath.Base(f), sec)
			}
		}
	}
}

// tableContent counts a table's rows and hashes their values in chain
// order, every column but seq and hash: the same rows in another order
// among the tables give the same digests.
func tableContent(t *testing.T, s *Store, table string) (int, string) {
	t.Helper()
	rows, err := s.r.Query(`SELECT * FROM ` + table + ` ORDER BY seq`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	n := 0
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		for i, c := range cols {
			if c == "seq" || c == "hash" {
				continue
			}
			fmt.Fprintf(h, "%s=%T:%v\n", c, vals[i], vals[i])
		}
		h.Write([]byte("--\n"))
		n++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return n, hex.EncodeToString(h.Sum(nil))[:16]
}
