package main

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/zkmigrate/zkmigrate/internal/apply"
	"github.com/zkmigrate/zkmigrate/internal/kafkaconn"
	"github.com/zkmigrate/zkmigrate/internal/kread"
	"github.com/zkmigrate/zkmigrate/internal/migration"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/render"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/zkread"
	"github.com/zkmigrate/zkmigrate/internal/zktree"
)

// The demo's legacy cluster: a ZooKeeper tree captured from a real Kafka 3.9
// cluster of the test bed, its password encoder secret and the SCRAM
// passwords the test bed set (test values, published on purpose).
var (
	//go:embed demodata/legacy.json
	demoTree []byte
	//go:embed demodata/legacy.encoder-secret
	demoEncoderSecret string
	//go:embed demodata/legacy.scram.json
	demoScram []byte
)

var demoUsage = usageText("demo_usage")

// demoFlags are the flags of `migrate demo`.
type demoFlags struct {
	noTUI   bool
	brokers int
	detail  bool
	quiet   bool
	audit   auditFlags
}

func (f *demoFlags) register(fs *pflag.FlagSet) {
	fs.BoolVar(&f.noTUI, "no-tui", false, "plain text output even on a terminal")
	fs.IntVar(&f.brokers, "brokers", 3, "`N` brokers in the in-process target cluster")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress on stderr (there is none either when stderr is not a terminal)")
	fs.BoolVar(&f.detail, "detail", false, "list every change, blocker and finding of the plans (as plan --detail)")
	f.audit.register(fs)
	if fl := fs.Lookup("audit-db"); fl != nil {
		fl.Usage = "the demo's audit database `PATH` (default " + demoAuditPath() + ", the demo's own: never your real audit trail)"
	}
}

// demoAuditPath is where the demo keeps its audit trail by default.
func demoAuditPath() string { return filepath.Join(os.TempDir(), "zkmigrate-demo-audit.db") }

func (c *cli) newDemoCmd() *cobra.Command {
	var f demoFlags
	cmd := c.command("demo", "the whole flow on a bundled legacy cluster and an in-process Kafka, no servers needed", demoUsage,
		func(ctx context.Context, e *env, args []string) int { return runDemo(ctx, e, &f, args) })
	f.register(cmd.Flags())
	cmd.Annotations = map[string]string{"footer": keyHelp()}
	return cmd
}

func runDemo(ctx context.Context, e *env, f *demoFlags, args []string) int {
	if len(args) > 0 {
		return fail(e, "demo", fmt.Errorf("unexpected argument %q", args[0]))
	}
	af, noTUI, brokers := &f.audit, &f.noTUI, &f.brokers
	if af.path == "" && !af.off {
		// The demo keeps its audit trail out of the operator's real one.
		af.path = demoAuditPath()
	}
	rec := af.begin(ctx, e, "demo")
	switch {
	case af.off:
		fmt.Fprintln(e.stdout, "Audit trail: off (--no-audit).")
	case rec.OK():
		fmt.Fprintf(e.stdout, "Audit trail: %s (the demo's own database; your real one is not touched).\n", af.path)
	}
	code, err := demo(ctx, e, *brokers, e.tty && !*noTUI, render.TextOptions{Detail: f.detail}, f.quiet, rec)
	if err != nil {
		finish(ctx, e, rec, migration.Failed)
		return fail(e, "demo", err)
	}
	return code
}

func demo(ctx context.Context, e *env, brokers int, interactive bool, text render.TextOptions, quiet bool, rec *migration.Recorder) (int, error) {
	w := e.stdout
	tree, err := zktree.Decode(bytes.NewReader(demoTree))
	if err != nil {
		return exitError, fmt.Errorf("bundled legacy tree: %w", err)
	}
	src, err := zkread.Read(ctx, tree, zkread.Options{Full: true, Address: "bundled Kafka 3.9 capture", EncoderSecrets: []string{strings.TrimSpace(demoEncoderSecret)}})
	if err != nil {
		return exitError, err
	}
	notes := adaptForKfake(src)

	cluster, err := kfake.NewCluster(kfake.NumBrokers(brokers), kfake.ClusterID("zkmigrate-demo"))
	if err != nil {
		return exitError, fmt.Errorf("start in-process Kafka: %w", err)
	}
	defer cluster.Close()
	conn, err := kafkaconn.Dial(ctx, cluster.ListenAddrs(), kafkaconn.Default())
	if err != nil {
		return exitError, err
	}
	defer conn.Close()
	fmt.Fprintf(w, "Source: %s (cluster %s): %d topics, %d ACLs, %d quota entities, %d SCRAM users\n",
		src.Address, src.ClusterID, len(src.Topics), len(src.ACLs), len(src.Quotas), len(src.ScramUsers))
	fmt.Fprintf(w, "Target: in-process Kafka (kfake) with %d brokers at %s\n", brokers, strings.Join(cluster.ListenAddrs(), ","))
	notes = append(notes, "demo: --placement target: the in-process Kafka places replicas itself (\"placed by the target\"); a real Kafka target keeps the source's replica lists")
	for _, n := range notes {
		fmt.Fprintf(w, "(%s)\n", n)
	}
	fmt.Fprintln(w)

	creds, err := demoCredentials()
	if err != nil {
		return exitError, err
	}
	build := func() (*plan.Plan, *snapshot.Snapshot, error) {
		tgt, err := kread.Read(ctx, conn, kread.Options{})
		if err != nil {
			return nil, nil, err
		}
		// kfake places replicas itself whatever CreateTopics asks, so the
		// demo lets the target place them (a real target keeps the source's
		// replica lists: --placement auto).
		p, err := migration.BuildPlan(src, tgt, creds, plan.Options{Principal: conn.Principal, Placement: plan.PlacementTarget}, nil, nil)
		return p, tgt, err
	}
	p, tgt, err := build()
	if err != nil {
		return exitError, err
	}
	var outcome migration.Outcome
	pl := migration.NewPlanned(p, src, tgt, conn, creds)
	rec.Planned(ctx, pl)
	if interactive {
		run := func(ctx context.Context, p *plan.Plan, obs apply.Observer) error {
			_, err := pl.Apply(ctx, p, apply.Options{}, apply.Observers{obs, rec.Observer()})
			return err
		}
		res, err := sessionInteractive(ctx, e, p, run, rec.ID(), notes...)
		if err != nil {
			return exitError, err
		}
		outcome = migration.DemoOutcome(apply.Result{Succeeded: res.Succeeded, Failed: res.Failed, Canceled: res.Canceled})
	} else {
		fmt.Fprintln(w, "== Plan ==")
		if err := render.PlanTextWith(w, p, text); err != nil {
			return exitError, err
		}
		fmt.Fprintln(w, "\n== Apply ==")
		obs := apply.Observers{withMeter(e, quiet, &render.ApplyText{W: w})}
		if o := rec.Observer(); o != nil {
			obs = append(obs, o)
		}
		res, err := pl.Apply(ctx, p, apply.Options{}, obs)
		if err != nil {
			return exitError, err
		}
		outcome = migration.DemoOutcome(apply.Result{Failed: res.Failed})
	}
	again, _, err := build()
	if err != nil {
		return exitError, err
	}
	fmt.Fprintln(w, "\n== Plan again ==")
	if err := render.PlanTextWith(w, again, text); err != nil {
		return exitError, err
	}
	if again.Runnable() && outcome.Code == migration.ExitOK {
		fmt.Fprintf(w, "(%d change(s) left: those you excluded or did not apply. The demo ends normally; a real 'migrate plan' exits 2 here.)\n", len(again.Changes))
	}
	id := rec.ID()
	if receipt := finish(ctx, e, rec, outcome); receipt != "" {
		fmt.Fprintf(w, "\nWhat the demo recorded, and the check that nobody changed it since:\n  %s\n  %s\n",
			e.auditCmd("show", strconv.FormatInt(id, 10)), e.auditCmd("verify", "--anchor", receipt))
	}
	return int(outcome.Code), nil
}

// adaptForKfake drops what the in-process Kafka cannot hold (kfake has no
// User or DelegationToken ACL resources, and keeps one config map for all
// brokers) and returns notes saying so, for the text output and the TUI.
func adaptForKfake(s *snapshot.Snapshot) (notes []string) {
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
		notes = append(notes, fmt.Sprintf("demo: %s on User/DelegationToken resources left out: the in-process Kafka cannot store them", pluralWord(dropped, "ACL")))
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
		notes = append(notes, fmt.Sprintf("demo: dynamic configs of %s (the cluster default and other brokers) left out: the in-process Kafka keeps one config map for all brokers", pluralWord(left, "broker entry")))
	}
	s.BrokerConfigs = kept1
	return notes
}

func demoCredentials() ([]plan.Credential, error) {
	return migration.ParseCredentials("bundled SCRAM credentials", demoScram)
}

// pluralWord is "1 ACL", "3 ACLs", "2 broker entries".
func pluralWord(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	if strings.HasSuffix(word, "y") && !strings.HasSuffix(word, "ey") {
		return strconv.Itoa(n) + " " + word[:len(word)-1] + "ies"
	}
	return strconv.Itoa(n) + " " + word + "s"
}
