package audit

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/apply"
	"github.com/zkmigrate/zkmigrate/internal/plan"
)

const (
	killChildEnv = "ZKM_AUDIT_KILL_CHILD_DB"
	killTarget   = "kill-target-cluster"
)

// TestKillChild is the child process of TestKill9MidApply: it records an
// apply run batch after batch, forever, until it is killed. It does
// nothing when run normally.
func TestKillChild(t *testing.T) {
	path := os.Getenv(killChildEnv)
	if path == "" {
		t.Skip("child process of TestKill9MidApply")
	}
	ctx := context.Background()
	s, err := Open(ctx, path)
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	r, err := s.BeginRun(ctx, RunInfo{Command: "apply", Target: Endpoint{Kind: "kafka", Address: "b1:9092", ClusterID: killTarget}})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	if _, err := s.AcquireTargetLock(ctx, killTarget, r.ID()); err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	p := testPlan(5000)
	if err := r.RecordPlan(ctx, p); err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	fmt.Printf("run %d\n", r.ID())
	o := r.Observer()
	o.Observe(apply.RunStarted{Plan: p, Total: len(p.Changes)})
	for batch, i := 1, 0; ; batch, i = batch+1, (i+10)%len(p.Changes) {
		cs := make([]*plan.Change, 0, 10)
		for j := i; j < i+10; j++ {
			cs = append(cs, &p.Changes[j])
		}
		o.Observe(apply.BatchSent{Batch: batch, RPC: apply.RPCCreateTopics, Version: -1, Broker: -1, Changes: cs})
		fmt.Printf("sent %d\n", batch)
		o.Observe(apply.BatchDone{Batch: batch, RPC: apply.RPCCreateTopics, Version: 7, Broker: 1, Duration: time.Millisecond})
		for _, c := range cs {
			o.Observe(apply.ResourceResult{Change: c})
		}
		if err := r.Err(); err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
	}
}

// TestKill9MidApply kills a process recording an apply with SIGKILL in the
// middle of its batches, then checks that the database opens and verifies,
// that the killed run is found as incomplete, and that a new run takes the
// lock over and records that it resumes the killed one.
func TestKill9MidApply(t *testing.T) {
	if testing.Short() {
		t.Skip("re-executes the test binary")
	}
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "audit.db")
	// One finished run first, so that the chain crosses runs.
	s0, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	_, receipt := recordRun(t, s0, 3)
	s0.Close()

	cmd := exec.Command(os.Args[0], "-test.run=^TestKillChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), killChildEnv+"="+path)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var childRun int64
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "error") {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("child: %s", line)
		}
		fmt.Sscanf(line, "run %d", &childRun)
		var n int
		if _, err := fmt.Sscanf(line, "sent %d", &n); err == nil && n >= 200 {
			break
		}
	}
	// Kill while the child is writing its next batches.
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if childRun == 0 {
		t.Fatal("the child never reported its run id")
	}

	s, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("Open after kill -9: %v", err)
	}
	defer s.Close()
	res, err := s.Verify(ctx, receipt)
	if err != nil || !res.OK {
		t.Fatalf("Verify after kill -9 = %+v, broken %v, %v; want intact with the earlier receipt", res, res.Broken, err)
	}
	inc, err := s.IncompleteRuns(ctx, killTarget)
	if err != nil {
		t.Fatal(err)
	}
	if len(inc) != 1 || inc[0].ID != childRun {
		t.Fatalf("IncompleteRuns = %+v; want the killed run %d", inc, childRun)
	}
	// Every RPC whose intent is recorded carried "sent" transitions for its
	// changes in the same transaction; at least 200 were committed.
	rpcs, err := s.RPCs(ctx, childRun)
	if err != nil {
		t.Fatal(err)
	}
	if len(rpcs) < 200 {
		t.Fatalf("killed run has %d RPCs recorded; the child reported 200 sent", len(rpcs))
	}
	changes, err := s.Changes(ctx, childRun, ChangeFilter{Status: "sent"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range changes {
		if c.Batch < rpcs[len(rpcs)-2].Batch {
			t.Errorf("change %s still 'sent' from batch %d, but batch %d's outcome was committed", c.ChangeID, c.Batch, rpcs[len(rpcs)-2].Batch)
			break
		}
	}

	// The next apply: the dead holder's lock is reclaimed, the run resumes.
	next := beginApply(t, s, killTarget)
	release, err := s.AcquireTargetLock(ctx, killTarget, next.ID())
	if err != nil {
		t.Fatalf("AcquireTargetLock after kill -9: %v", err)
	}
	defer release()
	if err := next.MarkResumes(ctx, childRun); err != nil {
		t.Fatal(err)
	}
	head, err := next.Finish(ctx, "succeeded", 0)
	if err != nil {
		t.Fatal(err)
	}
	if inc, err := s.IncompleteRuns(ctx, killTarget); err != nil || len(inc) != 0 {
		t.Errorf("IncompleteRuns after the resume = %+v, %v; want none", inc, err)
	}
	got, err := s.Run(ctx, next.ID())
	if err != nil || len(got.Resumes) != 1 || got.Resumes[0] != childRun {
		t.Errorf("resuming run = %+v, %v; want Resumes [%d]", got, err, childRun)
	}
	killed, err := s.Run(ctx, childRun)
	if err != nil || len(killed.ResumedBy) != 1 || killed.ResumedBy[0] != next.ID() || killed.ExitCode != nil {
		t.Errorf("killed run = %+v, %v; want unfinished and ResumedBy [%d]", killed, err, next.ID())
	}
	if res, err := s.Verify(ctx, head); err != nil || !res.OK {
		t.Fatalf("Verify after the resume = %+v, %v", res, err)
	}
}
