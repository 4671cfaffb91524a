package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/zkmigrate/zkmigrate/internal/catalogue"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/termsafe"
)

// The names of the terminal-safety fixture: what a cluster may hold. The
// user is what ZooKeeper's /config/users/ev%1B%5B2J%1B%5B31mil decodes to
// (clear the screen, turn it red); the others carry BEL, CR, backspace,
// an OSC title sequence and bidi overrides.
const (
	evilUser   = "ev\x1b[2J\x1b[31mil"
	evilTopic  = "orders\x1b[2J\a\r\b\u202eevil"
	evilClient = "cli\aent\r\u2066x"
	evilHost   = "10.0.0.1\x1b[1m"
	evilValue  = "producer\x1b]0;pwned\a"
)

// evilSnapshot is a source whose every name kind carries control
// characters: a topic's config value, an ACL (its resource name, principal
// and host), a client quota entity, a SCRAM user (a blocker: no password)
// and a reader finding on a topic's znode (a topic name Kafka forbids is
// refused by the readers, which name it in the finding).
func evilSnapshot() *snapshot.Snapshot {
	return &snapshot.Snapshot{Format: snapshot.FormatVersion, Source: snapshot.SourceZooKeeper, Address: "zk1:2181", ClusterID: "evil-source",
		Brokers: []snapshot.Broker{{ID: 1}},
		Topics: []snapshot.Topic{{Name: "orders", ID: "Wm4s3qv8RHSv0DVk2nJtYA", Partitions: []snapshot.Partition{{ID: 0, Replicas: []int32{1}}},
			Configs: []snapshot.Config{{Key: "compression.type", Value: evilValue}}}},
		ACLs: []snapshot.ACL{{ResourceType: "Topic", ResourceName: evilTopic, PatternType: "LITERAL", Principal: "User:" + evilUser + "\u202e",
			Host: evilHost, Operation: "Read", Permission: "Allow"}},
		Quotas: []snapshot.Quota{{Entity: snapshot.QuotaEntity{{Type: snapshot.EntityUser, Name: evilUser}, {Type: snapshot.EntityClientID, Name: evilClient}},
			Values: map[string]float64{"producer_byte_rate": 1024}}},
		ScramUsers: []snapshot.ScramUser{{Name: evilUser, Credentials: []snapshot.ScramCredential{{Mechanism: "SCRAM-SHA-256", Iterations: 4096}}}},
		Findings: []snapshot.Finding{{ID: catalogue.IDZnodeMalformed, Severity: snapshot.SeverityWarning, Resource: "/config/topics/" + evilTopic,
			Message: "config of " + evilTopic + " is not JSON"}},
	}
}

// unsafeBytes are what must never reach the terminal from a name.
var unsafeBytes = []string{"\x1b", "\a", "\r", "\b", "\u202e", "\u2066"}

// assertTerminalSafe fails when out holds an unsafe byte, or lacks the
// escaped form of the names (which would mean they were dropped, not
// shown).
func assertTerminalSafe(t *testing.T, what, out string, shows ...string) {
	t.Helper()
	for _, b := range unsafeBytes {
		if i := strings.Index(out, b); i >= 0 {
			t.Errorf("%s: %q reaches the terminal: …%q…", what, b, out[max(i-40, 0):min(i+40, len(out))])
		}
	}
	for _, s := range shows {
		if !strings.Contains(out, s) {
			t.Errorf("%s: the output does not show %q:\n%s", what, s, out)
		}
	}
}

// TestTextOutputIsTerminalSafe migrates the evil fixture into an in-process
// Kafka and back out (sync from it to another): snapshot, check (text and
// Markdown), plan, apply, audit log and show, and sync print every name
// with its control characters escaped, on stdout and stderr alike, while
// -o json keeps the names exact.
func TestTextOutputIsTerminalSafe(t *testing.T) {
	dir := t.TempDir()
	snap := filepath.Join(dir, "evil.json")
	if err := snapshot.Save(snap, evilSnapshot()); err != nil {
		t.Fatal(err)
	}
	target, _ := kfakeTarget(t)
	db := filepath.Join(dir, "audit.db")
	escTopic, escUser := `\x1b[2J\a\r\b\u202eevil`, `ev\x1b[2J\x1b[31mil`
	runs := []struct {
		args  []string
		shows []string
	}{
		{[]string{"snapshot", "--snapshot", snap}, nil},
		{[]string{"check", "--snapshot", snap}, []string{escTopic, escUser}},
		{[]string{"check", "--snapshot", snap, "-o", "markdown"}, []string{escTopic}},
		{[]string{"plan", "--snapshot", snap, "--bootstrap-server", target, "--detail", "--no-audit"},
			[]string{escTopic, escUser, `\a`, `\x1b]0;pwned`, `10.0.0.1\x1b[1m`}},
		{[]string{"apply", "--snapshot", snap, "--bootstrap-server", target, "--yes", "--audit-db", db, "--verify-timeout", "5s"}, []string{escTopic}},
		{[]string{"audit", "log", "--audit-db", db}, nil},
		{[]string{"audit", "show", "1", "--audit-db", db}, []string{escTopic}},
	}
	for _, r := range runs {
		_, out, stderr := runMigrate(t, r.args...)
		assertTerminalSafe(t, strings.Join(r.args[:2], " ")+" stdout", out, r.shows...)
		assertTerminalSafe(t, strings.Join(r.args[:2], " ")+" stderr", stderr)
	}

	// -o json stays JSON, with the names exactly as they are.
	code, out, stderr := runMigrate(t, "plan", "--snapshot", snap, "--bootstrap-server", target, "--no-audit", "-o", "json")
	if code != exitOK && code != exitPending {
		t.Fatalf("plan -o json: exit %d: %s", code, stderr)
	}
	var p struct {
		Blockers []struct{ Resource string } `json:"blockers"`
	}
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatalf("plan -o json is not JSON after the barrier: %v", err)
	}
	if !strings.Contains(out, `\u001b[2J`) || bytes.ContainsAny([]byte(out), "\x1b\a\b") {
		t.Errorf("plan -o json: control characters not JSON-escaped")
	}
	found := false
	for _, b := range p.Blockers {
		found = found || strings.Contains(b.Resource, evilUser)
	}
	if !found {
		t.Errorf("plan -o json lost the exact user name %q: %+v", evilUser, p.Blockers)
	}

	// sync from the target the apply filled (read through its brokers) to
	// another, whose topic config is then edited: the reconciliation names
	// the drift, the evil value with it.
	other, otherAdm := kfakeTarget(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var outb, errb lockedBuffer
	done := make(chan struct{})
	go func() {
		defer close(done)
		run(ctx, []string{"sync", "--source-bootstrap-server", target, "--bootstrap-server", other, "--yes", "--no-audit",
			"--poll-every", "1s", "--status-every", "0", "--reconcile-every", "2s", "--verify-timeout", "5s"}, strings.NewReader(""), &outb, &errb, false)
	}()
	waitFor := func(what string) bool {
		deadline := time.Now().Add(60 * time.Second)
		for !strings.Contains(outb.String(), what) && time.Now().Before(deadline) {
			time.Sleep(100 * time.Millisecond)
		}
		return strings.Contains(outb.String(), what)
	}
	if waitFor("initial") {
		if _, err := otherAdm.AlterTopicConfigs(ctx, []kadm.AlterConfig{{Op: kadm.SetConfig, Name: "compression.type", Value: kadm.StringPtr("gzip")}}, "orders"); err != nil {
			t.Fatal(err)
		}
		waitFor("drift")
	}
	cancel()
	<-done
	if !strings.Contains(outb.String(), "drift") {
		t.Fatalf("sync reported no drift:\n%s\n%s", outb.String(), errb.String())
	}
	assertTerminalSafe(t, "sync stdout", outb.String(), `\x1b]0;pwned\a`)
	assertTerminalSafe(t, "sync stderr", errb.String())
}

// lockedBuffer is a bytes.Buffer a command writes to while the test reads.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// The TUI gets the terminal's own file from under the barrier: behind any
// other writer it cannot learn the window's size, and draws nothing (the
// demo showed an empty screen until Ctrl-C). Progress still goes through a
// writer that flushes the barrier first.
func TestTUIWritesToTheTerminalFile(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "tty")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	barrier := termsafe.NewWriter(f)
	e := &env{stdin: strings.NewReader(""), stdout: barrier, stderr: barrier, tty: true}
	if got := tuiOptions(e).Output; got != io.Writer(f) {
		t.Fatalf("TUI output is %T, want the terminal's *os.File", got)
	}
	if got := trusted(e.stderr); got == io.Writer(f) {
		t.Fatalf("progress output skips the barrier's flush")
	}
}
