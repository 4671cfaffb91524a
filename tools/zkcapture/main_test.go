package main

import (
	"bytes"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zkmigrate/zkmigrate/internal/testkit/testbed"
	"github.com/zkmigrate/zkmigrate/internal/zktree"
)

// fakeZK is an in-memory reader: path → data; stat fields derived from it.
type fakeZK struct {
	data      map[string]string
	ephemeral map[string]bool
	noAuth    map[string]bool
	gone      map[string]bool // listed as a child, deleted before Get
}

func (f *fakeZK) Get(p string) ([]byte, *zk.Stat, error) {
	if f.noAuth[p] {
		return nil, nil, zk.ErrNoAuth
	}
	d, ok := f.data[p]
	if !ok || f.gone[p] {
		return nil, nil, zk.ErrNoNode
	}
	st := &zk.Stat{Czxid: int64(len(p)), Mzxid: int64(len(p) + 1), Version: int32(len(d))}
	if f.ephemeral[p] {
		st.EphemeralOwner = 42
	}
	return []byte(d), st, nil
}

func (f *fakeZK) Children(p string) ([]string, *zk.Stat, error) {
	if f.noAuth[p] {
		return nil, nil, zk.ErrNoAuth
	}
	if _, ok := f.data[p]; !ok {
		return nil, nil, zk.ErrNoNode
	}
	var kids []string
	for q := range f.data {
		if q != "/" && path.Dir(q) == p {
			kids = append(kids, path.Base(q))
		}
	}
	slices.Sort(kids)
	return kids, &zk.Stat{}, nil
}

func paths(t *zktree.Tree) []string {
	var out []string
	for _, n := range t.Nodes {
		out = append(out, n.Path)
	}
	return out
}

func TestCapture(t *testing.T) {
	f := &fakeZK{
		data: map[string]string{
			"/": "", "/zookeeper": "", "/zookeeper/quota": "",
			"/kafka": "", "/kafka/cluster": "", "/kafka/cluster/id": `{"version":"1","id":"x"}`,
			"/kafka/controller": `{"version":2}`, "/kafka/config": "", "/kafka/config/users": "",
			"/kafka/config/users/alice": "secret-ish", "/kafka/admin": "", "/kafka/admin/gone": "",
			"/other": "o",
		},
		ephemeral: map[string]bool{"/kafka/controller": true},
		noAuth:    map[string]bool{"/kafka/config/users": true},
		gone:      map[string]bool{"/kafka/admin/gone": true},
	}
	tests := []struct {
		name, root string
		skip       []string
		want       []string
	}{
		{"whole tree skips /zookeeper", "/", []string{"/zookeeper"},
			[]string{"/", "/kafka", "/kafka/admin", "/kafka/cluster", "/kafka/cluster/id", "/kafka/config", "/kafka/config/users", "/kafka/controller", "/other"}},
		{"chroot paths are relative", "/kafka", []string{"/zookeeper"},
			[]string{"/", "/admin", "/cluster", "/cluster/id", "/config", "/config/users", "/controller"}},
		{"skip a subtree under the chroot", "/kafka", []string{"/config"},
			[]string{"/", "/admin", "/cluster", "/cluster/id", "/controller"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tree, err := capture(f, tc.root, tc.skip)
			if err != nil {
				t.Fatal(err)
			}
			if got := paths(tree); !slices.Equal(got, tc.want) {
				t.Fatalf("paths\n got %q\nwant %q", got, tc.want)
			}
		})
	}

	tree, err := capture(f, "/kafka", nil)
	if err != nil {
		t.Fatal(err)
	}
	data, st, err := tree.Get("/cluster/id")
	if err != nil || string(data) != `{"version":"1","id":"x"}` || st.Czxid != int64(len("/kafka/cluster/id")) || st.Version != 24 {
		t.Errorf("/cluster/id = %q %+v %v", data, st, err)
	}
	if _, st, _ := tree.Get("/controller"); !st.Ephemeral {
		t.Error("/controller not marked ephemeral")
	}
	if _, _, err := tree.Get("/config/users"); err != zktree.ErrNoAuth {
		t.Errorf("/config/users: err %v, want ErrNoAuth", err)
	}
	if d, _, _ := tree.Get("/admin"); d != nil {
		t.Errorf("empty data captured as %q, want nil", d)
	}
}

func TestRunFlags(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"-out", "x.json"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "-zk is required") {
		t.Errorf("no -zk: exit %d, stderr %q", code, errb.String())
	}
}

// TestCaptureTestBed captures the test bed's ZooKeeper (read-only) and checks
// the legacy state's landmarks are in the tree.
func TestCaptureTestBed(t *testing.T) {
	addr := testbed.ZK(t)
	var out, errb bytes.Buffer
	if code := run([]string{"-zk", addr}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	tree, err := zktree.Decode(&out)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/cluster/id", "/brokers/topics/orders", "/admin/delete_topics/doomed", "/config/users/CN%3Dfoo%2COU%3Dbar"} {
		if _, _, err := tree.Get(p); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	if _, _, err := tree.Get("/zookeeper"); err != zktree.ErrNoNode {
		t.Errorf("/zookeeper captured (err %v); it is skipped by default", err)
	}
}
