package zkdisk

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/zktree"
)

// Options say where the files are and which point in time to read.
type Options struct {
	// DataDir is ZooKeeper's dataDir or its version-2 folder: the snapshots,
	// and the transaction logs unless LogDir is set.
	DataDir string
	// LogDir is ZooKeeper's dataLogDir (or its version-2) when the logs are
	// kept apart from the snapshots.
	LogDir string
	// Zxid, when > 0, stops the replay after this zxid.
	Zxid int64
	// Time, when set (nil: the newest state), stops the replay before the
	// first transaction whose time (the leader's clock, in the transaction
	// header) is after it. Any time is a point, Go's zero time included.
	Time *time.Time
	// Chroot, when set (not "" or "/"), keeps only the znodes the read
	// under it needs: the chroot, every node below it, and its ancestors;
	// Result.Tree then takes this chroot (or one below it). The others,
	// ZooKeeper's own /zookeeper among them, are left out while the files
	// are parsed and replayed.
	Chroot string
	// Skip, when set, leaves out of the result's tree every node whose
	// (absolute) path it reports true for, nodes the caller will not read.
	// They are left out while the snapshot and logs are parsed and
	// replayed: only their existence is tracked (a hash of the path), and
	// their zxids count for the fuzzy snapshot's bound. nil keeps every
	// node.
	Skip func(path string) bool
	// MaxBytes caps the bytes the read takes from the directory, the
	// snapshots and logs together, decompressed (0: DefaultMaxBytes). More
	// is an error, a *CapError.
	MaxBytes int64
}

// keeper returns which znodes a read keeps (nil: all).
func keeper(chroot string, skip func(string) bool) func(string) bool {
	chroot = strings.TrimSuffix(chroot, "/")
	if chroot == "" || !strings.HasPrefix(chroot, "/") { // Result.Tree refuses the latter
		return skip2keep(skip)
	}
	return func(p string) bool {
		in := p == "/" || p == chroot || strings.HasPrefix(p, chroot+"/") || strings.HasPrefix(chroot, p+"/")
		return in && (skip == nil || !skip(p))
	}
}

func skip2keep(skip func(string) bool) func(string) bool {
	if skip == nil {
		return nil
	}
	return func(p string) bool { return !skip(p) }
}

// ErrBeforeHistory marks a wanted time (Options.Time) before everything the
// directory holds: before its oldest transaction, or, without one, before
// the changes its snapshots hold.
var ErrBeforeHistory = errors.New("the time is before the history in the directory")

// historyError is an ErrBeforeHistory with its own message.
type historyError struct{ msg string }

func (e *historyError) Error() string        { return e.msg }
func (e *historyError) Is(target error) bool { return target == ErrBeforeHistory }

// Warning is damage met while reading: the replay stopped before it, or a
// file was skipped.
type Warning struct {
	File    string
	Offset  int64 // -1 when the whole file is meant
	Message string
}

func (w Warning) String() string {
	if w.Offset < 0 {
		return w.File + ": " + w.Message
	}
	return fmt.Sprintf("%s: offset %d: %s", w.File, w.Offset, w.Message)
}

// Result is the tree at the point read, and how it was reached.
type Result struct {
	// SnapDir and LogDir are the version-2 folders read.
	SnapDir, LogDir string
	// Snapshot is the snapshot file the replay started from; "" when it
	// started from the empty tree (a 3.4 data dir before its first snapshot).
	Snapshot string
	// Zxid is the last transaction applied (the snapshot's zxid when none).
	Zxid int64
	// Time is that transaction's time (zero when only the snapshot was used).
	Time time.Time
	// Applied counts the transactions applied after the snapshot.
	Applied  int
	Warnings []Warning
	tree     *zktree.Tree // the whole tree, sorted
}

// Tree returns the tree under chroot ("" or "/" for the whole tree) with
// paths relative to it, as the reader expects. The whole tree is shared,
// not copied; under a chroot the nodes are copied into a list of their
// number (the subtree is one run of the sorted tree), their paths and data
// shared.
func (r *Result) Tree(chroot string) (*zktree.Tree, error) {
	chroot = strings.TrimSuffix(chroot, "/")
	if chroot == "" {
		return r.tree, nil
	}
	if !strings.HasPrefix(chroot, "/") {
		return nil, fmt.Errorf("chroot %q: want an absolute path such as /kafka", chroot)
	}
	nodes := r.tree.Nodes
	at := func(p string) int {
		i, _ := slices.BinarySearchFunc(nodes, p, func(n zktree.Node, p string) int { return strings.Compare(n.Path, p) })
		return i
	}
	root := at(chroot)
	if root == len(nodes) || nodes[root].Path != chroot {
		return nil, fmt.Errorf("chroot %s: no such znode in %s at zxid %#x", chroot, r.SnapDir, r.Zxid)
	}
	// Below it: the paths from chroot+"/" up to chroot+"0" ('/'+1).
	lo, hi := at(chroot+"/"), at(chroot+"0")
	t := &zktree.Tree{Nodes: make([]zktree.Node, 0, 1+hi-lo)}
	n := nodes[root]
	n.Path = "/"
	t.Nodes = append(t.Nodes, n)
	for _, n := range nodes[lo:hi] {
		n.Path = n.Path[len(chroot):] // still sorted: they all had the prefix
		t.Nodes = append(t.Nodes, n)
	}
	return t, nil
}

// sortedTree turns the replayed nodes into a zktree.Tree.
func sortedTree(nodes map[string]*Node) *zktree.Tree {
	t := &zktree.Tree{Nodes: make([]zktree.Node, 0, len(nodes))}
	for p, n := range nodes {
		t.Nodes = append(t.Nodes, zktree.Node{Path: p, Data: n.Data, Czxid: n.Czxid, Mzxid: n.Mzxid, Version: n.Version, Ephemeral: n.EphemeralOwner != 0})
	}
	t.Sort()
	return t
}

// Read loads the newest valid snapshot at or before the wanted point and
// replays the transaction logs onto it, as ZooKeeper does when it starts.
// Damage is a Warning and the last consistent point before it is used; an
// error means nothing usable was found (no snapshot, unreadable folder).
func Read(opt Options) (*Result, error) {
	keep := keeper(opt.Chroot, opt.Skip)
	capped := newBudget(opt.MaxBytes)
	snapDir, err := versionDir(opt.DataDir)
	if err != nil {
		return nil, err
	}
	logDir := snapDir
	if opt.LogDir != "" {
		if logDir, err = versionDir(opt.LogDir); err != nil {
			return nil, err
		}
	}
	snaps, err := listFiles(snapDir, "snapshot")
	if err != nil {
		return nil, err
	}
	logs, err := listFiles(logDir, "log")
	if err != nil {
		return nil, err
	}
	if len(snaps) == 0 && len(logs) == 0 {
		return nil, fmt.Errorf("%s: no ZooKeeper snapshot or log files (snapshot.<zxid>, log.<zxid>): give ZooKeeper's dataDir or its version-2 folder", snapDir)
	}
	if len(snaps) == 0 || (len(logs) > 0 && logs[0].zxid <= 1 && snaps[0].zxid > 0) {
		// ZooKeeper 3.4 writes no snapshot until snapCount transactions:
		// it starts from an empty tree and replays every log from zxid 1.
		snaps = append([]dirFile{{zxid: 0}}, snaps...)
	}
	res := &Result{SnapDir: snapDir, LogDir: logDir}
	target := int64(math.MaxInt64)
	if opt.Zxid > 0 {
		target = opt.Zxid
	}
	if opt.Time != nil {
		cut, ws, err := cutAtTime(logs, *opt.Time, capped)
		res.warn(ws...)
		if capErr(err) {
			return res, err
		}
		if err != nil {
			return res, fmt.Errorf("%s: %w", logDir, err)
		}
		target = min(target, cut)
	}
	// Newest snapshot first, as FileSnap does; a damaged one is skipped.
	for i := len(snaps) - 1; i >= 0; i-- {
		sf := snaps[i]
		if sf.zxid > target {
			continue
		}
		snap, err := readSnapshotFile(sf.path, keep, capped)
		if sf.path == "" {
			snap, err = emptySnapshot(keep), nil
		}
		if capErr(err) {
			return res, err // the cap is for the whole read: no older snapshot is tried
		}
		if err != nil {
			res.warn(warningOf(err, sf.path))
			continue
		}
		older := slices.ContainsFunc(snaps[:i], func(f dirFile) bool { return f.zxid <= target })
		// The snapshot is fuzzy: written while transactions applied, it may
		// hold changes up to the zxid that was last when it finished. Only
		// from there on is the tree consistent. 3.9 records that zxid; for
		// older files the highest zxid in any stat is a lower bound.
		consistent := fuzzyEnd(snap)
		if opt.Time != nil && snap.Newest > opt.Time.UnixMilli() {
			// Made after the wanted time (a snapshot-only directory has no
			// log to place the time in).
			res.warn(Warning{File: sf.path, Offset: -1, Message: fmt.Sprintf("holds changes made after %s (the newest at %s)",
				opt.Time.UTC().Format(time.RFC3339), time.UnixMilli(snap.Newest).UTC().Format(time.RFC3339))})
			if !older {
				return res, fmt.Errorf("%s: %w", snapDir, &historyError{fmt.Sprintf("%s is before every snapshot in the directory (%s holds changes made up to %s) and no log reaches back to it",
					opt.Time.UTC().Format(time.RFC3339), filepath.Base(sf.path), time.UnixMilli(snap.Newest).UTC().Format(time.RFC3339))})
			}
			continue
		}
		if consistent > target && older {
			res.warn(Warning{File: sf.path, Offset: -1, Message: fmt.Sprintf("holds changes up to zxid %#x, after the wanted point %#x; using an older snapshot", consistent, target)})
			continue
		}
		st := newTree(snap, keep)
		reached, at, applied, ended, ws, err := replay(st, logs, snap.Zxid, target, capped)
		if err != nil {
			return res, err
		}
		if reached < consistent && older {
			res.warn(ws...)
			res.warn(Warning{File: sf.path, Offset: -1, Message: fmt.Sprintf("the logs end at zxid %#x, before this snapshot is consistent (zxid %#x); using an older snapshot", reached, consistent)})
			target = reached
			continue
		}
		res.warn(ws...)
		if reached < consistent {
			res.warn(Warning{File: sf.path, Offset: -1, Message: fmt.Sprintf("the point read, zxid %#x, lies inside this fuzzy snapshot's window (consistent from zxid %#x) and there is no older snapshot: znodes changed in between may show their later state", reached, consistent)})
		}
		if opt.Zxid > 0 && reached < opt.Zxid && ended && len(res.Warnings) == 0 {
			return res, fmt.Errorf("%s: zxid %#x is past the last transaction in %s (%#x)", snapDir, opt.Zxid, logDir, reached)
		}
		// The replay's map goes here: only the sorted tree stays in memory.
		res.Snapshot, res.Zxid, res.Applied, res.tree = sf.path, reached, applied, sortedTree(st.nodes)
		if at != 0 {
			res.Time = time.UnixMilli(at).UTC()
		}
		return res, nil
	}
	if target != math.MaxInt64 {
		return res, fmt.Errorf("%s: no valid snapshot at or before zxid %#x%s", snapDir, target, warnSuffix(res.Warnings))
	}
	return res, fmt.Errorf("%s: no valid snapshot%s", snapDir, warnSuffix(res.Warnings))
}

func warnSuffix(ws []Warning) string {
	if len(ws) == 0 {
		return ""
	}
	var b strings.Builder
	for _, w := range ws {
		b.WriteString("; " + w.String())
	}
	return b.String()
}

func (r *Result) warn(ws ...Warning) {
	for _, w := range ws {
		if !slices.Contains(r.Warnings, w) {
			r.Warnings = append(r.Warnings, w)
		}
	}
}

func warningOf(err error, file string) Warning {
	var fe *FormatError
	if errors.As(err, &fe) {
		return Warning{File: fe.File, Offset: fe.Offset, Message: fe.Reason}
	}
	return Warning{File: file, Offset: -1, Message: err.Error()}
}

// fuzzyEnd is the zxid from which a snapshot's tree is known consistent.
func fuzzyEnd(s *Snapshot) int64 {
	end := max(s.Zxid, s.LastProcessedZxid)
	if s.LastProcessedZxid == 0 {
		end = max(end, s.statZxid) // every znode's, those left out too
		for _, n := range s.Nodes {
			end = max(end, n.Czxid, n.Mzxid, n.Pzxid)
		}
	}
	return end
}

// follows reports whether zxid next may directly follow last: the next
// counter in the same epoch, or the start of a later epoch (a new leader
// numbers from 1).
func follows(last, next int64) bool {
	if next == last+1 {
		return true
	}
	return next>>32 > last>>32 && next&0xffffffff <= 1
}

// replay applies the logs' transactions after zxid from up to target.
// It returns the last zxid applied (from when none), its time, how many
// were applied, whether the logs ended before target, and the damage that
// stopped it; an error only when the read's cap is reached.
func replay(t *tree, logs []dirFile, from, target int64, b *budget) (last, at int64, applied int, ended bool, ws []Warning, err error) {
	last = from
	for _, lf := range logsFor(logs, from) {
		l, err := openLog(lf.path, b)
		if capErr(err) {
			return last, at, applied, false, ws, err
		}
		if err != nil {
			ws = append(ws, warningOf(err, lf.path))
			continue
		}
		for {
			txn, err := l.Next()
			if err == io.EOF {
				break
			}
			if capErr(err) {
				l.Close()
				return last, at, applied, false, ws, err
			}
			if err != nil {
				ws = append(ws, warningOf(err, lf.path))
				break
			}
			if txn.Zxid <= last {
				continue // before the snapshot, or seen in an older log
			}
			if txn.Zxid > target {
				l.Close()
				return last, at, applied, false, ws, nil
			}
			if !follows(last, txn.Zxid) {
				ws = append(ws, Warning{File: lf.path, Offset: txn.Offset, Message: fmt.Sprintf("transactions %#x to %#x are missing (a purged or lost log); stopping at zxid %#x", last+1, txn.Zxid-1, last)})
				l.Close()
				return last, at, applied, false, ws, nil
			}
			t.apply(txn)
			last, at = txn.Zxid, txn.Time
			applied++
			if last == target { // nothing after it is read (a live log may be mid-write there)
				l.Close()
				return last, at, applied, false, ws, nil
			}
		}
		l.Close()
	}
	return last, at, applied, true, ws, nil
}

func capErr(err error) bool {
	var ce *CapError
	return errors.As(err, &ce)
}

// cutAtTime returns the last zxid before the first transaction later than
// at (math.MaxInt64 when none is later). When even the oldest transaction
// in the logs is later, the point is zxid 0 if the logs hold the whole
// history (they start at zxid 1), and unknowable otherwise.
func cutAtTime(logs []dirFile, at time.Time, b *budget) (int64, []Warning, error) {
	ms := at.UnixMilli()
	var ws []Warning
	last := int64(-1)
	for _, lf := range logs {
		l, err := openLog(lf.path, b)
		if capErr(err) {
			return 0, ws, err
		}
		if err != nil {
			ws = append(ws, warningOf(err, lf.path))
			continue
		}
		for {
			txn, err := l.Next()
			if capErr(err) {
				l.Close()
				return 0, ws, err
			}
			if err != nil {
				if err != io.EOF {
					ws = append(ws, warningOf(err, lf.path))
				}
				break
			}
			if txn.Zxid <= last {
				continue
			}
			if txn.Time > ms {
				l.Close()
				if last == -1 && txn.Zxid > 1 {
					return 0, ws, &historyError{fmt.Sprintf("%s is before the oldest transaction in the logs (zxid %#x at %s): the history before it is not in the directory",
						at.UTC().Format(time.RFC3339), txn.Zxid, time.UnixMilli(txn.Time).UTC().Format(time.RFC3339))}
				}
				if last == -1 {
					return 0, ws, &historyError{fmt.Sprintf("%s is before the first transaction (zxid %#x at %s): ZooKeeper held no data yet",
						at.UTC().Format(time.RFC3339), txn.Zxid, time.UnixMilli(txn.Time).UTC().Format(time.RFC3339))}
				}
				return txn.Zxid - 1, ws, nil
			}
			last = txn.Zxid
		}
		l.Close()
	}
	return math.MaxInt64, ws, nil
}

// logsFor picks the log files that can hold transactions after zxid: the
// last one starting at or before it and all later ones (FileTxnLog.getLogFiles).
func logsFor(logs []dirFile, zxid int64) []dirFile {
	start := 0
	for i, l := range logs {
		if l.zxid <= zxid {
			start = i
		}
	}
	return logs[start:]
}

// tree is the data tree being replayed, with an index of each session's
// ephemeral nodes (closing a session deletes them).
// The nodes left out (Options.Chroot, Skip) are in dropped, as hashes, and
// in ephemerals when they are ephemeral (with their session in
// droppedOwners), so that the replay knows which exist: a create applies
// only below an existing parent, and never twice.
type tree struct {
	nodes         map[string]*Node
	ephemerals    map[int64]map[string]bool
	keep          func(string) bool // nil: every node
	dropped       pathSet
	droppedOwners map[string]int64
}

func newTree(s *Snapshot, keep func(string) bool) *tree {
	t := &tree{nodes: s.Nodes, ephemerals: map[int64]map[string]bool{}, keep: keep, dropped: s.dropped, droppedOwners: s.droppedOwners}
	if t.droppedOwners == nil {
		t.droppedOwners = map[string]int64{}
	}
	for p, n := range s.Nodes {
		t.own(p, n.EphemeralOwner)
	}
	for p, o := range t.droppedOwners {
		t.own(p, o)
	}
	return t
}

func (t *tree) exists(p string) bool {
	_, ok := t.nodes[p]
	return ok || t.dropped.has(p)
}

func (t *tree) own(p string, owner int64) {
	if owner == 0 || owner == containerOwner || owner&ttlOwnerBits == ttlOwnerBits {
		return
	}
	if t.ephemerals[owner] == nil {
		t.ephemerals[owner] = map[string]bool{}
	}
	t.ephemerals[owner][p] = true
}

// apply applies one transaction as DataTree.processTxn does on a restart:
// idempotently, because the snapshot is fuzzy: a create of a node that
// exists, or a delete or setData of one that does not, is a transaction the
// snapshot already holds (or whose effect a later one in it undoes), and is
// skipped, as ZooKeeper ignores NodeExists and NoNode while replaying.
func (t *tree) apply(txn *Txn) {
	if txn.Type == OpCloseSession {
		for p := range t.ephemerals[txn.ClientID] {
			t.delete(p, txn.Zxid)
		}
		delete(t.ephemerals, txn.ClientID)
		return
	}
	for _, op := range txn.Ops {
		switch op.Type {
		case OpCreate:
			if !strings.HasPrefix(op.Path, "/") || t.exists(op.Path) || !t.exists(parentOf(op.Path)) {
				continue
			}
			if parent, ok := t.nodes[parentOf(op.Path)]; ok {
				parent.Cversion++
				parent.Pzxid = txn.Zxid
			}
			if t.keep == nil || t.keep(op.Path) {
				t.nodes[op.Path] = &Node{Data: op.Data, Czxid: txn.Zxid, Mzxid: txn.Zxid, Ctime: txn.Time, Mtime: txn.Time, EphemeralOwner: op.Owner, Pzxid: txn.Zxid}
			} else {
				t.dropped.add(op.Path)
				if op.Owner != 0 {
					t.droppedOwners[op.Path] = op.Owner
				}
			}
			t.own(op.Path, op.Owner)
		case OpDelete:
			t.delete(op.Path, txn.Zxid)
		case OpSetData:
			if n, ok := t.nodes[op.Path]; ok {
				n.Data, n.Version, n.Mzxid, n.Mtime = op.Data, op.Version, txn.Zxid, txn.Time
			}
		}
	}
}

func (t *tree) delete(p string, zxid int64) {
	if p == "/" {
		return
	}
	var owner int64
	if n, ok := t.nodes[p]; ok {
		owner = n.EphemeralOwner
		delete(t.nodes, p)
	} else if t.dropped.has(p) {
		owner = t.droppedOwners[p]
		t.dropped.remove(p)
		delete(t.droppedOwners, p)
	} else {
		return
	}
	if s := t.ephemerals[owner]; s != nil {
		delete(s, p)
	}
	if parent, ok := t.nodes[parentOf(p)]; ok {
		parent.Pzxid = zxid
	}
}

// parentOf returns the parent of an absolute path ("/" for a top-level node).
func parentOf(p string) string {
	i := strings.LastIndexByte(p, '/')
	if i <= 0 {
		return "/"
	}
	return p[:i]
}

// dirFile is a snapshot or log file and the zxid in its name.
type dirFile struct {
	path string
	zxid int64
}

// versionDir returns dir/version-2 when it exists, else dir itself when it
// is a folder (the version-2 folder given directly).
func versionDir(dir string) (string, error) {
	if dir == "" {
		return "", errors.New("no ZooKeeper data directory given")
	}
	v2 := filepath.Join(dir, "version-2")
	if fi, err := os.Stat(v2); err == nil && fi.IsDir() {
		return v2, nil
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return "", err
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("%s: not a directory", dir)
	}
	return dir, nil
}

// listFiles returns prefix.<hex zxid>[.suffix] files in dir, by zxid.
func listFiles(dir, prefix string) ([]dirFile, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []dirFile
	for _, e := range ents {
		if e.IsDir() {
			continue
		}
		z, ok := zxidFromName(e.Name(), prefix)
		if !ok {
			continue
		}
		out = append(out, dirFile{path: filepath.Join(dir, e.Name()), zxid: z})
	}
	slices.SortFunc(out, func(a, b dirFile) int {
		if a.zxid != b.zxid {
			return cmpInt(a.zxid, b.zxid)
		}
		return strings.Compare(a.path, b.path)
	})
	return out, nil
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// zxidFromName parses prefix.<hex>[.suffix] (Util.getZxidFromName).
func zxidFromName(name, prefix string) (int64, bool) {
	rest, ok := strings.CutPrefix(name, prefix+".")
	if !ok {
		return 0, false
	}
	if prefix == "snapshot" {
		rest = strings.TrimSuffix(strings.TrimSuffix(rest, ".gz"), ".snappy")
	}
	z, err := strconv.ParseUint(rest, 16, 64)
	if err != nil {
		return 0, false
	}
	return int64(z), true
}

func fileBase(p string) string { return filepath.Base(p) }

// Source is a replayed tree as zkread reads it; its LastZxid is the point
// read, which zkread records as the read's start zxid.
type Source struct {
	*zktree.Tree
	Zxid int64
}

// LastZxid returns the zxid the tree is at.
func (s Source) LastZxid() int64 { return s.Zxid }

// emptySnapshot is the tree a ZooKeeper server starts with before any
// transaction: the root and /zookeeper/quota (3.5+ also adds
// /zookeeper/config, by a transaction of its own when reconfig is on).
func emptySnapshot(keep func(string) bool) *Snapshot {
	s := &Snapshot{Nodes: map[string]*Node{}}
	for _, p := range []string{"/", "/zookeeper", "/zookeeper/quota"} {
		if keep == nil || keep(p) {
			s.Nodes[p] = &Node{Data: []byte{}}
		} else {
			s.dropped.add(p)
		}
	}
	return s
}
