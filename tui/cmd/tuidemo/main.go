// Command tuidemo runs the TUI on a handmade plan with a fake apply, with
// no cluster: a loading screen, the review, the confirmation, the apply
// with one failing resource, the end screen. It stands in for
// `migrate demo` in scripts/tui-demo-tmux.sh until that command exists.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/tui"
	"github.com/zkmigrate/zkmigrate/tui/internal/fixture"
)

func main() {
	delay := flag.Duration("delay", 300*time.Millisecond, "pause before each fake batch")
	large := flag.Int("changes", 0, "use a generated plan of this many changes instead of the handmade one")
	history := flag.Bool("history", false, "browse a fake audit history instead")
	noColor := flag.Bool("no-color", false, "no colour")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	o := tui.Options{NoColor: *noColor}
	if *history {
		if err := tui.History(ctx, demoHistory{}, o); err != nil {
			fmt.Fprintln(os.Stderr, "tuidemo:", err)
			os.Exit(1)
		}
		return
	}
	var p *plan.Plan
	err := tui.Loading(ctx, "Reading the source and the target (demo)", func(ctx context.Context, step func(string, int, int)) error {
		steps := []string{"connecting to ZooKeeper zk1:2181/kafka", "reading brokers", "reading topics", "reading configs", "reading ACLs", "reading the target kraft1:9092"}
		for i, s := range steps {
			step(s, i, len(steps))
			select {
			case <-time.After(*delay):
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		p = fixture.Plan()
		if *large > 0 {
			p = fixture.Large(*large)
		}
		return nil
	}, o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tuidemo:", err)
		os.Exit(1)
	}
	run := fixture.FakeApply(fixture.ApplyOptions{BatchSize: 2, Delay: *delay, Fail: func(c *plan.Change) bool {
		return c.Kind == plan.KindTopicConfig && c.Resource.Name == "payments"
	}})
	r, err := tui.Session(ctx, p, tui.ApplyFunc(run), 42, o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tuidemo:", err)
		os.Exit(1)
	}
	fmt.Printf("tuidemo: %d succeeded, %d failed, %d skipped, canceled=%v\n", r.Succeeded, r.Failed, r.Skipped, r.Canceled)
	if r.Failed > 0 {
		os.Exit(3)
	}
}

type demoHistory struct{}

func (demoHistory) Runs(context.Context) ([]tui.RunRow, error) {
	return []tui.RunRow{
		{ID: 42, Command: "apply", Outcome: "partial", Started: "2026-11-29 12:00:01", Target: "kraft1:9092", ExitCode: 3, Changes: 13},
		{ID: 41, Command: "plan", Outcome: "pending", Started: "2026-11-29 11:58:40", Target: "kraft1:9092", ExitCode: 2, Changes: 14},
	}, nil
}

func (demoHistory) Run(_ context.Context, id int64) (tui.RunDetail, error) {
	return tui.RunDetail{Run: tui.RunRow{ID: id, Command: "apply", Outcome: "partial", ExitCode: 3},
		Changes: []tui.ChangeRow{{Kind: "topic", Action: "create", Resource: "orders", Status: "ok"},
			{Kind: "topic-config", Action: "update", Resource: "payments", Status: "failed", Error: "POLICY_VIOLATION"}},
		RPCs: []tui.RPCRow{{API: "CreateTopics", Broker: 1, DurationMS: 30, Resources: 2, Result: "ok"}}}, nil
}
