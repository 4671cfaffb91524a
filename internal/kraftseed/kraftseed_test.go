package kraftseed

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/zkmigrate/zkmigrate/internal/kraftcheckpoint"
	"github.com/zkmigrate/zkmigrate/internal/zktree"
)

// kafka41Checkpoint is a bootstrap.checkpoint written by Kafka 4.1.1's
// kafka-storage format with --add-scram for admin (SCRAM-SHA-256 and
// SCRAM-SHA-512; metadata.version level 27).
const kafka41Checkpoint = "../kraftcheckpoint/testdata/kafka41-format-scram.checkpoint"

// metadataDir makes a formatted, never-started metadata log directory.
func metadataDir(t *testing.T, clusterID string) string {
	t.Helper()
	d := t.TempDir()
	write(t, filepath.Join(d, "meta.properties"), "node.id=1\ndirectory.id=gcRobiOV43eXzWr3hb7Rxw\nversion=1\ncluster.id="+clusterID+"\n")
	data, err := os.ReadFile(kafka41Checkpoint)
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(d, kraftcheckpoint.FileName), string(data))
	return d
}

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestLoad: each refusal names the directory (a DirError, which the
// command words with its flag) or the file, and a directory formatted and
// never started loads with its cluster id, node id and metadata.version.
func TestLoad(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, d1, d2 string) TargetOptions
		dir   bool   // the error is a DirError
		want  string // in the error; "" loads
	}{
		{"formatted", func(t *testing.T, d1, d2 string) TargetOptions { return TargetOptions{Dirs: []string{d1, d2}} }, false, ""},
		{"dynamic quorum's bootstrap snapshot and an empty log", func(t *testing.T, d1, _ string) TargetOptions {
			write(t, filepath.Join(d1, "__cluster_metadata-0", bootstrapSnapshotName), "x")
			write(t, filepath.Join(d1, "__cluster_metadata-0", "00000000000000000000.log"), "")
			return TargetOptions{Dirs: []string{d1}}
		}, false, ""},
		{"started: log records", func(t *testing.T, d1, d2 string) TargetOptions {
			write(t, filepath.Join(d2, "__cluster_metadata-0", "00000000000000000000.log"), "records")
			return TargetOptions{Dirs: []string{d1, d2}}
		}, true, ": the metadata log already holds records (__cluster_metadata-0/00000000000000000000.log, 7 bytes): this controller has started"},
		{"started: a later snapshot", func(t *testing.T, d1, _ string) TargetOptions {
			write(t, filepath.Join(d1, "__cluster_metadata-0", "00000000000000000119-0000000001.checkpoint"), "x")
			return TargetOptions{Dirs: []string{d1}}
		}, true, ": the metadata log already holds records (__cluster_metadata-0/00000000000000000119-0000000001.checkpoint, 1 bytes)"},
		{"given twice", func(t *testing.T, d1, _ string) TargetOptions {
			return TargetOptions{Dirs: []string{d1, filepath.Join(d1, ".")}}
		}, true, " is given twice"},
		{"missing", func(t *testing.T, d1, _ string) TargetOptions {
			return TargetOptions{Dirs: []string{filepath.Join(d1, "nosuch")}}
		}, true, ": no such file or directory"},
		{"not a directory", func(t *testing.T, d1, _ string) TargetOptions {
			return TargetOptions{Dirs: []string{filepath.Join(d1, "meta.properties")}}
		}, true, " is not a directory"},
		{"not formatted", func(t *testing.T, d1, _ string) TargetOptions {
			os.Remove(filepath.Join(d1, "meta.properties"))
			return TargetOptions{Dirs: []string{d1}}
		}, true, " has no meta.properties: not formatted"},
		{"no cluster.id", func(t *testing.T, d1, _ string) TargetOptions {
			write(t, filepath.Join(d1, "meta.properties"), "node.id=1\nversion=1\n")
			return TargetOptions{Dirs: []string{d1}}
		}, false, "meta.properties has no cluster.id"},
		{"no checkpoint", func(t *testing.T, d1, _ string) TargetOptions {
			os.Remove(filepath.Join(d1, kraftcheckpoint.FileName))
			return TargetOptions{Dirs: []string{d1}}
		}, true, " has no bootstrap.checkpoint: format it"},
		{"cluster ids differ", func(t *testing.T, d1, d2 string) TargetOptions {
			write(t, filepath.Join(d2, "meta.properties"), "cluster.id=BBBBBBBBBBBBBBBBBBBBBB\nnode.id=2\n")
			return TargetOptions{Dirs: []string{d1, d2}}
		}, true, " has cluster id BBBBBBBBBBBBBBBBBBBBBB but "},
		{"corrupt checkpoint", func(t *testing.T, d1, _ string) TargetOptions {
			p := filepath.Join(d1, kraftcheckpoint.FileName)
			b, _ := os.ReadFile(p)
			b[bytes.Index(b, []byte("metadata.version"))] ^= 1
			write(t, p, string(b))
			return TargetOptions{Dirs: []string{d1}}
		}, false, "CRC32C mismatch"},
		{"truncated --in file", func(t *testing.T, d1, _ string) TargetOptions {
			p := filepath.Join(d1, kraftcheckpoint.FileName)
			b, _ := os.ReadFile(p)
			write(t, p, string(b[:len(b)-10]))
			return TargetOptions{In: p}
		}, false, "truncated"},
		{"missing --in file", func(t *testing.T, d1, _ string) TargetOptions {
			return TargetOptions{In: filepath.Join(d1, "nosuch")}
		}, false, "no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d1, d2 := metadataDir(t, "AAAAAAAAAAAAAAAAAAAAAA"), metadataDir(t, "AAAAAAAAAAAAAAAAAAAAAA")
			o := tc.setup(t, d1, d2)
			ts, err := Load(o)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if len(ts) != len(o.Dirs) {
					t.Fatalf("%d targets, want %d", len(ts), len(o.Dirs))
				}
				for i, tg := range ts {
					if tg.ClusterID != "AAAAAAAAAAAAAAAAAAAAAA" || tg.NodeID != "1" || tg.MetadataVersion != 27 || tg.Records != 6 ||
						tg.File != filepath.Join(o.Dirs[i], kraftcheckpoint.FileName) || tg.Out != tg.File {
						t.Errorf("target %d: %+v", i, tg)
					}
				}
				return
			}
			var de *DirError
			if err == nil || !strings.Contains(err.Error(), tc.want) || errors.As(err, &de) != tc.dir {
				t.Fatalf("error %v (DirError %v), want %q (DirError %v)", err, errors.As(err, &de), tc.want, tc.dir)
			}
			if tc.dir && (!strings.HasPrefix(de.Detail, tc.want) || !slices.Contains(o.Dirs, de.Dir)) {
				t.Errorf("DirError %q %q, want one of %v and a detail starting %q", de.Dir, de.Detail, o.Dirs, tc.want)
			}
		})
	}
}

// TestLoadIn: --in alone writes back to itself; with Out, to Out.
func TestLoadIn(t *testing.T) {
	for _, tc := range []struct{ in, out, want string }{{kafka41Checkpoint, "", kafka41Checkpoint}, {kafka41Checkpoint, "x", "x"}} {
		ts, err := Load(TargetOptions{In: tc.in, Out: tc.out})
		if err != nil || len(ts) != 1 || ts[0].Out != tc.want || ts[0].Dir != "" || ts[0].ClusterID != "" {
			t.Errorf("in %q out %q: %+v %v, want out %q", tc.in, tc.out, ts, err, tc.want)
		}
	}
}

func cred(name string, m kraftcheckpoint.Mechanism, fill byte) kraftcheckpoint.ScramCredential {
	size := 32
	if m == kraftcheckpoint.ScramSHA512 {
		size = 64
	}
	return kraftcheckpoint.ScramCredential{Name: name, Mechanism: m, Salt: []byte("salt-" + name),
		StoredKey: bytes.Repeat([]byte{fill}, size), ServerKey: bytes.Repeat([]byte{fill + 1}, size), Iterations: 4096}
}

// TestExtend: what the checkpoint lacks is added, what it holds (by user
// and mechanism, token id, topic name) is kept and named; the extended
// file parses back with Kafka's records first; extending the result with
// the same seed adds nothing; tokens need metadata.version 3.6-IV2.
func TestExtend(t *testing.T) {
	now := time.UnixMilli(1764600000000)
	token := kraftcheckpoint.DelegationToken{Owner: "User:alice", Requester: "User:alice", Renewers: []string{},
		IssueTimestamp: 1, MaxTimestamp: 4102444800000, ExpirationTime: 4102444800000, TokenID: "tok"}
	topic := Topic{Topic: kraftcheckpoint.Topic{Name: "orders", ID: [16]byte{1, 2, 3}},
		Partitions: []kraftcheckpoint.Partition{{Partition: 0, TopicID: [16]byte{1, 2, 3}, Replicas: []int32{1, 2}, ISR: []int32{1, 2}, Removing: []int32{}, Adding: []int32{}, Leader: 1}}}
	for _, tc := range []struct {
		name        string
		seed        Seed
		level       int16 // metadata.version to pretend; 0: the file's
		added, kept []User
		tokens      []string
		topics      []string
		records     int // added
		wantErr     string
	}{
		{name: "nothing", seed: Seed{}, added: []User{}, kept: []User{}},
		{name: "admin kept, others added",
			seed:  Seed{Creds: []kraftcheckpoint.ScramCredential{cred("admin", kraftcheckpoint.ScramSHA256, 1), cred("alice", kraftcheckpoint.ScramSHA512, 3), cred("bob", kraftcheckpoint.ScramSHA256, 5)}},
			added: []User{{"alice", "SCRAM-SHA-512", 4096}, {"bob", "SCRAM-SHA-256", 4096}}, kept: []User{{"admin", "SCRAM-SHA-256", 4096}}, records: 2},
		{name: "token and topic",
			seed:  Seed{Tokens: []kraftcheckpoint.DelegationToken{token}, Topics: []Topic{topic}},
			added: []User{}, kept: []User{}, tokens: []string{"tok"}, topics: []string{"orders"}, records: 3},
		{name: "tokens before 3.6-IV2", seed: Seed{Tokens: []kraftcheckpoint.DelegationToken{token}}, level: 13,
			wantErr: "metadata.version level 13 has no delegation tokens"},
		{name: "invalid credential", seed: Seed{Creds: []kraftcheckpoint.ScramCredential{{Name: "x", Mechanism: kraftcheckpoint.ScramSHA256, Iterations: 1}}},
			wantErr: "User:x SCRAM-SHA-256: empty salt"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts, err := Load(TargetOptions{In: kafka41Checkpoint})
			if err != nil {
				t.Fatal(err)
			}
			tg := &ts[0]
			if tc.level != 0 {
				tg.MetadataVersion = tc.level
			}
			err = tg.Extend(tc.seed, now)
			if tc.wantErr != "" {
				var te *TokenVersionError
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.HasPrefix(err.Error(), kafka41Checkpoint) {
					t.Fatalf("error %v, want %q naming the file", err, tc.wantErr)
				}
				if tc.level != 0 && !errors.As(err, &te) {
					t.Errorf("%v is not a TokenVersionError", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.added, tg.Added); d != "" {
				t.Errorf("added (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.kept, tg.Kept); d != "" {
				t.Errorf("kept (-want +got):\n%s", d)
			}
			if !sameStrings(tc.tokens, tg.AddedTokens) || !sameStrings(tc.topics, tg.AddedTopics) {
				t.Errorf("tokens %v topics %v, want %v %v", tg.AddedTokens, tg.AddedTopics, tc.tokens, tc.topics)
			}
			cp, err := kraftcheckpoint.Parse(tg.data)
			if err != nil {
				t.Fatal(err)
			}
			if got := len(cp.Records()) - tg.Records; got != tc.records {
				t.Errorf("%d records added, want %d", got, tc.records)
			}
			orig, _ := os.ReadFile(kafka41Checkpoint)
			if tc.records == 0 && !bytes.Equal(tg.data, orig) {
				t.Error("nothing to add, yet the bytes differ")
			}
			// Again, on the extended file: everything is kept.
			again := Target{File: "again", cp: cp, MetadataVersion: tg.MetadataVersion}
			if err := again.Extend(tc.seed, now); err != nil {
				t.Fatal(err)
			}
			if again.AddedCount() != 0 || len(again.Kept)+len(again.KeptTokens)+len(again.KeptTopics) != len(tc.seed.Creds)+len(tc.seed.Tokens)+len(tc.seed.Topics) {
				t.Errorf("second extend: %+v", again)
			}
		})
	}
}

func sameStrings(a, b []string) bool { return strings.Join(a, ",") == strings.Join(b, ",") }

// TestWrite: written targets are replaced atomically, mode 0600, no
// temporary file left; a target with nothing to add is left alone; the
// first that cannot be written stops the rest, the earlier ones stay
// written.
func TestWrite(t *testing.T) {
	d := t.TempDir()
	in := filepath.Join(d, "in.checkpoint")
	data, _ := os.ReadFile(kafka41Checkpoint)
	write(t, in, string(data))
	seed := Seed{Creds: []kraftcheckpoint.ScramCredential{cred("alice", kraftcheckpoint.ScramSHA256, 7)}}
	var ts []Target
	for _, out := range []string{in, filepath.Join(d, "same"), filepath.Join(d, "missing", "out"), filepath.Join(d, "after")} {
		tg, err := Load(TargetOptions{In: in, Out: out})
		if err != nil {
			t.Fatal(err)
		}
		s := seed
		if strings.HasSuffix(out, "same") {
			s = Seed{} // nothing to add
		}
		if err := tg[0].Extend(s, time.Now()); err != nil {
			t.Fatal(err)
		}
		ts = append(ts, tg[0])
	}
	want := ts[0].data
	err := Write(ts)
	if err == nil || !strings.HasPrefix(err.Error(), "write "+filepath.Join(d, "missing", "out")+": ") {
		t.Fatalf("error %v, want one naming the missing directory's file", err)
	}
	got := []bool{ts[0].Written, ts[1].Written, ts[2].Written, ts[3].Written}
	if d := cmp.Diff([]bool{true, false, false, false}, got); d != "" {
		t.Errorf("written (-want +got):\n%s", d)
	}
	if b, _ := os.ReadFile(in); !bytes.Equal(b, want) {
		t.Error("the written file is not the extended checkpoint")
	}
	if st, _ := os.Stat(in); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", st.Mode().Perm())
	}
	es, _ := os.ReadDir(d)
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	if d := cmp.Diff([]string{"in.checkpoint"}, names); d != "" {
		t.Errorf("files (-want +got):\n%s", d)
	}
}

func scram(salt, fill byte, size int) string {
	b := func(c byte, n int) string { return base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{c}, n)) }
	return "salt=" + b(salt, 8) + ",stored_key=" + b(fill, size) + ",server_key=" + b(fill+1, size) + ",iterations=4096"
}

// TestReadSource: credentials with their keys, filtered by principal; a
// malformed one named and skipped; live tokens kept, expired and bad ones
// named; topics with an id become records (removing replicas left out,
// first replica leader), internal, pending-deletion and id-less topics
// are named or left out.
func TestReadSource(t *testing.T) {
	n := func(p, d string) zktree.Node { return zktree.Node{Path: p, Data: []byte(d)} }
	tree := &zktree.Tree{Nodes: []zktree.Node{
		n("/", ""), n("/cluster", ""), n("/cluster/id", `{"version":"1","id":"src-cluster"}`),
		n("/config", ""), n("/config/users", ""),
		n("/config/users/alice", `{"version":1,"config":{"SCRAM-SHA-256":"`+scram(1, 2, 32)+`","SCRAM-SHA-512":"`+scram(3, 4, 64)+`"}}`),
		n("/config/users/bob", `{"version":1,"config":{"SCRAM-SHA-256":"`+scram(5, 6, 32)+`"}}`),
		n("/config/users/eve", `{"version":1,"config":{"SCRAM-SHA-256":"salt=YQ==,stored_key=YQ==,server_key=YQ==,iterations=4096"}}`),
		n("/delegation_token", ""), n("/delegation_token/tokens", ""),
		n("/delegation_token/tokens/live", `{"version":3,"owner":"User%3Aalice","tokenRequester":"User%3Aadmin","renewers":[],"issueTimestamp":1700000000000,"maxTimestamp":4102444800000,"expiryTimestamp":4102444800000,"tokenId":"live"}`),
		n("/delegation_token/tokens/old", `{"version":1,"owner":"User%3Aalice","renewers":[],"issueTimestamp":1600000000000,"maxTimestamp":1600604800000,"expiryTimestamp":1600086400000,"tokenId":"old"}`),
		n("/delegation_token/tokens/bad", `{"version":3}`),
		n("/brokers", ""), n("/brokers/topics", ""),
		n("/brokers/topics/orders", `{"partitions":{"0":[1,2,3],"1":[2,3,1]},"topic_id":"Wm4s3qv8RHSv0DVk2nJtYA","adding_replicas":{},"removing_replicas":{"1":[1]},"version":3}`),
		n("/brokers/topics/old-topic", `{"partitions":{"0":[1]},"version":1}`),
		n("/brokers/topics/doomed", `{"partitions":{"0":[2]},"topic_id":"AAAAAAAAAAAAAAAAAAAAAQ","version":3}`),
		n("/brokers/topics/__consumer_offsets", `{"partitions":{"0":[1]},"topic_id":"AAAAAAAAAAAAAAAAAAAAAg","version":3}`),
		n("/admin", ""), n("/admin/delete_topics", ""), n("/admin/delete_topics/doomed", ""),
	}}
	tree.Sort()
	now := time.UnixMilli(1764600000000)
	ordersID, _ := base64.RawURLEncoding.DecodeString("Wm4s3qv8RHSv0DVk2nJtYA")
	for _, tc := range []struct {
		name   string
		o      SourceOptions
		creds  []string
		want   Result
		topics []Topic
	}{
		{"credentials", SourceOptions{Now: now}, []string{"alice SCRAM-SHA-256", "alice SCRAM-SHA-512", "bob SCRAM-SHA-256"},
			Result{Source: "tree", ClusterID: "src-cluster", Found: 3, Skipped: []string{"/config/users/eve: User:eve SCRAM-SHA-256: stored key of 1 bytes and server key of 1 bytes, want 32 each"}}, nil},
		{"principals", SourceOptions{Principals: regexp.MustCompile("^User:bob$"), Now: now}, []string{"bob SCRAM-SHA-256"},
			Result{Source: "tree", ClusterID: "src-cluster", Found: 1}, nil},
		{"tokens", SourceOptions{Principals: regexp.MustCompile("^$"), Tokens: true, Now: now}, nil,
			Result{Source: "tree", ClusterID: "src-cluster", Tokens: 1, Expired: []string{"old"}, Skipped: []string{"/delegation_token/tokens/bad: " + badTokenMessage(t)}}, nil},
		{"topics", SourceOptions{Principals: regexp.MustCompile("^$"), TopicIDs: true, Now: now}, nil,
			Result{Source: "tree", ClusterID: "src-cluster", Topics: 1, NoTopicID: []string{"old-topic"}, Pending: []string{"doomed"}, BrokerIDs: []int32{1, 2, 3}},
			[]Topic{{Topic: kraftcheckpoint.Topic{Name: "orders", ID: [16]byte(ordersID)}, Partitions: []kraftcheckpoint.Partition{
				{Partition: 0, TopicID: [16]byte(ordersID), Replicas: []int32{1, 2, 3}, ISR: []int32{1, 2, 3}, Removing: []int32{}, Adding: []int32{}, Leader: 1},
				{Partition: 1, TopicID: [16]byte(ordersID), Replicas: []int32{2, 3}, ISR: []int32{2, 3}, Removing: []int32{}, Adding: []int32{}, Leader: 2}}}}},
		{"topics filtered", SourceOptions{Principals: regexp.MustCompile("^$"), TopicIDs: true, Topics: regexp.MustCompile("^old"), Now: now}, nil,
			Result{Source: "tree", ClusterID: "src-cluster", NoTopicID: []string{"old-topic"}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var res Result
			seed, err := ReadSource(context.Background(), tree, "tree", tc.o, &res)
			if err != nil {
				t.Fatal(err)
			}
			var creds []string
			for _, c := range seed.Creds {
				creds = append(creds, c.Name+" "+c.Mechanism.String())
				if err := c.Validate(); err != nil || c.Iterations != 4096 {
					t.Errorf("%s: %v", c, err)
				}
			}
			if d := cmp.Diff(tc.creds, creds); d != "" {
				t.Errorf("credentials (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.want, res, cmp.AllowUnexported(Target{})); d != "" {
				t.Errorf("result (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.topics, seed.Topics); d != "" {
				t.Errorf("topics (-want +got):\n%s", d)
			}
			if tc.o.Tokens && (len(seed.Tokens) != 1 || seed.Tokens[0].TokenID != "live" || seed.Tokens[0].Owner != "User:alice") {
				t.Errorf("tokens %+v, want live's", seed.Tokens)
			}
		})
	}
}

// badTokenMessage is what zkread says of {"version":3} as a token.
func badTokenMessage(t *testing.T) string {
	t.Helper()
	tree := &zktree.Tree{Nodes: []zktree.Node{{Path: "/"}, {Path: "/delegation_token"}, {Path: "/delegation_token/tokens"},
		{Path: "/delegation_token/tokens/bad", Data: []byte(`{"version":3}`)}}}
	var res Result
	if _, err := readTokens(tree, &res, time.Now()); err != nil || len(res.Skipped) != 1 {
		t.Fatalf("%v %v", err, res.Skipped)
	}
	return strings.TrimPrefix(res.Skipped[0], "/delegation_token/tokens/bad: ")
}

// TestShow: the listing counts records by kind, names users and
// mechanisms and never a key; a directory means its checkpoint.
func TestShow(t *testing.T) {
	d := metadataDir(t, "AAAAAAAAAAAAAAAAAAAAAA")
	for _, path := range []string{kafka41Checkpoint, d} {
		l, err := Show(path)
		if err != nil {
			t.Fatal(err)
		}
		want := []Kind{{"FeatureLevelRecord", 4}, {"UserScramCredentialRecord", 2}}
		if d := cmp.Diff(want, l.Kinds); d != "" || l.Records != 6 || l.Batches != 3 || len(l.Features) != 4 || len(l.Scram) != 2 || l.Scram[0].User != "admin" {
			t.Errorf("%s: %+v\n%s", path, l, d)
		}
	}
	bad := filepath.Join(d, "bad")
	data, _ := os.ReadFile(kafka41Checkpoint)
	write(t, bad, string(data[:len(data)-1]))
	if _, err := Show(bad); err == nil || !strings.HasPrefix(err.Error(), bad+": ") || strings.Contains(err.Error(), "kraftcheckpoint:") {
		t.Errorf("truncated: %v", err)
	}
}
