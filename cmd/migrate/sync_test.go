package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/zkmigrate/zkmigrate/internal/kafkaconn"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/testkit/testbed"
)

// syncBound is how long the test waits for one round: a hang bound, not a
// speed claim.
const syncBound = 60 * time.Second

// roundLine is the part of a sync -o json line the test reads.
type roundLine struct {
	Event    string    `json:"event"`
	Round    int       `json:"round"`
	Reason   string    `json:"reason"`
	Entities []string  `json:"entities"`
	Zxid     int64     `json:"zxid"`
	Frozen   bool      `json:"frozen"`
	Started  time.Time `json:"started"`
	Finished time.Time `json:"finished"`
	LagMS    float64   `json:"lag_ms"`
	Seen     time.Time `json:"seen"`
	Changes  []struct {
		ID string `json:"id"`
	} `json:"changes"`
	AfterCut []string              `json:"after_cut"`
	Missed   []struct{ ID string } `json:"missed"`
	Drift    []struct{ ID string } `json:"drift"`
	Applied  int                   `json:"applied"`
	Failed   int                   `json:"failed"`
	Error    string                `json:"error"`
}

// syncProc is a migrate sync running as a child process, its JSON lines
// decoded as they come.
type syncProc struct {
	cmd    *exec.Cmd
	lines  chan roundLine
	mu     sync.Mutex
	out    bytes.Buffer // everything it wrote, for the secrets search and failures
	exited chan error
}

func startSync(t testing.TB, args []string) *syncProc {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
	argv, _ := json.Marshal(args)
	cmd.Env = append(os.Environ(), "ZKM_HELPER_ARGS="+string(argv))
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &syncProc{cmd: cmd, lines: make(chan roundLine, 64), exited: make(chan error, 1)}
	cmd.Stderr = &lockedWriter{p: p}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
			p.mu.Lock()
			p.out.Write(sc.Bytes())
			p.out.WriteByte('\n')
			p.mu.Unlock()
			var l roundLine
			if json.Unmarshal(sc.Bytes(), &l) == nil && l.Event == "round" {
				p.lines <- l
			}
		}
		p.exited <- cmd.Wait()
	}()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	return p
}

type lockedWriter struct{ p *syncProc }

func (w *lockedWriter) Write(b []byte) (int, error) {
	w.p.mu.Lock()
	defer w.p.mu.Unlock()
	return w.p.out.Write(b)
}

func (p *syncProc) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

// until waits for a round that satisfies ok, failing on a round with an
// error unless allowErr.
func (p *syncProc) until(t *testing.T, what string, allowErr bool, ok func(roundLine) bool) roundLine {
	t.Helper()
	return p.untilWithin(t, what, syncBound, allowErr, ok)
}

func (p *syncProc) untilWithin(t *testing.T, what string, bound time.Duration, allowErr bool, ok func(roundLine) bool) roundLine {
	t.Helper()
	deadline := time.After(bound)
	for {
		select {
		case l := <-p.lines:
			if l.Error != "" && !allowErr {
				t.Fatalf("%s: round %d (%s) failed: %s\n%s", what, l.Round, l.Reason, l.Error, p.output())
			}
			if ok(l) {
				return l
			}
		case err := <-p.exited:
			t.Fatalf("%s: sync exited (%v)\n%s", what, err, p.output())
		case <-deadline:
			t.Fatalf("%s: no such round within %s\n%s", what, bound, p.output())
		}
	}
}

func hasChange(l roundLine, id string) bool {
	return slices.ContainsFunc(l.Changes, func(c struct {
		ID string `json:"id"`
	}) bool {
		return c.ID == id
	})
}

// TestSyncRealKafka runs migrate sync against the 3.9 source's ZooKeeper
// and the two-node 4.1 target while Kafka's own admin API changes the
// source: each change reaches the target; a target restart is ridden out
// by retries; after SIGKILL a new sync catches up with what changed
// meanwhile and closes the killed session as abandoned; SIGUSR1 freezes
// it, after which a source change is reported and not applied. The audit
// trail holds every applied round with its zxid.
func TestSyncRealKafka(t *testing.T) {
	dir := t.TempDir()
	b := &bed{zk: testbed.ZK(t), target: testbed.TargetBootstrap(t), targetProps: testbed.TargetClientProps(t), dir: dir, auditDB: filepath.Join(dir, "audit.db")}
	srcCfg, err := kafkaconn.Load(testbed.SourceClientProps(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	source, err := kafkaconn.Dial(ctx, []string{testbed.SourceBootstrap(t)}, srcCfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(source.Close)
	prefix := fmt.Sprintf("sync%d", time.Now().Unix()%100000)
	topic, user := prefix+"-orders", prefix+"-app"
	target := b.admin(t)
	t.Cleanup(func() { // before the connections close, which Cleanup runs after this
		acl := kadm.NewACLs().Topics(topic).ResourcePatternType(kadm.ACLPatternLiteral).Allow("User:" + user).AllowHosts().Operations(kadm.OpRead)
		testbed.DeleteACLs(t, source.Admin, acl)
		testbed.DeleteACLs(t, target.Admin, acl)
		testbed.DeleteTopicsAndWait(t, source.Admin, syncBound, topic, topic+"-late", topic+"-outage")
		testbed.DeleteTopicsAndWait(t, target.Admin, syncBound, topic, topic+"-late", topic+"-outage")
	})
	args := append([]string{"sync", "--zookeeper", b.zk, "--topics", "^" + prefix, "--principals", "^User:" + prefix,
		"--include", "topic,partitions,topic-config,acl", "--yes", "-o", "json", "--status-every", "0", "--reconcile-every", "0"}, b.targetArgs()...)
	p := startSync(t, args)
	p.until(t, "the first round", false, func(l roundLine) bool { return l.Reason == "initial" })

	must := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	// A topic created with a config, then its config changed, a partition
	// added and an ACL granted, each through the source's brokers.
	_, err = source.Admin.CreateTopic(ctx, 2, 2, map[string]*string{"retention.ms": ptr("7200000")}, topic)
	must("create topic", err)
	p.until(t, "the topic", false, func(l roundLine) bool { return hasChange(l, "topic:"+topic) && l.Applied > 0 && l.Zxid > 0 })
	must("alter config", testbed.RetryUnknownTopic(syncBound, func() error {
		r, err := source.Admin.AlterTopicConfigs(ctx, []kadm.AlterConfig{{Name: "cleanup.policy", Value: ptr("compact")}}, topic)
		if err == nil {
			err = r[0].Err
		}
		return err
	}))
	p.until(t, "the config", false, func(l roundLine) bool { return hasChange(l, "topic-config:"+topic) && l.Applied > 0 })
	cp, err := source.Admin.CreatePartitions(ctx, 1, topic)
	must("add a partition", errorsJoin(err, cp.Error()))
	p.until(t, "the partition", false, func(l roundLine) bool { return hasChange(l, "partitions:"+topic) && l.Applied > 0 })
	acl, err := source.Admin.CreateACLs(ctx, kadm.NewACLs().Topics(topic).ResourcePatternType(kadm.ACLPatternLiteral).Allow("User:"+user).AllowHosts().Operations(kadm.OpRead))
	must("create ACL", errorsJoin(err, acl[0].Err))
	p.until(t, "the ACL", false, func(l roundLine) bool {
		return len(l.Changes) > 0 && strings.HasPrefix(l.Changes[0].ID, "acl:") && l.Applied > 0
	})

	// The target's controller crashes while the source changes: rounds
	// fail, are retried in full, and catch up once it is back.
	testbed.KillTarget(t)
	outage := topic + "-outage"
	_, err = source.Admin.CreateTopic(ctx, 1, 2, nil, outage)
	must("create topic during the outage", err)
	p.untilWithin(t, "a round failing while the target is down", 3*syncBound, true, func(l roundLine) bool { return l.Error != "" })
	testbed.StartTarget(t)
	p.untilWithin(t, "the catch-up after the outage", 3*syncBound, true, func(l roundLine) bool {
		return hasChange(l, "topic:"+outage) && l.Applied > 0 && l.Failed == 0 && l.Error == ""
	})

	got := targetTopic(t, b, topic)
	if got == nil || len(got.Partitions) != 3 || configValue(got, "cleanup.policy") != "compact" || configValue(got, "retention.ms") != "7200000" {
		t.Fatalf("target topic after sync: %+v", got)
	}

	// SIGKILL, a change meanwhile, a new sync: it catches up in its first
	// round and closes the killed session as abandoned.
	must("kill sync", p.cmd.Process.Signal(syscall.SIGKILL))
	<-p.exited
	late := topic + "-late"
	_, err = source.Admin.CreateTopic(ctx, 1, 2, nil, late)
	must("create topic while sync is down", err)
	p = startSync(t, args)
	p.until(t, "catching up after the kill", false, func(l roundLine) bool { return l.Reason == "initial" && hasChange(l, "topic:"+late) && l.Applied > 0 })
	if !strings.Contains(p.output(), "closed as abandoned") {
		t.Errorf("the killed sync session was not closed as abandoned:\n%s", p.output())
	}

	// Frozen: a change on the source is reported with what changed, not applied.
	must("SIGUSR1", p.cmd.Process.Signal(syscall.SIGUSR1))
	time.Sleep(200 * time.Millisecond) // the signal reaches the process before the change
	must("alter config while frozen", testbed.RetryUnknownTopic(syncBound, func() error {
		r, err := source.Admin.AlterTopicConfigs(ctx, []kadm.AlterConfig{{Name: "retention.ms", Value: ptr("60000")}}, topic)
		if err == nil {
			err = r[0].Err
		}
		return err
	}))
	l := p.until(t, "the frozen report", false, func(l roundLine) bool { return l.Frozen && hasChange(l, "topic-config:"+topic) })
	if l.Applied != 0 {
		t.Fatalf("a frozen round applied %d change(s)", l.Applied)
	}
	if v := configValue(targetTopic(t, b, topic), "retention.ms"); v != "7200000" {
		t.Fatalf("frozen sync changed the target: retention.ms %q", v)
	}
	must("stop sync", p.cmd.Process.Signal(syscall.SIGTERM))
	if err := <-p.exited; err == nil || !strings.Contains(err.Error(), "exit status 3") {
		// Stopped with a source change not applied (frozen): 3, never 0.
		t.Errorf("sync stopped frozen with a change pending: %v, want exit status 3", err)
	}

	// The audit trail: every applied round is a run with its zxid.
	code, out, _ := b.migrate(t, "audit", "log", "--audit-db", b.auditDB)
	if code != 0 || strings.Count(out, "sync-round") < 5 {
		t.Fatalf("audit log (exit %d) lists too few sync rounds:\n%s", code, out)
	}
	code, out, _ = b.migrate(t, "audit", "verify", "--audit-db", b.auditDB)
	if code != 0 {
		t.Fatalf("audit verify: exit %d\n%s", code, out)
	}
	db, err := os.ReadFile(b.auditDB)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(db, []byte("zxid 0x")) {
		t.Error("no round note with a zxid in the audit database")
	}
}

func errorsJoin(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

func targetTopic(t *testing.T, b *bed, name string) *snapshot.Topic {
	t.Helper()
	s := b.readTarget(t)
	for i := range s.Topics {
		if s.Topics[i].Name == name {
			return &s.Topics[i]
		}
	}
	return nil
}

func configValue(tp *snapshot.Topic, key string) string {
	if tp == nil {
		return ""
	}
	for _, c := range tp.Configs {
		if c.Key == key {
			return c.Value
		}
	}
	return ""
}
func ptr(s string) *string { return &s }

// TestSyncSecretsNeverLeak runs sync frozen over the whole legacy state
// (encrypted broker passwords decrypted with the encoder secret, SCRAM
// users with their passwords from --scram-credentials), so its first round
// shows every difference field by field, in text and in JSON; no secret
// may appear in either, nor in the audit database.
func TestSyncSecretsNeverLeak(t *testing.T) {
	b := newBed(t)
	var creds []struct{ User, Mechanism, Password string }
	if err := json.Unmarshal([]byte(readFile(t, b.creds)), &creds); err != nil {
		t.Fatal(err)
	}
	secrets := []string{"kp-secret-1", strings.TrimSpace(readFile(t, b.encoderSecret))}
	for _, c := range creds {
		secrets = append(secrets, c.Password)
	}
	var outputs []string
	for _, format := range []string{"text", "json"} {
		args := append(append([]string{"sync", "--freeze", "-o", format, "--status-every", "0", "--reconcile-every", "0",
			"--scram-credentials", b.creds, "--resend-secrets"}, b.sourceArgs()...), b.targetArgs()...)
		p := startSync(t, args)
		deadline := time.Now().Add(syncBound)
		for !strings.Contains(p.output(), "round 1") && !strings.Contains(p.output(), `"round":1`) && time.Now().Before(deadline) {
			time.Sleep(100 * time.Millisecond)
		}
		if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		<-p.exited
		out := p.output()
		if !strings.Contains(out, "broker-config") || !strings.Contains(out, "(secret") && format == "text" {
			t.Fatalf("sync -o %s did not show the broker-config differences it should (the search would prove nothing):\n%s", format, out)
		}
		outputs = append(outputs, out)
	}
	dbFiles, plans := auditDBContents(t, b.auditDB)
	for _, raw := range dbFiles {
		outputs = append(outputs, string(raw))
	}
	for _, pj := range plans {
		outputs = append(outputs, string(pj))
	}
	for i, o := range outputs {
		for _, s := range secrets {
			if s != "" && strings.Contains(o, s) {
				t.Errorf("output %d contains the secret %q", i, s)
			}
		}
	}
}
