package kraftseed

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/kraftcheckpoint"
)

// TokenVersionError refuses delegation tokens for a checkpoint whose
// metadata.version has none.
type TokenVersionError struct {
	File  string
	Level int16
}

func (e *TokenVersionError) Error() string {
	return fmt.Sprintf("%s: metadata.version level %d has no delegation tokens (3.6-IV2, level %d, or later); seed no delegation tokens or format with a later --release-version",
		e.File, e.Level, kraftcheckpoint.MinDelegationTokenMetadataVersion)
}

// Extend works out what the checkpoint gets: every credential, token and
// topic it does not hold yet (by user and mechanism, token id, topic
// name); the others are kept as they are and named. The extended file is
// built (records stamped now) and parsed back, and its SHA-256 set;
// nothing is written.
func (t *Target) Extend(seed Seed, now time.Time) error {
	type um struct {
		user string
		m    kraftcheckpoint.Mechanism
	}
	have := map[um]bool{}
	for _, c := range t.cp.Scram() {
		have[um{c.Name, c.Mechanism}] = true
	}
	var add []kraftcheckpoint.ScramCredential
	t.Added, t.Kept = []User{}, []User{}
	for _, c := range seed.Creds {
		u := User{User: c.Name, Mechanism: c.Mechanism.String(), Iterations: c.Iterations}
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
	for _, tk := range seed.Tokens {
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
	for _, st := range seed.Topics {
		if haveTopic[st.Topic.Name] {
			t.KeptTopics = append(t.KeptTopics, st.Topic.Name)
			continue
		}
		values = append(values, kraftcheckpoint.TopicValue(st.Topic))
		for _, p := range st.Partitions {
			values = append(values, kraftcheckpoint.PartitionValue(p))
		}
		t.AddedTopics = append(t.AddedTopics, st.Topic.Name)
	}
	if len(t.AddedTokens) > 0 && t.MetadataVersion < kraftcheckpoint.MinDelegationTokenMetadataVersion {
		return &TokenVersionError{File: t.File, Level: t.MetadataVersion}
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

// Write writes every extended target that gets a record, in order, marking
// each one Written; it stops at the first that cannot be written (the
// targets before it stay written: running again adds only what is
// missing). Targets with nothing to add are left alone.
func Write(ts []Target) error {
	for i := range ts {
		t := &ts[i]
		if t.AddedCount() == 0 {
			continue
		}
		if err := writeCheckpoint(t.Out, t.data, t.origin); err != nil {
			return fmt.Errorf("write %s: %v", t.Out, err)
		}
		t.Written = true
	}
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

func statOf(fi os.FileInfo) (*syscall.Stat_t, bool) {
	if fi == nil {
		return nil, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return st, ok
}
