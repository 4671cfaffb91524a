package render_test

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/render"
	"github.com/zkmigrate/zkmigrate/internal/secret"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/syncer"
	"github.com/zkmigrate/zkmigrate/internal/zkfeed"
)

func syncRounds() []syncer.Round {
	t0 := time.Date(2026, 12, 1, 14, 0, 0, 0, time.UTC)
	cfgChange := plan.Change{ID: "topic-config:orders", Kind: plan.KindTopicConfig, Action: plan.ActionUpdate,
		Resource: plan.Resource{Type: "topic", Name: "orders"},
		Before:   &plan.State{Configs: []snapshot.Config{{Key: "cleanup.policy", Value: "delete"}}},
		After:    &plan.State{Configs: []snapshot.Config{{Key: "cleanup.policy", Value: "compact"}}}}
	sec := secret.New("zookeeper:/config/brokers/<default>#ssl.keystore.password", "hunter2-sync")
	pwChange := plan.Change{ID: "broker-config:<default>", Kind: plan.KindBrokerConfig, Action: plan.ActionUpdate,
		Resource: plan.Resource{Type: "broker", Name: ""},
		After:    &plan.State{Configs: []snapshot.Config{{Key: "ssl.keystore.password", Sensitive: true, Secret: &sec}}}}
	return []syncer.Round{
		{N: 1, Reason: syncer.ReasonInitial, Started: t0, Finished: t0.Add(time.Second), Zxid: 0x1a2b, Changes: []plan.Change{cfgChange}, Outcome: syncer.Outcome{Applied: 1}},
		{N: 2, Reason: syncer.ReasonChange, Started: t0, Finished: t0.Add(2 * time.Second), Zxid: 0x1a30, Seen: t0.Add(-10 * time.Millisecond), Lag: 41 * time.Millisecond,
			Phases:   syncer.Phases{ReadSource: 3 * time.Millisecond, ReadTarget: 9500 * time.Microsecond, Plan: time.Millisecond, Apply: 20 * time.Millisecond, Verify: 7 * time.Millisecond},
			Entities: []zkfeed.Entity{{Kind: zkfeed.Topic, Name: "orders"}}, Changes: []plan.Change{cfgChange}, Outcome: syncer.Outcome{Applied: 1}},
		{N: 3, Reason: syncer.ReasonChange, Started: t0, Finished: t0.Add(3 * time.Second), Entities: []zkfeed.Entity{{Kind: zkfeed.Config, Name: "topics/a"}, {Kind: zkfeed.Config, Name: "topics/b"}, {Kind: zkfeed.Config, Name: "topics/c"}, {Kind: zkfeed.Config, Name: "topics/d"}}},
		{N: 4, Reason: syncer.ReasonReconcile, Started: t0, Finished: t0.Add(4 * time.Second), Changes: []plan.Change{cfgChange, pwChange}, Missed: []plan.Change{cfgChange}, Drift: []plan.Change{pwChange}, Outcome: syncer.Outcome{Applied: 1, Failed: 1},
			Access: &syncer.AccessCheck{Verdict: "differences", Causes: 2, Differing: 7, Digest: "sha256:0123"}},
		{N: 5, Reason: syncer.ReasonChange, Started: t0, Finished: t0.Add(5 * time.Second), Frozen: true, Entities: []zkfeed.Entity{{Kind: zkfeed.Topic, Name: "orders"}}, Changes: []plan.Change{cfgChange, pwChange}, AfterCut: []plan.Change{cfgChange}},
		{N: 6, Reason: syncer.ReasonChange, Started: t0, Finished: t0.Add(6 * time.Second), Entities: []zkfeed.Entity{{Kind: zkfeed.Topic, Name: "orders"}}, Changes: []plan.Change{cfgChange, pwChange}, Unsent: []plan.Change{pwChange}, Outcome: syncer.Outcome{Applied: 1, Unsent: []string{pwChange.ID}}},
		{Reason: syncer.ReasonSkipped, Finished: t0.Add(6500 * time.Millisecond), Skipped: []zkfeed.Skipped{{Path: "/config/changes/config_change_0000000003", Err: errors.New("config change notification is not JSON: \x1b[31mjunk")}}},
		{N: 7, Reason: syncer.ReasonResync, Started: t0, Finished: t0.Add(7 * time.Second), Frozen: true, Changes: []plan.Change{pwChange},
			Resyncs: []zkfeed.Event{{Resync: true, Cause: zkfeed.CauseReconnected, Err: errors.New("zkfeed: the ZooKeeper watch session ended (zkwire: connection lost: EOF)")},
				{Resync: true, Cause: zkfeed.CauseUnreadable, Path: "/config/changes/config_change_0000000009", Err: errors.New("deleted before it was read")}}},
		{N: 8, Reason: syncer.ReasonResync, Started: t0, Finished: t0.Add(8 * time.Second), Err: errors.New("reading the target: no answer from 127.0.0.1:29092")},
	}
}

func TestSyncGolden(t *testing.T) {
	var text, js bytes.Buffer
	var st render.SyncStatus
	st.Since = time.Date(2026, 12, 1, 14, 0, 0, 0, time.UTC)
	for _, r := range syncRounds() {
		if err := render.SyncText(&text, r); err != nil {
			t.Fatal(err)
		}
		if err := render.SyncJSON(&js, r); err != nil {
			t.Fatal(err)
		}
		st.Add(r)
	}
	if err := render.SyncStatusText(&text, st.Since.Add(time.Minute), st); err != nil {
		t.Fatal(err)
	}
	if err := render.SyncStatusJSON(&js, st.Since.Add(time.Minute), st); err != nil {
		t.Fatal(err)
	}
	// With the tracker's state: the phase leads, with what is pending.
	st.State = syncer.State{Phase: syncer.Behind, Started: true, Pending: 2, Failed: 1, Oldest: st.Since.Add(50 * time.Second), Names: []string{"topic orders", "topic-config:payments"}}
	if err := render.SyncStatusText(&text, st.Since.Add(time.Minute), st); err != nil {
		t.Fatal(err)
	}
	if err := render.SyncStatusJSON(&js, st.Since.Add(time.Minute), st); err != nil {
		t.Fatal(err)
	}
	st.State = syncer.State{Phase: syncer.InStep, Started: true}
	if err := render.SyncStatusText(&text, st.Since.Add(time.Minute), st); err != nil {
		t.Fatal(err)
	}
	golden(t, filepath.Join("testdata", "sync.txt"), text.String())
	golden(t, filepath.Join("testdata", "sync.jsonl"), js.String())
	for _, out := range []string{text.String(), js.String()} {
		if strings.Contains(out, "hunter2-sync") {
			t.Fatal("a secret value reached the sync output")
		}
		if strings.Contains(out, "\x1b") {
			t.Fatal("a control character from ZooKeeper reached the sync output")
		}
	}
}
