package migration

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/audit"
	"github.com/zkmigrate/zkmigrate/internal/kraftcheckpoint"
	"github.com/zkmigrate/zkmigrate/internal/kraftseed"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/zkconn"
	"github.com/zkmigrate/zkmigrate/internal/zkdisk"
	"github.com/zkmigrate/zkmigrate/internal/zkread"
)

// MinTokenMetadataVersion is the first metadata.version level that holds
// delegation tokens (3.6-IV2), for the wording of a
// kraftseed.TokenVersionError.
const MinTokenMetadataVersion = kraftcheckpoint.MinDelegationTokenMetadataVersion

// OpenZooKeeper opens r's ZooKeeper tree for a read that takes what it
// needs itself (bootstrap's seed, kraftseed.ReadSource): the live ensemble
// (read only; r.ZooKeeper) or its data directory (r.DataDir), refusing a
// damaged one. It returns the source, its address for the record, and
// how to close it.
func OpenZooKeeper(ctx context.Context, r SourceRequest) (zkread.Source, string, func(), error) {
	if d := r.DataDir; d != nil {
		res, err := zkdisk.Read(zkdisk.Options{DataDir: d.Dir, LogDir: d.LogDir, Zxid: d.Zxid, Time: d.Time, Chroot: d.Chroot})
		if err != nil {
			return nil, "", nil, &InputError{Input: InputZKDataDir, Err: err}
		}
		if len(res.Warnings) > 0 {
			w := res.Warnings[0]
			return nil, "", nil, &InputError{Input: InputZKDataDir,
				Err: fmt.Errorf("%s: %s (offset %d); bootstrap reads only an undamaged data directory", w.File, w.Message, w.Offset)}
		}
		tree, err := res.Tree(d.Chroot)
		if err != nil {
			return nil, "", nil, err
		}
		dir, _ := filepath.Abs(res.SnapDir)
		return tree, dir + d.Chroot + fmt.Sprintf(" at zxid %#x", res.Zxid), func() {}, nil
	}
	z := r.ZooKeeper
	if z == nil {
		return nil, "", nil, fmt.Errorf("no ZooKeeper source: give an ensemble or its data directory")
	}
	conn, err := zkconn.Dial(ctx, zkconn.Options{Connect: z.Connect, Auth: z.Auth, TLSConfigFile: z.TLSConfigFile,
		ConnectTimeout: z.Timeout, RequestTimeout: z.Timeout, RetryTimeout: z.Timeout})
	if err != nil {
		return nil, "", nil, err
	}
	return conn, conn.Address(), conn.Close, nil
}

// BootstrapSeed records what a bootstrap read: the run's endpoints, and
// the seed's SCRAM key bytes, as they could be spelled (hex, base64), for
// the audit trail to scrub should one ever reach it.
func (r *Recorder) BootstrapSeed(ctx context.Context, seed kraftseed.Seed, source, target audit.Endpoint) {
	if !r.OK() {
		return
	}
	for _, c := range seed.Creds {
		for _, b := range [][]byte{c.Salt, c.StoredKey, c.ServerKey} {
			r.run.AddSecrets(hex.EncodeToString(b), base64.StdEncoding.EncodeToString(b), base64.RawStdEncoding.EncodeToString(b))
		}
	}
	_ = r.run.SetEndpoints(ctx, source, target)
}

// Bootstrap records which users were seeded into (or kept in) which file,
// the delegation tokens and topics added, and each written file's SHA-256.
func (r *Recorder) Bootstrap(ctx context.Context, res *kraftseed.Result) {
	if !r.OK() {
		return
	}
	run := r.run
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

// BootstrapRequest is what seeding fresh KRaft clusters' bootstrap
// checkpoints needs: the targets (kraftseed.Load), the source ZooKeeper
// (opened by Open: OpenZooKeeper, or a captured tree in tests), what to
// read from it, and whether to write.
type BootstrapRequest struct {
	Targets []kraftseed.Target
	Source  SourceRequest
	Open    func(ctx context.Context, r SourceRequest) (zkread.Source, string, func(), error)
	Read    kraftseed.SourceOptions
	DryRun  bool
}

// Bootstrap reads the source's SCRAM keys (and delegation tokens and topic
// ids, as asked), extends every target's checkpoint and writes them unless
// DryRun, recording it all in rec. err stops it before anything is
// written; writeErr is a failure to write, after res says what was meant.
func Bootstrap(ctx context.Context, r BootstrapRequest, rec *Recorder) (res *kraftseed.Result, writeErr, err error) {
	res = &kraftseed.Result{DryRun: r.DryRun}
	if r.Source.ZooKeeper != nil {
		res.Source = r.Source.ZooKeeper.Connect
	}
	src, addr, closeSrc, err := r.Open(ctx, r.Source)
	if err != nil {
		return nil, nil, err
	}
	seed, err := kraftseed.ReadSource(ctx, src, addr, r.Read, res)
	closeSrc()
	if err != nil {
		return nil, nil, err
	}
	var files []string
	for _, t := range r.Targets {
		files = append(files, t.Out)
	}
	rec.BootstrapSeed(ctx, seed, audit.Endpoint{Kind: snapshot.SourceZooKeeper, Address: res.Source, ClusterID: res.ClusterID},
		audit.Endpoint{Kind: "bootstrap-checkpoint", Address: strings.Join(files, ","), ClusterID: r.Targets[0].ClusterID})
	for i := range r.Targets {
		if err := r.Targets[i].Extend(seed, time.Now()); err != nil {
			return nil, nil, err
		}
	}
	if !r.DryRun {
		writeErr = kraftseed.Write(r.Targets)
	}
	res.Targets = r.Targets
	rec.Bootstrap(ctx, res)
	return res, writeErr, nil
}

// BootstrapTargets takes the metadata directories' lock (unless dryRun:
// one writer per directory, held from the read of the checkpoints to
// their write, so a second bootstrap waits at most wait and then extends
// what this one wrote) and loads the checkpoints to extend: the targets
// first, so that a refusal costs no ZooKeeper session. release gives the
// lock back (a no-op for a dry run). Refusals are kraftseed's typed
// errors (DirError, TokenVersionError).
func BootstrapTargets(ctx context.Context, to kraftseed.TargetOptions, dryRun bool, wait time.Duration) (targets []kraftseed.Target, release func(), err error) {
	release = func() {}
	if !dryRun {
		locks, err := kraftseed.Lock(ctx, to, wait)
		if err != nil {
			return nil, release, err
		}
		release = locks.Release
	}
	if targets, err = kraftseed.Load(to); err != nil {
		release()
		return nil, func() {}, err
	}
	return targets, release, nil
}

// BootstrapEnd is how a bootstrap that read its source ended: written
// (or dry run) with or without records skipped, or a write that failed
// after some targets were written or none.
func BootstrapEnd(res *kraftseed.Result, writeErr error) Outcome {
	if writeErr != nil {
		return BootstrapWriteFailed(slices.ContainsFunc(res.Targets, func(t kraftseed.Target) bool { return t.Written }))
	}
	return BootstrapOutcome(res.DryRun, len(res.Skipped) > 0)
}
