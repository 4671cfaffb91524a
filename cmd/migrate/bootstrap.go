package main

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/zkmigrate/zkmigrate/internal/cliflags"
	"github.com/zkmigrate/zkmigrate/internal/cmdline"
	"github.com/zkmigrate/zkmigrate/internal/kraftseed"
	"github.com/zkmigrate/zkmigrate/internal/migration"
	"github.com/zkmigrate/zkmigrate/internal/render"
)

var bootstrapUsage = usageText("bootstrap_usage")

// bootstrapLockWait bounds the wait for another bootstrap of the same
// metadata directory.
const bootstrapLockWait = time.Minute

// bootstrapFlags are migrate bootstrap's flags.
type bootstrapFlags struct {
	src        cliflags.Source
	dirs       cmdline.StringList
	in, out    string
	show       string
	principals string
	tokens     bool
	topicIDs   bool
	topics     string
	dryRun     bool
	output     string
	audit      cliflags.Audit
}

func (f *bootstrapFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.src.ZooKeeper, "zookeeper", "", "source ZooKeeper `host:port[,host:port][/chroot]` (read only; never written)")
	fs.StringVar(&f.src.ZKAuth, "zk-auth", "", "ZooKeeper auth `scheme:credentials`, e.g. digest:user:password, or @FILE holding it")
	fs.StringVar(&f.src.ZKTLSConfigFile, "zk-tls-config-file", "", "Kafka-format ZooKeeper TLS config `FILE` (zookeeper.ssl.* keys; JKS, PKCS12 or PEM stores)")
	f.src.ZKTimeout = cmdline.PositiveDuration(15 * time.Second)
	fs.Var(&f.src.ZKTimeout, "zk-timeout", "bound on connecting to ZooKeeper and on waiting for each answer")
	f.src.Disk.Register(fs)
	fs.StringVar(&f.src.SnapshotFile, "snapshot", "", "not accepted: a snapshot `FILE` has no SCRAM keys\n(it holds SCRAM credentials by reference only); give --zookeeper or --zk-data-dir")
	fs.Var(&f.dirs, "metadata-dir", "a controller's metadata log `DIR` (repeatable)\nformatted by kafka-storage and never started (repeatable: every controller of the quorum)")
	fs.StringVar(&f.in, "in", "", "read this bootstrap checkpoint `FILE` instead of --metadata-dir (with --out)")
	fs.StringVar(&f.out, "out", "", "write the extended checkpoint to `FILE` (with --in; may be the same file)")
	fs.StringVar(&f.principals, "principals", "", "only SCRAM users whose principal (User:alice) matches this `REGEXP`")
	fs.BoolVar(&f.tokens, "delegation-tokens", false, "also seed the source's delegation tokens\n(DelegationTokenRecord: their metadata; a token keeps working when the target's delegation.token.secret.key is the source's)")
	fs.BoolVar(&f.topicIDs, "topic-ids", false, "also create the source's topics with their ids and replicas\nwith their topic ids and replica assignments (TopicRecord, PartitionRecord; partitions start empty, configs follow with plan/apply); the target's brokers must have the source's ids")
	fs.StringVar(&f.topics, "topics", "", "with --topic-ids: only topics whose name matches this `REGEXP`")
	fs.BoolVar(&f.dryRun, "dry-run", false, "report what would be added; write nothing")
	fs.StringVar(&f.show, "show", "", "list the records of this bootstrap checkpoint `FILE` and exit\n(or a --metadata-dir's)")
	cmdline.OutputFlag(fs, &f.output, "output: text or json", "text", "json")
	f.audit.Register(fs)
}

func (c *cli) newBootstrapCmd() *cobra.Command {
	var f bootstrapFlags
	cmd := c.leaf("bootstrap", "seed a fresh, never-started KRaft cluster with the source's SCRAM credentials: every user keeps its password", bootstrapUsage,
		func(ctx context.Context, e *env, args []string) int { return runBootstrap(ctx, e, &f, args) })
	f.register(cmd.Flags())
	return cmd
}

// validate checks the flags without reading anything.
func (f *bootstrapFlags) validate(args []string) error {
	if f.output != "text" && f.output != "json" {
		return fmt.Errorf("-o %q: want text or json", f.output)
	}
	if f.show != "" {
		if f.src.ZooKeeper != "" || len(f.dirs) > 0 || f.in != "" || f.out != "" || f.dryRun {
			return errors.New("--show FILE lists a checkpoint and takes no other input or target")
		}
		return nil
	}
	if f.src.SnapshotFile != "" {
		return fmt.Errorf("--snapshot %s: a snapshot file holds SCRAM credentials by reference only, never their salt and keys; bootstrap reads them from ZooKeeper: give --zookeeper host:port[/chroot], or --zk-data-dir DIR (ZooKeeper's own files)", f.src.SnapshotFile)
	}
	switch {
	case f.src.ZooKeeper == "" && !f.src.Disk.Given():
		return errors.New("give the source: --zookeeper host:port[/chroot] or --zk-data-dir DIR")
	case f.src.ZooKeeper != "" && f.src.Disk.Given():
		return errors.New("give --zookeeper or --zk-data-dir, not both")
	}
	if err := f.src.Disk.Validate(); err != nil {
		return err
	}
	if err := f.src.Where().Validate(); err != nil {
		return err
	}
	switch {
	case len(f.dirs) > 0 && (f.in != "" || f.out != ""):
		return errors.New("give --metadata-dir DIR..., or --in FILE --out FILE, not both")
	case len(f.dirs) == 0 && f.in == "":
		return errors.New("give the target: --metadata-dir DIR (every controller's), or --in FILE --out FILE")
	case f.in != "" && f.out == "" && !f.dryRun:
		return errors.New("--in needs --out FILE (the same file to change it in place)")
	}
	if _, err := regexp.Compile(f.principals); err != nil {
		return fmt.Errorf("--principals %q: %v", f.principals, err)
	}
	if _, err := regexp.Compile(f.topics); err != nil {
		return fmt.Errorf("--topics %q: %v", f.topics, err)
	}
	if f.topics != "" && !f.topicIDs {
		return errors.New("--topics needs --topic-ids")
	}
	return nil
}

func runBootstrap(ctx context.Context, e *env, f *bootstrapFlags, args []string) int {
	if err := f.validate(args); err != nil {
		return fail(e, "bootstrap", err)
	}
	if f.show != "" {
		return showCheckpoint(e, f.show, f.output)
	}
	targets, release, err := migration.BootstrapTargets(ctx, kraftseed.TargetOptions{Dirs: f.dirs, In: f.in, Out: f.out}, f.dryRun, bootstrapLockWait)
	defer release()
	if err != nil {
		return fail(e, "bootstrap", bootstrapFlagError(err))
	}
	rec := beginAudit(ctx, e, &f.audit, "bootstrap")
	end := func(o migration.Outcome) int {
		finish(ctx, e, rec, o)
		return int(o.Code)
	}
	res, writeErr, err := migration.Bootstrap(ctx, f.request(targets), rec)
	if err != nil {
		fail(e, "bootstrap", bootstrapFlagError(err))
		return end(migration.Failed)
	}
	_ = show(render.BootstrapView, e, f.output, res)
	if writeErr != nil {
		fail(e, "bootstrap", writeErr)
	}
	return end(migration.BootstrapEnd(res, writeErr))
}

// bootstrapFlagError names the flag behind a kraftseed refusal.
func bootstrapFlagError(err error) error {
	var de *kraftseed.DirError
	if errors.As(err, &de) {
		return fmt.Errorf("--metadata-dir %s%s", de.Dir, de.Detail)
	}
	var te *kraftseed.TokenVersionError
	if errors.As(err, &te) {
		return fmt.Errorf("%s: metadata.version level %d has no delegation tokens (3.6-IV2, level %d, or later); leave out --delegation-tokens or format with a later --release-version",
			te.File, te.Level, migration.MinTokenMetadataVersion)
	}
	return err
}

// request maps the flags to the bootstrap of targets.
func (f *bootstrapFlags) request(targets []kraftseed.Target) migration.BootstrapRequest {
	o := kraftseed.SourceOptions{Tokens: f.tokens, TopicIDs: f.topicIDs, Now: time.Now()}
	if f.principals != "" {
		o.Principals = regexp.MustCompile(f.principals) // checked by validate
	}
	if f.topics != "" {
		o.Topics = regexp.MustCompile(f.topics) // checked by validate
	}
	return migration.BootstrapRequest{Targets: targets, Source: f.src.Where(), Open: openBootstrapSource, Read: o, DryRun: f.dryRun}
}

// openBootstrapSource opens the source ZooKeeper (read only) or its data
// directory. Tests replace it with a captured tree.
var openBootstrapSource = migration.OpenZooKeeper

// showCheckpoint is --show: the records of a checkpoint by kind, the
// feature levels and the SCRAM users and mechanisms, never key bytes.
func showCheckpoint(e *env, path, output string) int {
	l, err := kraftseed.Show(path)
	if err != nil {
		return fail(e, "bootstrap", err)
	}
	_ = show(render.CheckpointView, e, output, l)
	return exitOK
}
