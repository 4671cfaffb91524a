package main

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/zkmigrate/zkmigrate/internal/audit"
	"github.com/zkmigrate/zkmigrate/internal/catalogue"
	"github.com/zkmigrate/zkmigrate/internal/kraftcheckpoint"
	"github.com/zkmigrate/zkmigrate/internal/props"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/zkconn"
	"github.com/zkmigrate/zkmigrate/internal/zkdisk"
	"github.com/zkmigrate/zkmigrate/internal/zkread"
	"github.com/zkmigrate/zkmigrate/internal/zktree"
)

const bootstrapUsage = `Usage: migrate bootstrap (--zookeeper host:port[/chroot] [--zk-auth @FILE]
                          | --zk-data-dir DIR)
                         (--metadata-dir DIR... | --in FILE --out FILE)
                         [--principals REGEXP] [--delegation-tokens]
                         [--topic-ids [--topics REGEXP]] [--dry-run]
                         [-o text|json]
       migrate bootstrap --show FILE [-o text|json]

Seeds a freshly formatted, never-started KRaft cluster with the source's
SCRAM credentials, so that every SCRAM user keeps its password: ZooKeeper
holds each credential as salt, StoredKey, ServerKey and iterations, exactly
what KRaft's UserScramCredentialRecord holds, and a KRaft controller whose
metadata log is empty replays the records of its bootstrap.checkpoint (the
file 'kafka-storage format' writes) at its first start. The tool never
learns a password; the admin protocol cannot carry these credentials.

For each --metadata-dir (the metadata log directory of every controller of
the quorum, as formatted), it reads bootstrap.checkpoint, keeps every record
in it (metadata.version and the other feature levels, users added with
--add-scram), adds one UserScramCredentialRecord per source credential, and
writes the file back atomically (same directory, fsync, rename; mode 0600,
the original owner). A user and mechanism already in the checkpoint (the
admin user from --add-scram) is kept as it is and reported; the source's
credential for it is not added. A credential already added by an earlier
run is such a user, so running it again adds nothing.

It refuses, before writing anything:
  - a directory whose metadata log already holds records
    (__cluster_metadata-0 has a non-empty .log or a snapshot): the
    controller has started, and a bootstrap checkpoint is read only into an
    empty log; too late: carry the users with plan/apply --scram-credentials
    or have them reset their passwords;
  - directories whose meta.properties name different cluster ids;
  - a checkpoint it cannot parse completely (CRC mismatch, truncation, a
    record type or version it does not know), or a metadata.version before
    3.5-IV2 (no SCRAM records).

--delegation-tokens also seeds the source's delegation tokens (their
metadata, as DelegationTokenRecords; expired ones are left out and named):
Kafka derives a token's HMAC from its id and delegation.token.secret.key, so
the tokens keep working when the target is configured with the source's
secret key (metadata.version 3.6-IV2 or later).

--topic-ids also creates the source's topics (--topics REGEXP to choose)
with their topic ids: a TopicRecord and one PartitionRecord per partition
(the source's replica lists, the first replica as leader). Kafka 4.1 takes
the leaders off the not-yet-registered brokers at its first start and,
once they register, elects them again (an unclean election, logged as
such, of empty partitions). Internal topics and topics pending deletion
are left out; configs follow with plan/apply. The target's brokers must
have the source's ids.

--in FILE --out FILE work on a checkpoint file instead (no started-cluster
or cluster-id check: the file alone does not say). --show FILE lists a
checkpoint's records: kinds, counts, feature levels, SCRAM users and
mechanisms. Output, --show and the audit trail name users and mechanisms,
never salts or keys; the audit records which users were seeded into which
file and the file's SHA-256.

A snapshot file (--snapshot) holds SCRAM credentials by reference only, never
their keys, so the source is a live ZooKeeper (read only, never written) or
ZooKeeper's own data directory (--zk-data-dir, offline).

Cutover order: kafka-storage format every controller (with --add-scram for
the admin user) → migrate bootstrap --metadata-dir each → start the
controllers and brokers → migrate plan / apply for everything else →
migrate plan shows nothing for the seeded users. See docs/bootstrap.md.

Exit codes: 0 written, or nothing to add (or --dry-run / --show); 1 error,
nothing written; 3 partial: some source credentials could not be read
(named) and the others were written, or a later --metadata-dir could not be
written after an earlier one was (run it again: it adds only what is
missing).

`

func init() {
	for name, group := range map[string]string{"topic-ids": groupSelection, "delegation-tokens": groupSelection, "metadata-dir": groupTarget, "in": groupTarget, "show": groupOutput, "dry-run": groupSafety} {
		flagGroups[name] = group
	}
}

// bootstrapFlags are migrate bootstrap's flags.
type bootstrapFlags struct {
	src        sourceFlags
	dirs       stringList
	in, out    string
	show       string
	principals string
	tokens     bool
	topicIDs   bool
	topics     string
	dryRun     bool
	output     string
	audit      auditFlags
}

func (f *bootstrapFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.src.zookeeper, "zookeeper", "", "source ZooKeeper `host:port[,host:port][/chroot]` (read only; never written)")
	fs.StringVar(&f.src.zkAuth, "zk-auth", "", "ZooKeeper auth `scheme:credentials`, e.g. digest:user:password, or @FILE holding it")
	fs.StringVar(&f.src.zkTLSConfigFile, "zk-tls-config-file", "", "Kafka-format ZooKeeper TLS config `FILE` (zookeeper.ssl.* keys; JKS, PKCS12 or PEM stores)")
	fs.DurationVar(&f.src.zkTimeout, "zk-timeout", 15*time.Second, "bound on connecting to ZooKeeper and on waiting for each answer")
	f.src.disk.register(fs)
	fs.StringVar(&f.src.snapshotFile, "snapshot", "", "not accepted: a snapshot `FILE` holds SCRAM credentials by reference only (no keys); give --zookeeper or --zk-data-dir")
	fs.Var(&f.dirs, "metadata-dir", "a controller's metadata log `DIR`, formatted by kafka-storage and never started (repeatable: every controller of the quorum)")
	fs.StringVar(&f.in, "in", "", "read this bootstrap checkpoint `FILE` instead of --metadata-dir (with --out)")
	fs.StringVar(&f.out, "out", "", "write the extended checkpoint to `FILE` (with --in; may be the same file)")
	fs.StringVar(&f.principals, "principals", "", "only SCRAM users whose principal (User:alice) matches this `REGEXP`")
	fs.BoolVar(&f.tokens, "delegation-tokens", false, "also seed the source's delegation tokens (DelegationTokenRecord: their metadata; a token keeps working when the target's delegation.token.secret.key is the source's)")
	fs.BoolVar(&f.topicIDs, "topic-ids", false, "also create the source's topics with their topic ids and replica assignments (TopicRecord, PartitionRecord; partitions start empty, configs follow with plan/apply); the target's brokers must have the source's ids")
	fs.StringVar(&f.topics, "topics", "", "with --topic-ids: only topics whose name matches this `REGEXP`")
	fs.BoolVar(&f.dryRun, "dry-run", false, "report what would be added; write nothing")
	fs.StringVar(&f.show, "show", "", "list the records of this bootstrap checkpoint `FILE` (or a --metadata-dir's) and exit")
	outputFlag(fs, &f.output, "output: text or json", "text", "json")
	f.audit.register(fs)
}

func (c *cli) newBootstrapCmd() *cobra.Command {
	var f bootstrapFlags
	cmd := c.command("bootstrap", "seed a fresh, never-started KRaft cluster with the source's SCRAM credentials: every user keeps its password", bootstrapUsage,
		func(ctx context.Context, e *env, args []string) int { return runBootstrap(ctx, e, &f, args) })
	f.register(cmd.Flags())
	return cmd
}

// validate checks the flags without reading anything.
func (f *bootstrapFlags) validate(args []string) error {
	if len(args) > 0 {
		return fmt.Errorf("unexpected argument %q", args[0])
	}
	if f.output != "text" && f.output != "json" {
		return fmt.Errorf("-o %q: want text or json", f.output)
	}
	if f.show != "" {
		if f.src.zookeeper != "" || len(f.dirs) > 0 || f.in != "" || f.out != "" || f.dryRun {
			return errors.New("--show FILE lists a checkpoint and takes no other input or target")
		}
		return nil
	}
	if f.src.snapshotFile != "" {
		return fmt.Errorf("--snapshot %s: a snapshot file holds SCRAM credentials by reference only, never their salt and keys; bootstrap reads them from ZooKeeper: give --zookeeper host:port[/chroot], or --zk-data-dir DIR (ZooKeeper's own files)", f.src.snapshotFile)
	}
	switch {
	case f.src.zookeeper == "" && !f.src.disk.set():
		return errors.New("give the source: --zookeeper host:port[/chroot] or --zk-data-dir DIR")
	case f.src.zookeeper != "" && f.src.disk.set():
		return errors.New("give --zookeeper or --zk-data-dir, not both")
	}
	if err := f.src.disk.validate(); err != nil {
		return err
	}
	if f.src.zkTimeout <= 0 {
		return fmt.Errorf("--zk-timeout %s: want a positive duration", f.src.zkTimeout)
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

// bootTarget is one checkpoint to extend.
type bootTarget struct {
	Dir             string     `json:"metadata_dir,omitempty"`
	File            string     `json:"file"`
	Out             string     `json:"out"`
	ClusterID       string     `json:"cluster_id,omitempty"`
	NodeID          string     `json:"node_id,omitempty"`
	MetadataVersion int16      `json:"metadata_version_level"`
	Records         int        `json:"records_before"`
	Added           []bootUser `json:"added"`
	Kept            []bootUser `json:"kept"`
	AddedTopics     []string   `json:"added_topics,omitempty"` // topic names
	KeptTopics      []string   `json:"kept_topics,omitempty"`
	AddedTokens     []string   `json:"added_tokens,omitempty"` // token ids
	KeptTokens      []string   `json:"kept_tokens,omitempty"`
	Written         bool       `json:"written"`
	SHA256          string     `json:"sha256,omitempty"`

	cp     *kraftcheckpoint.Checkpoint
	data   []byte
	origin os.FileInfo
}

// bootUser names a credential: the user and mechanism, never its keys.
type bootUser struct {
	User       string `json:"user"`
	Mechanism  string `json:"mechanism"`
	Iterations int32  `json:"iterations"`
}

func (u bootUser) String() string { return "User:" + u.User + " " + u.Mechanism }

// bootResult is what a run did, for -o json.
type bootResult struct {
	DryRun    bool         `json:"dry_run"`
	Source    string       `json:"source"`
	ClusterID string       `json:"source_cluster_id,omitempty"`
	Found     int          `json:"source_credentials"`
	Skipped   []string     `json:"skipped,omitempty"` // source credentials that could not be read (znode and reason)
	Tokens    int          `json:"source_delegation_tokens,omitempty"`
	Expired   []string     `json:"expired_tokens,omitempty"` // token ids not seeded: expired, the controller would drop them
	Topics    int          `json:"source_topics,omitempty"`
	NoTopicID []string     `json:"topics_without_id,omitempty"`       // left to plan/apply (new ids)
	Pending   []string     `json:"topics_pending_deletion,omitempty"` // being deleted on the source: not seeded
	BrokerIDs []int32      `json:"broker_ids_needed,omitempty"`       // the brokers the seeded partitions name
	Targets   []bootTarget `json:"targets"`
}

func runBootstrap(ctx context.Context, e *env, f *bootstrapFlags, args []string) int {
	if err := f.validate(args); err != nil {
		return fail(e, "bootstrap", err)
	}
	if f.show != "" {
		return showCheckpoint(e, f.show, f.output)
	}
	// The targets first: a refusal costs no ZooKeeper session.
	targets, err := loadBootTargets(f)
	if err != nil {
		return fail(e, "bootstrap", err)
	}
	rec := f.audit.begin(ctx, e, "bootstrap")
	finish := func(outcome string, code int) int {
		rec.finish(ctx, e, outcome, code)
		return code
	}
	res := &bootResult{DryRun: f.dryRun, Source: f.src.zookeeper}
	creds, tokens, topics, err := readSourceScram(ctx, f, res)
	if err != nil {
		fail(e, "bootstrap", err)
		return finish("error", exitError)
	}
	if rec.ok() {
		for _, c := range creds {
			rec.run.AddSecrets(secretForms(c)...) // belt and braces: scrubbed should one ever reach the audit
		}
		_ = rec.run.SetEndpoints(ctx, audit.Endpoint{Kind: snapshot.SourceZooKeeper, Address: f.src.zookeeper, ClusterID: res.ClusterID},
			audit.Endpoint{Kind: "bootstrap-checkpoint", Address: targetFiles(targets), ClusterID: targets[0].ClusterID})
	}
	for i := range targets {
		if err := targets[i].extend(creds, tokens, topics, time.Now()); err != nil {
			fail(e, "bootstrap", err)
			return finish("error", exitError)
		}
	}
	code := exitOK
	if len(res.Skipped) > 0 {
		code = exitPartial
	}
	var writeErr error
	if !f.dryRun {
		for i := range targets {
			t := &targets[i]
			if t.added() == 0 {
				continue
			}
			if err := writeCheckpoint(t.Out, t.data, t.origin); err != nil {
				writeErr = fmt.Errorf("write %s: %v", t.Out, err)
				break
			}
			t.Written = true
		}
	}
	res.Targets = targets
	if rec.ok() {
		recordBootstrap(ctx, rec.run, res)
	}
	if f.output == "json" {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(res)
	} else {
		writeBootstrapText(e.stdout, res)
	}
	if writeErr != nil {
		fail(e, "bootstrap", writeErr)
		if slices.ContainsFunc(targets, func(t bootTarget) bool { return t.Written }) {
			return finish("partial", exitPartial)
		}
		return finish("error", exitError)
	}
	outcome := "bootstrapped"
	switch {
	case f.dryRun:
		outcome = "dry-run"
	case code == exitPartial:
		outcome = "partial"
	}
	return finish(outcome, code)
}

func targetFiles(ts []bootTarget) string {
	var fs []string
	for _, t := range ts {
		fs = append(fs, t.Out)
	}
	return strings.Join(fs, ",")
}

// loadBootTargets reads and checks every target checkpoint: each
// --metadata-dir formatted and never started, one cluster id across them,
// every checkpoint parsed completely.
func loadBootTargets(f *bootstrapFlags) ([]bootTarget, error) {
	var ts []bootTarget
	if f.in != "" {
		t := bootTarget{File: f.in, Out: f.out}
		if t.Out == "" {
			t.Out = f.in
		}
		if err := t.load(); err != nil {
			return nil, err
		}
		return append(ts, t), nil
	}
	seen := map[string]bool{}
	for _, d := range f.dirs {
		abs, err := filepath.Abs(d)
		if err != nil {
			return nil, err
		}
		if seen[abs] {
			return nil, fmt.Errorf("--metadata-dir %s is given twice", d)
		}
		seen[abs] = true
		t := bootTarget{Dir: d, File: filepath.Join(d, kraftcheckpoint.FileName)}
		t.Out = t.File
		if err := checkMetadataDir(&t); err != nil {
			return nil, err
		}
		if err := t.load(); err != nil {
			return nil, err
		}
		if len(ts) > 0 && t.ClusterID != ts[0].ClusterID {
			return nil, fmt.Errorf("--metadata-dir %s has cluster id %s but %s has %s: these controllers are not of one cluster", d, t.ClusterID, ts[0].Dir, ts[0].ClusterID)
		}
		ts = append(ts, t)
	}
	return ts, nil
}

// bootstrapSnapshotName is the snapshot `kafka-storage format` writes into
// __cluster_metadata-0 of a dynamic quorum's controller before any start.
const bootstrapSnapshotName = "00000000000000000000-0000000000.checkpoint"

// checkMetadataDir checks that dir is a formatted metadata log directory
// whose log holds no record yet, and reads its meta.properties.
func checkMetadataDir(t *bootTarget) error {
	dir := t.Dir
	st, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("--metadata-dir %s: %v", dir, errors.Unwrap(err))
	}
	if !st.IsDir() {
		return fmt.Errorf("--metadata-dir %s is not a directory", dir)
	}
	mp := filepath.Join(dir, "meta.properties")
	p, err := props.Load(mp)
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("--metadata-dir %s has no meta.properties: not formatted (run kafka-storage format first)", dir)
	}
	if err != nil {
		return fmt.Errorf("%s: %v", mp, err)
	}
	for _, en := range p.Entries {
		switch en.Key {
		case "cluster.id":
			t.ClusterID = en.Value
		case "node.id":
			t.NodeID = en.Value
		}
	}
	if t.ClusterID == "" {
		return fmt.Errorf("%s has no cluster.id", mp)
	}
	logDir := filepath.Join(dir, "__cluster_metadata-0")
	entries, err := os.ReadDir(logDir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%s: %v", logDir, err)
	}
	for _, en := range entries {
		name := en.Name()
		info, err := en.Info()
		if err != nil {
			return fmt.Errorf("%s: %v", filepath.Join(logDir, name), err)
		}
		started := strings.HasSuffix(name, ".log") && info.Size() > 0 ||
			strings.HasSuffix(name, ".checkpoint") && name != bootstrapSnapshotName
		if started {
			return fmt.Errorf("--metadata-dir %s: the metadata log already holds records (%s, %d bytes): this controller has started, "+
				"and Kafka replays a bootstrap checkpoint only into an empty metadata log, so it is too late to bootstrap; "+
				"carry the SCRAM users with plan/apply --scram-credentials or have them reset their passwords (--scram-resets), or format a fresh cluster",
				dir, filepath.Join("__cluster_metadata-0", name), info.Size())
		}
	}
	return nil
}

// load reads and parses the target's checkpoint.
func (t *bootTarget) load() error {
	st, err := os.Stat(t.File)
	if errors.Is(err, os.ErrNotExist) && t.Dir != "" {
		return fmt.Errorf("--metadata-dir %s has no %s: format it with kafka-storage format (Kafka 3.3 or later)", t.Dir, kraftcheckpoint.FileName)
	}
	if err != nil {
		return err
	}
	data, err := os.ReadFile(t.File)
	if err != nil {
		return err
	}
	cp, err := kraftcheckpoint.Parse(data)
	if err != nil {
		return fmt.Errorf("%s: %v; nothing was written", t.File, strings.TrimPrefix(err.Error(), "kraftcheckpoint: "))
	}
	mv, ok := cp.MetadataVersion()
	if !ok {
		return fmt.Errorf("%s sets no metadata.version (not a bootstrap checkpoint kafka-storage wrote)", t.File)
	}
	if mv < kraftcheckpoint.MinScramMetadataVersion {
		return fmt.Errorf("%s: metadata.version level %d has no SCRAM records (3.5-IV2, level %d, or later); format with a later --release-version",
			t.File, mv, kraftcheckpoint.MinScramMetadataVersion)
	}
	t.cp, t.origin, t.MetadataVersion, t.Records = cp, st, mv, len(cp.Records())
	return nil
}

// readSourceScram reads the source's SCRAM credentials with their keys,
// filtered by --principals. Credentials that cannot be read are named in
// res.Skipped.
func readSourceScram(ctx context.Context, f *bootstrapFlags, res *bootResult) ([]kraftcheckpoint.ScramCredential, []kraftcheckpoint.DelegationToken, []seedTopic, error) {
	conn, addr, closeConn, err := openBootstrapSource(ctx, &f.src)
	if err != nil {
		return nil, nil, nil, err
	}
	defer closeConn()
	res.Source = addr
	if d, _, err := conn.Get("/cluster/id"); err == nil {
		res.ClusterID, _ = zkread.ParseClusterID(d)
	}
	users, findings, err := zkread.ReadScramKeys(conn)
	if err != nil {
		return nil, nil, nil, err
	}
	re := regexp.MustCompile(f.principals) // checked by validate
	for _, fd := range findings {
		res.Skipped = append(res.Skipped, fd.Resource+": "+fd.Message)
	}
	var out []kraftcheckpoint.ScramCredential
	for _, u := range users {
		if !re.MatchString("User:" + u.User) {
			continue
		}
		m, _ := kraftcheckpoint.ParseMechanism(u.Mechanism)
		c := kraftcheckpoint.ScramCredential{Name: u.User, Mechanism: m, Salt: u.Credential.Salt, StoredKey: u.Credential.StoredKey,
			ServerKey: u.Credential.ServerKey, Iterations: u.Credential.Iterations}
		if err := c.Validate(); err != nil {
			res.Skipped = append(res.Skipped, u.Path+": "+err.Error())
			continue
		}
		out = append(out, c)
	}
	res.Found = len(out)
	var tokens []kraftcheckpoint.DelegationToken
	if f.tokens {
		if tokens, err = readSourceTokens(conn, res, time.Now()); err != nil {
			return nil, nil, nil, err
		}
	}
	var topics []seedTopic
	if f.topicIDs {
		if topics, err = readSourceTopics(ctx, conn, f.topics, res); err != nil {
			return nil, nil, nil, err
		}
	}
	return out, tokens, topics, nil
}

// seedTopic is a source topic to create with its id: its TopicRecord and a
// PartitionRecord per partition.
type seedTopic struct {
	topic kraftcheckpoint.Topic
	parts []kraftcheckpoint.Partition
}

// readSourceTopics reads the source's topics (zkread, as plan does) and
// turns each one with a topic id into records: every partition with the
// source's replicas (a reassignment's target set: replicas minus
// removing), the first as leader, all in the ISR, epochs 0. Internal topics
// are left out, and so are topics pending deletion; topics without an id
// (IBP before 2.8) are named and left to plan/apply.
func readSourceTopics(ctx context.Context, conn zkread.Source, filter string, res *bootResult) ([]seedTopic, error) {
	s, err := zkread.Read(ctx, conn, zkread.Options{Address: res.Source})
	if err != nil {
		return nil, err
	}
	re := regexp.MustCompile(filter) // checked by validate
	brokers := map[int32]bool{}
	var out []seedTopic
	for _, t := range s.Topics {
		if t.Internal || catalogue.IsInternalTopic(t.Name) || !re.MatchString(t.Name) {
			continue
		}
		if slices.Contains(s.PendingDeletes, t.Name) {
			res.Pending = append(res.Pending, t.Name)
			continue
		}
		if t.ID == "" {
			res.NoTopicID = append(res.NoTopicID, t.Name)
			continue
		}
		id, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(t.ID, "="))
		if err != nil || len(id) != 16 {
			res.Skipped = append(res.Skipped, fmt.Sprintf("topic %s: topic id %q is not a base64url Uuid", t.Name, t.ID))
			continue
		}
		st := seedTopic{topic: kraftcheckpoint.Topic{Name: t.Name}}
		copy(st.topic.ID[:], id)
		for _, p := range t.Partitions {
			var replicas []int32
			for _, r := range p.Replicas {
				if !slices.Contains(p.Removing, r) {
					replicas = append(replicas, r)
					brokers[r] = true
				}
			}
			if len(replicas) == 0 {
				res.Skipped = append(res.Skipped, fmt.Sprintf("topic %s partition %d: no replicas", t.Name, p.ID))
				st.parts = nil
				break
			}
			st.parts = append(st.parts, kraftcheckpoint.Partition{Partition: p.ID, TopicID: st.topic.ID, Replicas: replicas,
				ISR: slices.Clone(replicas), Removing: []int32{}, Adding: []int32{}, Leader: replicas[0]})
		}
		if len(st.parts) > 0 {
			out = append(out, st)
		}
	}
	for b := range brokers {
		res.BrokerIDs = append(res.BrokerIDs, b)
	}
	slices.Sort(res.BrokerIDs)
	res.Topics = len(out)
	return out, nil
}

// readSourceTokens reads /delegation_token/tokens: each token's metadata
// (its HMAC is never stored; Kafka derives it from the id and the secret
// key). Expired tokens are left out and named; unreadable ones are
// skipped and named.
func readSourceTokens(conn zkread.Source, res *bootResult, now time.Time) ([]kraftcheckpoint.DelegationToken, error) {
	ids, err := conn.Children("/delegation_token/tokens")
	if errors.Is(err, zktree.ErrNoNode) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list /delegation_token/tokens: %v", err)
	}
	slices.Sort(ids)
	var out []kraftcheckpoint.DelegationToken
	for _, id := range ids {
		p := "/delegation_token/tokens/" + id
		data, _, err := conn.Get(p)
		if errors.Is(err, zktree.ErrNoNode) {
			continue
		}
		if err != nil {
			res.Skipped = append(res.Skipped, p+": "+err.Error())
			continue
		}
		t, err := zkread.ParseDelegationToken(id, data)
		if err != nil {
			res.Skipped = append(res.Skipped, p+": "+strings.TrimPrefix(err.Error(), "zkread: "))
			continue
		}
		if t.ExpiryTimestamp < now.UnixMilli() || t.MaxTimestamp < now.UnixMilli() {
			res.Expired = append(res.Expired, t.TokenID)
			continue
		}
		out = append(out, kraftcheckpoint.DelegationToken{Owner: t.Owner, Requester: t.Requester, Renewers: t.Renewers,
			IssueTimestamp: t.IssueTimestamp, MaxTimestamp: t.MaxTimestamp, ExpirationTime: t.ExpiryTimestamp, TokenID: t.TokenID})
	}
	res.Tokens = len(out)
	return out, nil
}

// openBootstrapSource connects to the source ZooKeeper (read only). Tests
// replace it with a captured tree.
var openBootstrapSource = func(ctx context.Context, f *sourceFlags) (zkread.Source, string, func(), error) {
	if f.disk.set() {
		res, err := zkdisk.Read(zkdisk.Options{DataDir: f.disk.dataDir, LogDir: f.disk.logDir, Zxid: f.disk.zxid, Time: f.disk.at})
		if err != nil {
			return nil, "", nil, fmt.Errorf("--zk-data-dir: %w", err)
		}
		if len(res.Warnings) > 0 {
			w := res.Warnings[0]
			return nil, "", nil, fmt.Errorf("--zk-data-dir: %s: %s (offset %d); bootstrap reads only an undamaged data directory", w.File, w.Message, w.Offset)
		}
		tree, err := res.Tree(f.disk.chroot)
		if err != nil {
			return nil, "", nil, err
		}
		dir, _ := filepath.Abs(res.SnapDir)
		return tree, dir + f.disk.chroot + fmt.Sprintf(" at zxid %#x", res.Zxid), func() {}, nil
	}
	conn, err := zkconn.Dial(ctx, zkconn.Options{Connect: f.zookeeper, Auth: f.zkAuth, TLSConfigFile: f.zkTLSConfigFile,
		ConnectTimeout: f.zkTimeout, RequestTimeout: f.zkTimeout, RetryTimeout: f.zkTimeout})
	if err != nil {
		return nil, "", nil, err
	}
	return conn, conn.Address(), conn.Close, nil
}

// extend works out what the checkpoint gets: every credential whose user
// and mechanism it does not hold yet; the others are kept as they are.
// added counts the records a target gets.
func (t *bootTarget) added() int { return len(t.Added) + len(t.AddedTokens) + len(t.AddedTopics) }

func (t *bootTarget) extend(creds []kraftcheckpoint.ScramCredential, tokens []kraftcheckpoint.DelegationToken, topics []seedTopic, now time.Time) error {
	type um struct {
		user string
		m    kraftcheckpoint.Mechanism
	}
	have := map[um]bool{}
	for _, c := range t.cp.Scram() {
		have[um{c.Name, c.Mechanism}] = true
	}
	var add []kraftcheckpoint.ScramCredential
	t.Added, t.Kept = []bootUser{}, []bootUser{}
	for _, c := range creds {
		u := bootUser{User: c.Name, Mechanism: c.Mechanism.String(), Iterations: c.Iterations}
		if have[um{c.Name, c.Mechanism}] {
			t.Kept = append(t.Kept, u)
			continue
		}
		add = append(add, c)
		t.Added = append(t.Added, u)
	}
	var values [][]byte
	for _, c := range add {
		if err := c.Validate(); err != nil {
			return fmt.Errorf("%s: %v", t.File, err)
		}
		values = append(values, kraftcheckpoint.ScramValue(c))
	}
	haveToken := map[string]bool{}
	for _, tk := range t.cp.Tokens() {
		haveToken[tk.TokenID] = true
	}
	for _, tk := range tokens {
		if haveToken[tk.TokenID] {
			t.KeptTokens = append(t.KeptTokens, tk.TokenID)
			continue
		}
		values = append(values, kraftcheckpoint.DelegationTokenValue(tk))
		t.AddedTokens = append(t.AddedTokens, tk.TokenID)
	}
	haveTopic := map[string]bool{}
	for _, tp := range t.cp.Topics() {
		haveTopic[tp.Name] = true
	}
	for _, st := range topics {
		if haveTopic[st.topic.Name] {
			t.KeptTopics = append(t.KeptTopics, st.topic.Name)
			continue
		}
		values = append(values, kraftcheckpoint.TopicValue(st.topic))
		for _, p := range st.parts {
			values = append(values, kraftcheckpoint.PartitionValue(p))
		}
		t.AddedTopics = append(t.AddedTopics, st.topic.Name)
	}
	if len(t.AddedTokens) > 0 && t.MetadataVersion < kraftcheckpoint.MinDelegationTokenMetadataVersion {
		return fmt.Errorf("%s: metadata.version level %d has no delegation tokens (3.6-IV2, level %d, or later); leave out --delegation-tokens or format with a later --release-version",
			t.File, t.MetadataVersion, kraftcheckpoint.MinDelegationTokenMetadataVersion)
	}
	if len(values) == 0 {
		t.data = t.cp.Bytes()
	} else {
		data, err := t.cp.AppendValues(values, now)
		if err != nil {
			return fmt.Errorf("%s: %v", t.File, err)
		}
		if _, err := kraftcheckpoint.Parse(data); err != nil { // never write what would not read back
			return fmt.Errorf("%s: the extended checkpoint does not parse: %v", t.File, err)
		}
		t.data = data
	}
	sum := sha256.Sum256(t.data)
	t.SHA256 = hex.EncodeToString(sum[:])
	return nil
}

// writeCheckpoint writes data to path atomically: a temporary file in the
// same directory, mode 0600, owned as the file it replaces, synced, renamed
// over it, and the directory synced.
func writeCheckpoint(path string, data []byte, origin os.FileInfo) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".zkmigrate-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if st, ok := statOf(origin); ok && int(st.Uid) != os.Geteuid() {
		// Kafka reads the file as the user that owns its directory.
		if err := tmp.Chown(int(st.Uid), int(st.Gid)); err != nil {
			tmp.Close()
			return fmt.Errorf("cannot give the new file the owner of the old one (uid %d), whom Kafka runs as: %v", st.Uid, err)
		}
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// secretForms are a credential's key bytes as they could be spelled (hex,
// base64), for the audit trail's scrubber.
func secretForms(c kraftcheckpoint.ScramCredential) []string {
	var out []string
	for _, b := range [][]byte{c.Salt, c.StoredKey, c.ServerKey} {
		out = append(out, hex.EncodeToString(b), base64.StdEncoding.EncodeToString(b), base64.RawStdEncoding.EncodeToString(b))
	}
	return out
}

// recordBootstrap records in the audit trail which users were seeded into
// (or kept in) which file, and the written file's SHA-256.
func recordBootstrap(ctx context.Context, run *audit.Run, res *bootResult) {
	verb := "seeded"
	if res.DryRun {
		verb = "would-seed"
	}
	for _, s := range res.Skipped {
		_ = run.Note(ctx, "bootstrap-skipped", s)
	}
	for _, t := range res.Targets {
		for _, u := range t.Added {
			_ = run.Note(ctx, "bootstrap-"+verb, fmt.Sprintf("%s (%d iterations) into %s", u, u.Iterations, t.Out))
		}
		for _, u := range t.Kept {
			_ = run.Note(ctx, "bootstrap-kept", fmt.Sprintf("%s already in %s: kept as it is, the source's not added", u, t.Out))
		}
		for _, id := range t.AddedTokens {
			_ = run.Note(ctx, "bootstrap-"+verb, fmt.Sprintf("delegation token %s into %s", id, t.Out))
		}
		for _, name := range t.AddedTopics {
			_ = run.Note(ctx, "bootstrap-"+verb, fmt.Sprintf("topic %s with its topic id into %s", name, t.Out))
		}
		if t.Written {
			_ = run.Note(ctx, "bootstrap-file", fmt.Sprintf("%s sha256:%s (%d SCRAM credentials, %d delegation tokens, %d topics added)", t.Out, t.SHA256, len(t.Added), len(t.AddedTokens), len(t.AddedTopics)))
		}
	}
}

func writeBootstrapText(w io.Writer, res *bootResult) {
	src := res.Source
	if res.ClusterID != "" {
		src += " (cluster id " + res.ClusterID + ")"
	}
	fmt.Fprintf(w, "Source ZooKeeper %s: %d SCRAM credential(s)\n", src, res.Found)
	for _, s := range res.Skipped {
		fmt.Fprintf(w, "  skipped  %s\n", s)
	}
	if res.Tokens > 0 || len(res.Expired) > 0 {
		fmt.Fprintf(w, "Delegation tokens: %d to seed", res.Tokens)
		if len(res.Expired) > 0 {
			fmt.Fprintf(w, "; %d expired, left out: %s", len(res.Expired), strings.Join(res.Expired, ", "))
		}
		fmt.Fprintln(w)
	}
	if res.Topics > 0 || len(res.NoTopicID) > 0 {
		fmt.Fprintf(w, "Topics: %d to create with their topic ids; the target's brokers must have node ids %v (a partition on a broker that never registers has no leader)\n", res.Topics, res.BrokerIDs)
		if len(res.NoTopicID) > 0 {
			fmt.Fprintf(w, "  without a topic id (left to plan/apply, which creates them with new ids): %s\n", strings.Join(res.NoTopicID, ", "))
		}
		if len(res.Pending) > 0 {
			fmt.Fprintf(w, "  pending deletion on the source, left out: %s\n", strings.Join(res.Pending, ", "))
		}
	}
	for _, t := range res.Targets {
		fmt.Fprintf(w, "\n%s", t.Out)
		if t.ClusterID != "" {
			fmt.Fprintf(w, " (cluster id %s, node %s)", t.ClusterID, t.NodeID)
		}
		fmt.Fprintf(w, ": metadata.version level %d, %d record(s)\n", t.MetadataVersion, t.Records)
		for _, u := range t.Kept {
			fmt.Fprintf(w, "  keep     %s: already in the checkpoint, kept as it is (the source's is not added)\n", u)
		}
		for _, u := range t.Added {
			fmt.Fprintf(w, "  add      %s (%d iterations)\n", u, u.Iterations)
		}
		for _, id := range t.KeptTokens {
			fmt.Fprintf(w, "  keep     delegation token %s: already in the checkpoint\n", id)
		}
		for _, id := range t.AddedTokens {
			fmt.Fprintf(w, "  add      delegation token %s\n", id)
		}
		for _, name := range t.KeptTopics {
			fmt.Fprintf(w, "  keep     topic %s: already in the checkpoint\n", name)
		}
		for _, name := range t.AddedTopics {
			fmt.Fprintf(w, "  add      topic %s with its topic id\n", name)
		}
		n := t.added()
		switch {
		case n == 0:
			fmt.Fprintln(w, "  nothing to add; the file is left as it is")
		case res.DryRun:
			fmt.Fprintf(w, "  dry run: would add %d record(s); nothing written\n", n)
		case t.Written:
			fmt.Fprintf(w, "  wrote %d record(s) more; sha256 %s\n", n, t.SHA256)
		default:
			fmt.Fprintln(w, "  not written")
		}
	}
	if !res.DryRun {
		fmt.Fprintln(w, "\nNext: start the controllers (every one bootstrapped), then the brokers; then migrate plan / apply for the rest.")
	}
}

// showCheckpoint is --show: the records of a checkpoint by kind, the
// feature levels and the SCRAM users and mechanisms, never key bytes.
func showCheckpoint(e *env, path, output string) int {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, kraftcheckpoint.FileName)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return fail(e, "bootstrap", err)
	}
	cp, err := kraftcheckpoint.Parse(data)
	if err != nil {
		return fail(e, "bootstrap", fmt.Errorf("%s: %v", path, strings.TrimPrefix(err.Error(), "kraftcheckpoint: ")))
	}
	type kind struct {
		Type  string `json:"type"`
		Count int    `json:"count"`
	}
	type feature struct {
		Name  string `json:"name"`
		Level int16  `json:"level"`
	}
	var out struct {
		File     string     `json:"file"`
		Batches  int        `json:"batches"`
		Records  int        `json:"records"`
		Kinds    []kind     `json:"kinds"`
		Features []feature  `json:"features"`
		Scram    []bootUser `json:"scram_users"`
		Tokens   []string   `json:"delegation_tokens,omitempty"`
		Topics   []string   `json:"topics,omitempty"`
	}
	out.File, out.Batches, out.Kinds, out.Features, out.Scram = path, len(cp.Batches), []kind{}, []feature{}, []bootUser{}
	idx := map[string]int{}
	for _, r := range cp.Records() {
		n := kraftcheckpoint.RecordTypeName(r.Type)
		if _, ok := idx[n]; !ok {
			idx[n] = len(out.Kinds)
			out.Kinds = append(out.Kinds, kind{Type: n})
		}
		out.Kinds[idx[n]].Count++
		out.Records++
	}
	for _, f := range cp.Features() {
		out.Features = append(out.Features, feature{f.Name, f.Level})
	}
	for _, c := range cp.Scram() {
		out.Scram = append(out.Scram, bootUser{User: c.Name, Mechanism: c.Mechanism.String(), Iterations: c.Iterations})
	}
	for _, tk := range cp.Tokens() {
		out.Tokens = append(out.Tokens, tk.TokenID+" (owner "+tk.Owner+")")
	}
	for _, tp := range cp.Topics() {
		out.Topics = append(out.Topics, tp.Name+" (id "+base64.RawURLEncoding.EncodeToString(tp.ID[:])+")")
	}
	if output == "json" {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(out)
		return exitOK
	}
	w := e.stdout
	fmt.Fprintf(w, "%s: %d records in %d batches (snapshot header and footer not counted)\n", path, out.Records, out.Batches)
	for _, k := range out.Kinds {
		fmt.Fprintf(w, "  %-28s %d\n", k.Type, k.Count)
	}
	fmt.Fprintln(w, "Feature levels:")
	for _, f := range out.Features {
		fmt.Fprintf(w, "  %-34s %d\n", f.Name, f.Level)
	}
	fmt.Fprintf(w, "SCRAM credentials (%d; keys never shown):\n", len(out.Scram))
	for _, u := range out.Scram {
		fmt.Fprintf(w, "  %s (%d iterations)\n", u, u.Iterations)
	}
	if len(out.Topics) > 0 {
		fmt.Fprintf(w, "Topics (%d):\n", len(out.Topics))
		for _, tp := range out.Topics {
			fmt.Fprintf(w, "  %s\n", tp)
		}
	}
	if len(out.Tokens) > 0 {
		fmt.Fprintf(w, "Delegation tokens (%d):\n", len(out.Tokens))
		for _, tk := range out.Tokens {
			fmt.Fprintf(w, "  %s\n", tk)
		}
	}
	return exitOK
}

func statOf(fi os.FileInfo) (*syscall.Stat_t, bool) {
	if fi == nil {
		return nil, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return st, ok
}
