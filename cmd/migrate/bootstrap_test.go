package main

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zkmigrate/zkmigrate/internal/demo"
	"github.com/zkmigrate/zkmigrate/internal/kraftcheckpoint"
	"github.com/zkmigrate/zkmigrate/internal/kraftseed"
	"github.com/zkmigrate/zkmigrate/internal/migration"
	"github.com/zkmigrate/zkmigrate/internal/zkread"
	"github.com/zkmigrate/zkmigrate/internal/zktree"
)

// kafka41Checkpoint is a bootstrap.checkpoint written by Kafka 4.1.1's
// kafka-storage format with --add-scram for admin (SCRAM-SHA-256 8192 and
// SCRAM-SHA-512 4096, password admin-secret).
const kafka41Checkpoint = "../../internal/kraftcheckpoint/testdata/kafka41-format-scram.checkpoint"

// useDemoSource makes bootstrap read the demo's legacy tree (captured from
// the test bed's Kafka 3.9, passwords in internal/demo/demodata/legacy.scram.json)
// instead of dialling ZooKeeper.
func useDemoSource(t *testing.T) {
	t.Helper()
	tree, err := zktree.Decode(bytes.NewReader(demo.Tree))
	if err != nil {
		t.Fatal(err)
	}
	old := openBootstrapSource
	openBootstrapSource = func(context.Context, migration.SourceRequest) (zkread.Source, string, func(), error) {
		return tree, "fixture:2181", func() {}, nil
	}
	t.Cleanup(func() { openBootstrapSource = old })
}

// metadataDir makes a formatted, never-started metadata log directory:
// meta.properties and Kafka 4.1's checkpoint.
func metadataDir(t *testing.T, clusterID string, node int) string {
	t.Helper()
	d := t.TempDir()
	meta := "#\n#Tue Dec 01 13:43:25 UTC 2026\nnode.id=" + string(rune('0'+node)) + "\ndirectory.id=gcRobiOV43eXzWr3hb7Rxw\nversion=1\ncluster.id=" + clusterID + "\n"
	if err := os.WriteFile(filepath.Join(d, "meta.properties"), []byte(meta), 0o644); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(kafka41Checkpoint)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d, kraftcheckpoint.FileName), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return d
}

type demoCred struct {
	User, Mechanism, Password string
	Iterations                int32
}

func demoCreds(t *testing.T) []demoCred {
	var cs []demoCred
	if err := json.Unmarshal(demo.Scram, &cs); err != nil {
		t.Fatal(err)
	}
	return cs
}

// derives reports whether password derives the credential's keys (RFC 5802).
func derives(t *testing.T, c kraftcheckpoint.ScramCredential, password string) bool {
	var h func() hash.Hash = sha256.New
	if c.Mechanism == kraftcheckpoint.ScramSHA512 {
		h = sha512.New
	}
	salted, err := pbkdf2.Key(h, password, c.Salt, int(c.Iterations), h().Size())
	if err != nil {
		t.Fatal(err)
	}
	mac := func(key []byte, s string) []byte { m := hmac.New(h, key); m.Write([]byte(s)); return m.Sum(nil) }
	x := h()
	x.Write(mac(salted, "Client Key"))
	return bytes.Equal(x.Sum(nil), c.StoredKey) && bytes.Equal(mac(salted, "Server Key"), c.ServerKey)
}

func parseFile(t *testing.T, path string) *kraftcheckpoint.Checkpoint {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	c, err := kraftcheckpoint.Parse(data)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return c
}

// keyForms are every credential key of the checkpoints as they could be
// spelled in output: raw, hex (both cases), base64 (padded and not).
func keyForms(cs []kraftcheckpoint.ScramCredential) []string {
	var out []string
	for _, c := range cs {
		for _, b := range [][]byte{c.Salt, c.StoredKey, c.ServerKey} {
			out = append(out, string(b), hex.EncodeToString(b), strings.ToUpper(hex.EncodeToString(b)),
				base64.StdEncoding.EncodeToString(b), base64.RawStdEncoding.EncodeToString(b))
		}
	}
	return out
}

// TestBootstrapSeedsEveryController: both controllers' checkpoints get
// every legacy credential whose user and mechanism they lack, with keys
// the original passwords derive; admin SCRAM-SHA-256 (from --add-scram) is
// kept and reported; Kafka's own records are kept byte for byte; the file
// is 0600; the audit names the users and the file's digest; no output
// byte, audit row or audit export holds a salt or key. A second run adds
// nothing and leaves the files alone.
func TestBootstrapSeedsEveryController(t *testing.T) {
	useDemoSource(t)
	d1, d2 := metadataDir(t, "AAAAAAAAAAAAAAAAAAAAAA", 1), metadataDir(t, "AAAAAAAAAAAAAAAAAAAAAA", 2)
	db := filepath.Join(t.TempDir(), "audit.db")
	before, _ := os.ReadFile(kafka41Checkpoint)
	orig := parseFile(t, kafka41Checkpoint)

	code, out, errs := runMigrate(t, "bootstrap", "--zookeeper", "fixture:2181", "--metadata-dir", d1, "--metadata-dir", d2, "--audit-db", db)
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	var all []kraftcheckpoint.ScramCredential
	for _, d := range []string{d1, d2} {
		file := filepath.Join(d, kraftcheckpoint.FileName)
		c := parseFile(t, file)
		data, _ := os.ReadFile(file)
		keep := orig.Batches[2].Pos // the header and data batches
		if !bytes.Equal(data[:keep], before[:keep]) {
			t.Errorf("%s: Kafka's batches were not kept byte for byte", file)
		}
		if st, _ := os.Stat(file); st.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, want 0600", file, st.Mode().Perm())
		}
		if d := cmp.Diff(orig.Features(), c.Features()); d != "" {
			t.Errorf("features changed:\n%s", d)
		}
		var names []string
		for _, s := range c.Scram() {
			names = append(names, s.Name+" "+s.Mechanism.String())
		}
		want := []string{"admin SCRAM-SHA-256", "admin SCRAM-SHA-512", // Kafka's, from --add-scram
			"CN=foo,OU=bar SCRAM-SHA-256", "User With Space SCRAM-SHA-512", "alice SCRAM-SHA-256", "alice SCRAM-SHA-512", "bob SCRAM-SHA-256", "carol SCRAM-SHA-256"}
		if d := cmp.Diff(want, names); d != "" {
			t.Errorf("%s: SCRAM records (-want +got):\n%s", file, d)
		}
		for _, dc := range demoCreds(t) {
			i := slices.IndexFunc(c.Scram(), func(s kraftcheckpoint.ScramCredential) bool {
				return s.Name == dc.User && s.Mechanism.String() == dc.Mechanism
			})
			if i < 0 || !derives(t, c.Scram()[i], dc.Password) || c.Scram()[i].Iterations != dc.Iterations {
				t.Errorf("%s: %s %s does not carry the original password", file, dc.User, dc.Mechanism)
			}
		}
		all = append(all, c.Scram()...)
		sum := sha256.Sum256(data)
		if !strings.Contains(out, hex.EncodeToString(sum[:])) {
			t.Errorf("output does not give %s's sha256", file)
		}
	}
	for _, want := range []string{"keep     User:admin SCRAM-SHA-256: already in the checkpoint", "add      User:carol SCRAM-SHA-256 (4096 iterations)",
		"add      User:User With Space SCRAM-SHA-512 (4096 iterations)", "wrote 6 records more"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}

	// The audit trail: users and the digest, never a key.
	_, shown, _ := runMigrate(t, "audit", "show", "1", "--audit-db", db, "-o", "json")
	_, exported, _ := runMigrate(t, "audit", "export", "1", "--audit-db", db, "-o", "json")
	for _, want := range []string{"bootstrap-seeded", "User:carol SCRAM-SHA-256", "bootstrap-kept", "bootstrap-file"} {
		if !strings.Contains(exported, want) {
			t.Errorf("audit export lacks %q", want)
		}
	}
	data, _ := os.ReadFile(filepath.Join(d1, kraftcheckpoint.FileName))
	sum := sha256.Sum256(data)
	if !strings.Contains(exported, "sha256:"+hex.EncodeToString(sum[:])) {
		t.Error("audit export lacks the written file's sha256")
	}
	if !strings.Contains(shown, `"command": "bootstrap"`) {
		t.Errorf("audit show does not show the bootstrap run:\n%s", shown)
	}
	var dbBytes []byte
	for _, suffix := range []string{"", "-wal", "-shm"} {
		b, _ := os.ReadFile(db + suffix)
		dbBytes = append(dbBytes, b...)
	}
	haystacks := map[string]string{"stdout": out, "stderr": errs, "audit show": shown, "audit export": exported, "audit database": string(dbBytes)}
	for name, h := range haystacks {
		for _, k := range keyForms(all) {
			if len(k) >= 8 && strings.Contains(h, k) {
				t.Errorf("%s holds a salt or key (%d chars)", name, len(k))
			}
		}
	}

	// Again: nothing to add, the files untouched.
	code, out, errs = runMigrate(t, "bootstrap", "--zookeeper", "fixture:2181", "--metadata-dir", d1, "--metadata-dir", d2, "--no-audit")
	again, _ := os.ReadFile(filepath.Join(d1, kraftcheckpoint.FileName))
	if code != exitOK || !bytes.Equal(again, data) || strings.Count(out, "nothing to add") != 2 {
		t.Errorf("second run: exit %d, file changed %v\n%s%s", code, !bytes.Equal(again, data), out, errs)
	}
}

// TestBootstrapRefuses: each refusal is exit 1 with a message naming the
// cause, and no checkpoint changes (no temporary file left either).
func TestBootstrapRefuses(t *testing.T) {
	useDemoSource(t)
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, d1, d2 string)
		want  string
	}{
		{"started controller", func(t *testing.T, d1, _ string) {
			os.MkdirAll(filepath.Join(d1, "__cluster_metadata-0"), 0o755)
			os.WriteFile(filepath.Join(d1, "__cluster_metadata-0", "00000000000000000000.log"), []byte("records"), 0o644)
		}, "the metadata log already holds records (__cluster_metadata-0/00000000000000000000.log, 7 bytes): this controller has started"},
		{"snapshot after start", func(t *testing.T, _, d2 string) {
			os.MkdirAll(filepath.Join(d2, "__cluster_metadata-0"), 0o755)
			os.WriteFile(filepath.Join(d2, "__cluster_metadata-0", "00000000000000000000.log"), nil, 0o644)
			os.WriteFile(filepath.Join(d2, "__cluster_metadata-0", "00000000000000000119-0000000001.checkpoint"), []byte("x"), 0o644)
		}, "00000000000000000119-0000000001.checkpoint"},
		{"cluster id mismatch", func(t *testing.T, _, d2 string) {
			os.WriteFile(filepath.Join(d2, "meta.properties"), []byte("cluster.id=BBBBBBBBBBBBBBBBBBBBBB\nnode.id=2\nversion=1\n"), 0o644)
		}, "has cluster id BBBBBBBBBBBBBBBBBBBBBB but"},
		{"corrupt checkpoint", func(t *testing.T, _, d2 string) {
			p := filepath.Join(d2, kraftcheckpoint.FileName)
			b, _ := os.ReadFile(p)
			b[bytes.Index(b, []byte("metadata.version"))] ^= 1
			os.WriteFile(p, b, 0o644)
		}, "CRC32C mismatch"},
		{"truncated checkpoint", func(t *testing.T, d1, _ string) {
			p := filepath.Join(d1, kraftcheckpoint.FileName)
			b, _ := os.ReadFile(p)
			os.WriteFile(p, b[:len(b)-10], 0o644)
		}, "truncated"},
		{"not formatted", func(t *testing.T, d1, _ string) { os.Remove(filepath.Join(d1, "meta.properties")) }, "has no meta.properties: not formatted"},
		{"no checkpoint", func(t *testing.T, _, d2 string) { os.Remove(filepath.Join(d2, kraftcheckpoint.FileName)) }, "has no bootstrap.checkpoint"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d1, d2 := metadataDir(t, "AAAAAAAAAAAAAAAAAAAAAA", 1), metadataDir(t, "AAAAAAAAAAAAAAAAAAAAAA", 2)
			tc.setup(t, d1, d2)
			snap := func() map[string]string {
				m := map[string]string{}
				for _, d := range []string{d1, d2} {
					es, _ := os.ReadDir(d)
					for _, e := range es {
						b, _ := os.ReadFile(filepath.Join(d, e.Name()))
						m[filepath.Join(d, e.Name())] = string(b)
					}
				}
				return m
			}
			was := snap()
			code, out, errs := runMigrate(t, "bootstrap", "--zookeeper", "fixture:2181", "--metadata-dir", d1, "--metadata-dir", d2, "--no-audit")
			if code != exitError || !strings.Contains(errs, tc.want) {
				t.Errorf("exit %d, stderr %q, want 1 and %q", code, errs, tc.want)
			}
			if strings.Count(strings.TrimSpace(errs), "\n") != 0 || out != "" {
				t.Errorf("want one line on stderr and nothing on stdout:\n%s%s", out, errs)
			}
			if d := cmp.Diff(was, snap()); d != "" {
				t.Errorf("the directories changed:\n%s", d)
			}
		})
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--snapshot", "s.json", "--in", "x"}, "holds SCRAM credentials by reference only"},
		{[]string{"--in", "x"}, "give the source: --zookeeper"},
		{[]string{"--zookeeper", "z:1"}, "give the target: --metadata-dir DIR"},
		{[]string{"--zookeeper", "z:1", "--in", "x"}, "--in needs --out"},
		{[]string{"--zookeeper", "z:1", "--in", "x", "--out", "y", "--metadata-dir", "d"}, "not both"},
		{[]string{"--show", "x", "--zookeeper", "z:1"}, "takes no other input"},
		{[]string{"--zookeeper", "z:1", "--in", "x", "--out", "y", "--principals", "("}, "--principals \"(\""},
	} {
		code, _, errs := runMigrate(t, append([]string{"bootstrap", "--no-audit"}, tc.args...)...)
		if code != exitError || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", tc.args, code, errs, tc.want)
		}
	}
}

// TestBootstrapDryRunAndFiles: --dry-run writes nothing; --in/--out write
// the other file only; --principals filters; --show lists names and
// counts, never keys.
func TestBootstrapDryRunAndFiles(t *testing.T) {
	useDemoSource(t)
	d := metadataDir(t, "AAAAAAAAAAAAAAAAAAAAAA", 1)
	file := filepath.Join(d, kraftcheckpoint.FileName)
	was, _ := os.ReadFile(file)
	code, out, errs := runMigrate(t, "bootstrap", "--zookeeper", "fixture:2181", "--metadata-dir", d, "--dry-run", "--no-audit")
	now, _ := os.ReadFile(file)
	if code != exitOK || !bytes.Equal(now, was) || !strings.Contains(out, "dry run: would add 6 records; nothing written") {
		t.Errorf("dry run: exit %d, changed %v\n%s%s", code, !bytes.Equal(now, was), out, errs)
	}
	if es, _ := os.ReadDir(d); len(es) != 2 {
		t.Errorf("dry run left files: %v", es)
	}

	outFile := filepath.Join(t.TempDir(), "seeded.checkpoint")
	code, out, errs = runMigrate(t, "bootstrap", "--zookeeper", "fixture:2181", "--in", file, "--out", outFile, "--principals", "^User:(alice|bob)$", "--no-audit", "-o", "json")
	var res kraftseed.Result
	if err := json.Unmarshal([]byte(out), &res); code != exitOK || err != nil {
		t.Fatalf("exit %d, %v\n%s%s", code, err, out, errs)
	}
	if d := cmp.Diff([]kraftseed.User{{User: "alice", Mechanism: "SCRAM-SHA-256", Iterations: 8192}, {User: "alice", Mechanism: "SCRAM-SHA-512", Iterations: 8192}, {User: "bob", Mechanism: "SCRAM-SHA-256", Iterations: 8192}}, res.Targets[0].Added); d != "" || !res.Targets[0].Written {
		t.Errorf("added (-want +got):\n%s", d)
	}
	if now, _ := os.ReadFile(file); !bytes.Equal(now, was) {
		t.Error("--in was changed")
	}
	seeded := parseFile(t, outFile)
	if len(seeded.Scram()) != 5 {
		t.Errorf("%d SCRAM records in --out, want 5", len(seeded.Scram()))
	}

	for _, args := range [][]string{{"--show", outFile}, {"--show", outFile, "-o", "json"}} {
		code, out, errs = runMigrate(t, append([]string{"bootstrap"}, args...)...)
		if code != exitOK {
			t.Fatalf("%v: exit %d %s", args, code, errs)
		}
		for _, want := range []string{"UserScramCredentialRecord", "FeatureLevelRecord", "metadata.version", "alice", "SCRAM-SHA-512"} {
			if !strings.Contains(out, want) {
				t.Errorf("%v lacks %q:\n%s", args, want, out)
			}
		}
		for _, k := range keyForms(seeded.Scram()) {
			if len(k) >= 8 && strings.Contains(out, k) {
				t.Errorf("%v shows a salt or key", args)
			}
		}
	}
	if !strings.Contains(out, `"count": 5`) || !strings.Contains(out, `"count": 4`) {
		t.Errorf("--show -o json counts:\n%s", out)
	}
	bad := filepath.Join(t.TempDir(), "bad")
	b, _ := os.ReadFile(outFile)
	os.WriteFile(bad, b[:len(b)-1], 0o600)
	if code, _, errs := runMigrate(t, "bootstrap", "--show", bad); code != exitError || !strings.Contains(errs, bad) {
		t.Errorf("--show of a truncated file: exit %d %s", code, errs)
	}
}

// TestBootstrapFromZKDataDir: ZooKeeper's own files (the test bed's
// ZooKeeper 3.8.4 data dir, written by the Kafka 3.9 legacy run) are a
// source too, offline; the credentials carry the test bed's passwords.
func TestBootstrapFromZKDataDir(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out.checkpoint")
	code, stdout, errs := runMigrate(t, "bootstrap", "--zk-data-dir", zkDataFixture, "--in", kafka41Checkpoint, "--out", out, "--no-audit")
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, stdout, errs)
	}
	c := parseFile(t, out)
	if len(c.Scram()) != 8 {
		t.Errorf("%d SCRAM records, want 2 of Kafka's and 6 from the data dir", len(c.Scram()))
	}
	for _, dc := range demoCreds(t) {
		i := slices.IndexFunc(c.Scram(), func(s kraftcheckpoint.ScramCredential) bool {
			return s.Name == dc.User && s.Mechanism.String() == dc.Mechanism
		})
		if i < 0 || !derives(t, c.Scram()[i], dc.Password) {
			t.Errorf("%s %s does not carry the test bed's password", dc.User, dc.Mechanism)
		}
	}
	if !strings.Contains(stdout, "at zxid 0x") {
		t.Errorf("the source is not named with its zxid:\n%s", stdout)
	}
}

// TestBootstrapTokens: --delegation-tokens seeds each live token's
// metadata, names an expired one and leaves it out (the controller would
// drop it at once), and a second run keeps the seeded token.
func TestBootstrapTokens(t *testing.T) {
	tree := &zktree.Tree{Nodes: []zktree.Node{
		{Path: "/"}, {Path: "/config"}, {Path: "/config/users"}, {Path: "/delegation_token"}, {Path: "/delegation_token/tokens"},
		{Path: "/delegation_token/tokens/live", Data: []byte(`{"version":3,"owner":"User%3Aalice","tokenRequester":"User%3Aadmin","renewers":["User%3Abob"],"issueTimestamp":1700000000000,"maxTimestamp":4102444800000,"expiryTimestamp":4102444800000,"tokenId":"live"}`)},
		{Path: "/delegation_token/tokens/old", Data: []byte(`{"version":1,"owner":"User%3Aalice","renewers":[],"issueTimestamp":1600000000000,"maxTimestamp":1600604800000,"expiryTimestamp":1600086400000,"tokenId":"old"}`)},
		{Path: "/delegation_token/tokens/bad", Data: []byte(`{"version":3}`)},
	}}
	tree.Sort()
	old := openBootstrapSource
	openBootstrapSource = func(context.Context, migration.SourceRequest) (zkread.Source, string, func(), error) {
		return tree, "tree", func() {}, nil
	}
	t.Cleanup(func() { openBootstrapSource = old })

	out := filepath.Join(t.TempDir(), "out.checkpoint")
	code, stdout, errs := runMigrate(t, "bootstrap", "--zookeeper", "tree:1", "--in", kafka41Checkpoint, "--out", out, "--delegation-tokens", "--no-audit")
	if code != exitPartial || !strings.Contains(stdout, "Delegation tokens: 1 to seed; 1 expired, left out: old") ||
		!strings.Contains(stdout, "add      delegation token live") || !strings.Contains(stdout, "skipped  /delegation_token/tokens/bad") {
		t.Fatalf("exit %d, want 3 (the bad token)\n%s%s", code, stdout, errs)
	}
	want := []kraftcheckpoint.DelegationToken{{Owner: "User:alice", Requester: "User:admin", Renewers: []string{"User:bob"},
		IssueTimestamp: 1700000000000, MaxTimestamp: 4102444800000, ExpirationTime: 4102444800000, TokenID: "live"}}
	if d := cmp.Diff(want, parseFile(t, out).Tokens()); d != "" {
		t.Errorf("tokens (-want +got):\n%s", d)
	}
	code, stdout, _ = runMigrate(t, "bootstrap", "--zookeeper", "tree:1", "--in", out, "--out", out, "--delegation-tokens", "--no-audit")
	if code != exitPartial || !strings.Contains(stdout, "keep     delegation token live: already in the checkpoint") || !strings.Contains(stdout, "nothing to add") {
		t.Errorf("second run: exit %d\n%s", code, stdout)
	}
}

// TestBootstrapTopicIDs: --topic-ids writes each non-internal source topic
// with its id and the source's replica lists (first replica leader, all in
// the ISR), --topics filters, and a second run keeps them.
func TestBootstrapTopicIDs(t *testing.T) {
	useDemoSource(t)
	src := fixtureSource(t)
	out := filepath.Join(t.TempDir(), "out.checkpoint")
	code, stdout, errs := runMigrate(t, "bootstrap", "--zookeeper", "fixture:2181", "--in", kafka41Checkpoint, "--out", out, "--topic-ids", "--no-audit")
	if code != exitOK || !strings.Contains(stdout, "the target's brokers must have node ids [1 2]") || !strings.Contains(stdout, "pending deletion on the source, left out: doomed") {
		t.Fatalf("exit %d\n%s%s", code, stdout, errs)
	}
	c := parseFile(t, out)
	ids := map[string]string{}
	for _, tp := range c.Topics() {
		ids[tp.Name] = base64.RawURLEncoding.EncodeToString(tp.ID[:])
	}
	parts := map[string][]kraftcheckpoint.Partition{}
	for _, r := range c.Records() {
		if r.Part != nil {
			name := ""
			for n, id := range ids {
				if id == base64.RawURLEncoding.EncodeToString(r.Part.TopicID[:]) {
					name = n
				}
			}
			parts[name] = append(parts[name], *r.Part)
		}
	}
	n := 0
	for _, st := range src.Topics {
		if st.Internal || slices.Contains(src.PendingDeletes, st.Name) {
			if _, ok := ids[st.Name]; ok {
				t.Errorf("internal or deleted topic %s seeded", st.Name)
			}
			continue
		}
		n++
		if ids[st.Name] != strings.TrimRight(st.ID, "=") {
			t.Errorf("%s: id %q, want the source's %q", st.Name, ids[st.Name], st.ID)
		}
		if len(parts[st.Name]) != len(st.Partitions) {
			t.Errorf("%s: %d partitions, want %d", st.Name, len(parts[st.Name]), len(st.Partitions))
			continue
		}
		for i, p := range st.Partitions {
			got := parts[st.Name][i]
			if got.Partition != p.ID || !slices.Equal(got.Replicas, p.Replicas) || !slices.Equal(got.ISR, p.Replicas) || got.Leader != p.Replicas[0] {
				t.Errorf("%s-%d: %+v, want replicas %v", st.Name, p.ID, got, p.Replicas)
			}
		}
	}
	if n == 0 || len(ids) != n {
		t.Errorf("%d topics seeded, want the source's %d", len(ids), n)
	}

	code, stdout, _ = runMigrate(t, "bootstrap", "--zookeeper", "fixture:2181", "--in", out, "--out", out, "--topic-ids", "--topics", "^payments$", "--no-audit")
	if code != exitOK || !strings.Contains(stdout, "keep     topic payments: already in the checkpoint") || strings.Contains(stdout, "topic orders") {
		t.Errorf("second run: exit %d\n%s", code, stdout)
	}
	if code, _, errs := runMigrate(t, "bootstrap", "--zookeeper", "z:1", "--in", out, "--out", out, "--topics", "x"); code != exitError || !strings.Contains(errs, "--topics needs --topic-ids") {
		t.Errorf("--topics alone: exit %d %s", code, errs)
	}
}

// TestBootstrapFlagError: kraftseed's typed refusals are worded with the
// flags that name what they refuse; other errors pass as they are.
func TestBootstrapFlagError(t *testing.T) {
	plain := errors.New("in.checkpoint: truncated")
	for _, tc := range []struct {
		err  error
		want string
	}{
		{&kraftseed.DirError{Dir: "c1", Detail: " is given twice"}, "--metadata-dir c1 is given twice"},
		{fmt.Errorf("wrapped: %w", &kraftseed.DirError{Dir: "c2", Detail: ": no such file or directory"}), "--metadata-dir c2: no such file or directory"},
		{&kraftseed.TokenVersionError{File: "x.checkpoint", Level: 13}, "x.checkpoint: metadata.version level 13 has no delegation tokens (3.6-IV2, level 14, or later); leave out --delegation-tokens or format with a later --release-version"},
		{plain, plain.Error()},
	} {
		if got := bootstrapFlagError(tc.err).Error(); got != tc.want {
			t.Errorf("%v: %q, want %q", tc.err, got, tc.want)
		}
	}
}

// TestBootstrapConcurrentRunsBothLand: two bootstraps of one metadata
// directory at once, one for alice and one for bob, both exit 0 and the
// checkpoint holds both users (before the lock, the later write dropped the
// other's records in every trial).
func TestBootstrapConcurrentRunsBothLand(t *testing.T) {
	useDemoSource(t)
	for trial := 0; trial < 3; trial++ {
		d := metadataDir(t, "AAAAAAAAAAAAAAAAAAAAAA", 1)
		var wg sync.WaitGroup
		codes, outs := make([]int, 2), make([]string, 2)
		for i, who := range []string{"alice", "bob"} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var errs string
				codes[i], outs[i], errs = runMigrate(t, "bootstrap", "--zookeeper", "fixture:2181", "--metadata-dir", d, "--principals", "^User:"+who+"$", "--no-audit")
				outs[i] += errs
			}()
		}
		wg.Wait()
		for i := range codes {
			if codes[i] != exitOK {
				t.Fatalf("trial %d run %d: exit %d\n%s", trial, i, codes[i], outs[i])
			}
		}
		var names []string
		for _, s := range parseFile(t, filepath.Join(d, kraftcheckpoint.FileName)).Scram() {
			names = append(names, s.Name+" "+s.Mechanism.String())
		}
		slices.Sort(names) // the order is whichever run wrote first
		want := []string{"admin SCRAM-SHA-256", "admin SCRAM-SHA-512", "alice SCRAM-SHA-256", "alice SCRAM-SHA-512", "bob SCRAM-SHA-256"}
		if d := cmp.Diff(want, names); d != "" {
			t.Fatalf("trial %d: SCRAM records (-want +got):\n%s", trial, d)
		}
	}
}
