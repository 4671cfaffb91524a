// Package kraftseed seeds a fresh, never-started KRaft cluster's bootstrap
// checkpoint from a ZooKeeper-mode source: it checks each controller's
// metadata directory (formatted, never started, one cluster id), reads the
// source's SCRAM credentials with their keys (and, if asked, delegation
// tokens and topics with their ids), extends every checkpoint keeping
// Kafka's own records byte for byte, and writes it atomically. It takes
// plain options, returns plain values and prints nothing; the command maps
// its flags to the options and renders the Result (docs/bootstrap.md).
package kraftseed

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/zkmigrate/zkmigrate/internal/infile"
	"github.com/zkmigrate/zkmigrate/internal/kraftcheckpoint"
	"github.com/zkmigrate/zkmigrate/internal/props"
)

// TargetOptions name the checkpoints to extend: the metadata directories of
// every controller of the quorum, or one checkpoint file In written to Out
// (In itself when Out is empty).
type TargetOptions struct {
	Dirs    []string
	In, Out string
}

// DirError is a refusal of one metadata directory. Detail follows the
// directory's name (": reason" or " is …"), so a command can name the
// directory by its flag.
type DirError struct {
	Dir    string
	Detail string
}

func (e *DirError) Error() string { return "metadata directory " + e.Dir + e.Detail }

func dirErr(dir, format string, a ...any) error {
	return &DirError{Dir: dir, Detail: fmt.Sprintf(format, a...)}
}

// Target is one checkpoint to extend, and what was done to it.
type Target struct {
	Dir             string   `json:"metadata_dir,omitempty"`
	File            string   `json:"file"`
	Out             string   `json:"out"`
	ClusterID       string   `json:"cluster_id,omitempty"`
	NodeID          string   `json:"node_id,omitempty"`
	MetadataVersion int16    `json:"metadata_version_level"`
	Records         int      `json:"records_before"`
	Added           []User   `json:"added"`
	Kept            []User   `json:"kept"`
	AddedTopics     []string `json:"added_topics,omitempty"` // topic names
	KeptTopics      []string `json:"kept_topics,omitempty"`
	AddedTokens     []string `json:"added_tokens,omitempty"` // token ids
	KeptTokens      []string `json:"kept_tokens,omitempty"`
	Written         bool     `json:"written"`
	SHA256          string   `json:"sha256,omitempty"`

	cp     *kraftcheckpoint.Checkpoint
	data   []byte
	origin os.FileInfo
}

// User names a credential: the user and mechanism, never its keys.
type User struct {
	User       string `json:"user"`
	Mechanism  string `json:"mechanism"`
	Iterations int32  `json:"iterations"`
}

func (u User) String() string { return "User:" + u.User + " " + u.Mechanism }

// AddedCount counts the records the target gets.
func (t *Target) AddedCount() int { return len(t.Added) + len(t.AddedTokens) + len(t.AddedTopics) }

// Load reads and checks every target checkpoint: each metadata directory
// formatted and never started, one cluster id across them, every
// checkpoint parsed completely. It reads nothing of the source.
func Load(o TargetOptions) ([]Target, error) {
	var ts []Target
	if o.In != "" {
		t := Target{File: o.In, Out: o.Out}
		if t.Out == "" {
			t.Out = o.In
		}
		if err := t.load(); err != nil {
			return nil, err
		}
		return append(ts, t), nil
	}
	seen := map[string]bool{}
	for _, d := range o.Dirs {
		abs, err := filepath.Abs(d)
		if err != nil {
			return nil, err
		}
		if seen[abs] {
			return nil, dirErr(d, " is given twice")
		}
		seen[abs] = true
		t := Target{Dir: d, File: filepath.Join(d, kraftcheckpoint.FileName)}
		t.Out = t.File
		if err := checkMetadataDir(&t); err != nil {
			return nil, err
		}
		if err := t.load(); err != nil {
			return nil, err
		}
		if len(ts) > 0 && t.ClusterID != ts[0].ClusterID {
			return nil, dirErr(d, " has cluster id %s but %s has %s: these controllers are not of one cluster", t.ClusterID, ts[0].Dir, ts[0].ClusterID)
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
func checkMetadataDir(t *Target) error {
	dir := t.Dir
	st, err := os.Stat(dir)
	if err != nil {
		return dirErr(dir, ": %v", errors.Unwrap(err))
	}
	if !st.IsDir() {
		return dirErr(dir, " is not a directory")
	}
	mp := filepath.Join(dir, "meta.properties")
	p, err := props.Load(mp)
	if errors.Is(err, os.ErrNotExist) {
		return dirErr(dir, " has no meta.properties: not formatted (run kafka-storage format first)")
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
			return dirErr(dir, ": the metadata log already holds records (%s, %d bytes): this controller has started, "+
				"and Kafka replays a bootstrap checkpoint only into an empty metadata log, so it is too late to bootstrap; "+
				"carry the SCRAM users with plan/apply --scram-credentials or have them reset their passwords (--scram-resets), or format a fresh cluster",
				filepath.Join("__cluster_metadata-0", name), info.Size())
		}
	}
	return nil
}

// load reads and parses the target's checkpoint.
func (t *Target) load() error {
	st, err := os.Stat(t.File)
	if errors.Is(err, os.ErrNotExist) && t.Dir != "" {
		return dirErr(t.Dir, " has no %s: format it with kafka-storage format (Kafka 3.3 or later)", kraftcheckpoint.FileName)
	}
	if err != nil {
		return err
	}
	data, err := infile.ReadAll(t.File, infile.Checkpoint)
	if err == nil {
		err = infile.ExpectBytes(t.File, infile.Checkpoint, data)
	}
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
