package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/kafkaconn"
	"github.com/zkmigrate/zkmigrate/internal/testkit/testbed"
)

// TestSyncPollAdminSource: sync from the 3.9 source read through its
// brokers (--source-bootstrap-server, no change feed) says it polls, and a
// topic created through the source's admin API arrives on the 4.1 target
// in a "poll" round; stopped in step, it exits 0.
func TestSyncPollAdminSource(t *testing.T) {
	dir := t.TempDir()
	b := &bed{target: testbed.TargetBootstrap(t), targetProps: testbed.TargetClientProps(t), dir: dir, auditDB: filepath.Join(dir, "audit.db")}
	srcBootstrap, srcProps := testbed.SourceBootstrap(t), testbed.SourceClientProps(t)
	srcCfg, err := kafkaconn.Load(srcProps)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	source, err := kafkaconn.Dial(ctx, []string{srcBootstrap}, srcCfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(source.Close)
	topic := fmt.Sprintf("poll%d-orders", time.Now().UnixNano()%1000000)
	target := b.admin(t)
	t.Cleanup(func() { // before the connections close, which Cleanup runs after this
		testbed.DeleteTopicsAndWait(t, source.Admin, syncBound, topic)
		testbed.DeleteTopicsAndWait(t, target.Admin, syncBound, topic)
	})
	args := append([]string{"sync", "--source-bootstrap-server", srcBootstrap, "--source-command-config", srcProps, "--poll-every", "1s",
		"--topics", "^" + topic + "$", "--include", "topic,partitions,topic-config", "--yes", "-o", "json", "--status-every", "0", "--reconcile-every", "0"}, b.targetArgs()...)
	p := startSync(t, args)
	p.until(t, "the first round", false, func(l roundLine) bool { return l.Reason == "initial" })
	if want := "every 1s: a source read through the admin protocol has no change feed"; !strings.Contains(p.output(), want) {
		t.Fatalf("sync did not say it polls (%q):\n%s", want, p.output())
	}

	if _, err := source.Admin.CreateTopic(ctx, 2, 2, map[string]*string{"retention.ms": ptr("7200000")}, topic); err != nil {
		t.Fatalf("create topic on the source: %v", err)
	}
	l := p.untilWithin(t, "the topic in a poll round", 30*time.Second, false, func(l roundLine) bool { return hasChange(l, "topic:"+topic) && l.Applied > 0 })
	if l.Reason != "poll" || len(l.Missed) != 0 {
		t.Fatalf("the topic arrived in a %q round with %d missed; want a poll round, none missed:\n%s", l.Reason, len(l.Missed), p.output())
	}
	if got := targetTopic(t, b, topic); got == nil || len(got.Partitions) != 2 || configValue(got, "retention.ms") != "7200000" {
		t.Fatalf("target topic after the poll: %+v", got)
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-p.exited:
		if err != nil {
			t.Fatalf("sync stopped in step: %v, want exit 0\n%s", err, p.output())
		}
	case <-time.After(syncBound):
		t.Fatalf("sync did not stop after SIGTERM\n%s", p.output())
	}
}
