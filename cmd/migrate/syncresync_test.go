package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/zkmigrate/zkmigrate/internal/testkit/cutproxy"
	"github.com/zkmigrate/zkmigrate/internal/testkit/testbed"
)

// TestSyncExitOnChangeByResync: migrate sync --freeze --exit-on-change
// against the real ZooKeeper, through a proxy the test cuts. Cutting it
// ends the feed's session (its persistent watches are lost), and when it
// is restored the feed reports a resync: sync reads everything again. A
// resync that finds the source as it was at the cut raises no alarm (sync
// runs on, and a stop exits 0, in step); one that finds a change Kafka
// made while sync could not see ZooKeeper (no notification ever reached
// sync: only the resync can find it) ends sync with exit code 3, naming
// the change as after the cut.
func TestSyncExitOnChangeByResync(t *testing.T) {
	b := newBed(t)
	ctx := context.Background()
	source := dialAdmin(t, testbed.SourceBootstrap(t), testbed.SourceClientProps(t))
	prefix := fmt.Sprintf("resync%d", time.Now().UnixNano()%1e7)
	topic := prefix + "-t"
	target := b.admin(t)
	t.Cleanup(func() {
		testbed.DeleteTopicsAndWait(t, source.Admin, syncBound, topic)
		testbed.DeleteTopicsAndWait(t, target.Admin, syncBound, topic)
	})
	_, err := source.Admin.CreateTopic(ctx, 1, 1, map[string]*string{"retention.ms": ptr("7200000")}, topic)
	testbed.Check(t, "create "+topic, err)
	scope := []string{"--topics", "^" + prefix, "--include", "topic,topic-config", "--placement", "target"}
	// The target in step at the cut: what the frozen sync then reports
	// is only what the source changes after it.
	if code, _, errs := b.migrate(t, append(append([]string{"apply", "--zookeeper", b.zk, "--yes"}, scope...), b.targetArgs()...)...); code != 0 {
		t.Fatalf("apply: exit %d\n%s", code, errs)
	}

	zk := cutproxy.New(t, b.zk)
	args := append(append([]string{"sync", "--zookeeper", zk.Addr(), "--freeze", "--exit-on-change", "-o", "json",
		"--status-every", "0", "--reconcile-every", "0"}, scope...), b.targetArgs()...)
	// resync cuts the proxy, does what it is given while sync cannot see
	// ZooKeeper, restores it and returns the resync round.
	resync := func(p *syncProc, meanwhile func()) roundLine {
		t.Helper()
		zk.Cut()
		meanwhile()
		zk.Restore()
		return p.until(t, "the resync round", false, func(l roundLine) bool { return l.Reason == "resync" })
	}

	p := startSync(t, args)
	if l := p.until(t, "the first round", false, func(l roundLine) bool { return l.Reason == "initial" }); !l.Frozen || len(l.Changes) != 0 {
		t.Fatalf("the first round: frozen %v, changes %v; want frozen and in step", l.Frozen, l.Changes)
	}
	if l := resync(p, func() {}); len(l.AfterCut) != 0 || !l.Frozen {
		t.Fatalf("a resync with nothing changed: frozen %v, after the cut %v\n%s", l.Frozen, l.AfterCut, p.output())
	}
	testbed.Check(t, "SIGTERM", p.cmd.Process.Signal(syscall.SIGTERM))
	if err := <-p.exited; err != nil {
		t.Fatalf("sync stopped after a resync that found nothing: %v, want exit 0 (in step)\n%s", err, p.output())
	}

	p = startSync(t, args)
	p.until(t, "the first round", false, func(l roundLine) bool { return l.Reason == "initial" })
	l := resync(p, func() {
		testbed.Check(t, "alter retention.ms", testbed.RetryUnknownTopic(syncBound, func() error {
			r, err := source.Admin.AlterTopicConfigs(ctx, []kadm.AlterConfig{{Name: "retention.ms", Value: ptr("3600000")}}, topic)
			if err == nil {
				err = r[0].Err
			}
			return err
		}))
	})
	if want := "topic-config:" + topic; !slices.Contains(l.AfterCut, want) {
		t.Errorf("the resync round's changes after the cut: %v, want %s", l.AfterCut, want)
	}
	select {
	case err := <-p.exited:
		if err == nil || !strings.Contains(err.Error(), "exit status 3") {
			t.Errorf("sync ended with %v after a resync found a change after the cut, want exit status 3\n%s", err, p.output())
		}
	case <-time.After(syncBound):
		t.Fatalf("sync still runs %s after a resync found a change after the cut (--exit-on-change)\n%s", syncBound, p.output())
	}
	if v := configValue(targetTopic(t, b, topic), "retention.ms"); v != "7200000" {
		t.Errorf("frozen sync changed the target: retention.ms %q", v)
	}
}
