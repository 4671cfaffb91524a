// Package zktree holds a captured ZooKeeper tree: every znode's path, data
// and the stat fields the reader uses. Test fixtures in testdata/ are such
// captures (the raw tree exactly as Kafka wrote it), and the reader can run
// over a Tree in memory as it runs over a live ensemble.
package zktree

import (
	"encoding/json"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"

	"github.com/zkmigrate/zkmigrate/internal/infile"
)

// Node is one znode.
type Node struct {
	Path      string `json:"path"`
	Data      []byte `json:"data,omitempty"` // base64 in JSON; nil for null data
	Text      string `json:"text,omitempty"` // Data as text when it is valid UTF-8 (for reading fixtures; ignored on load)
	Czxid     int64  `json:"czxid,omitempty"`
	Mzxid     int64  `json:"mzxid,omitempty"`
	Version   int32  `json:"version,omitempty"`
	Ephemeral bool   `json:"ephemeral,omitempty"`
	// NoAuth marks a znode whose data the capturing client could not read.
	NoAuth bool `json:"no_auth,omitempty"`
}

// Tree is a set of znodes, sorted by path.
type Tree struct {
	Nodes []Node `json:"nodes"`
}

// Stat is the subset of a ZooKeeper stat the reader needs.
type Stat struct {
	Czxid     int64
	Mzxid     int64
	Version   int32
	Ephemeral bool
}

// ErrNoNode is returned for a path that is not in the tree.
var ErrNoNode = fmt.Errorf("zktree: node does not exist")

// ErrNoAuth is returned for a node captured as not readable.
var ErrNoAuth = fmt.Errorf("zktree: not authorized")

// Sort orders the nodes by path.
func (t *Tree) Sort() {
	slices.SortFunc(t.Nodes, func(a, b Node) int { return strings.Compare(a.Path, b.Path) })
}

func (t *Tree) find(p string) (*Node, bool) {
	i, ok := slices.BinarySearchFunc(t.Nodes, p, func(n Node, p string) int { return strings.Compare(n.Path, p) })
	if !ok {
		return nil, false
	}
	return &t.Nodes[i], true
}

// Get returns a node's data and stat.
func (t *Tree) Get(p string) ([]byte, Stat, error) {
	n, ok := t.find(p)
	if !ok {
		return nil, Stat{}, ErrNoNode
	}
	if n.NoAuth {
		return nil, Stat{}, ErrNoAuth
	}
	return n.Data, Stat{Czxid: n.Czxid, Mzxid: n.Mzxid, Version: n.Version, Ephemeral: n.Ephemeral}, nil
}

// Children returns the sorted names of a node's children.
func (t *Tree) Children(p string) ([]string, error) {
	if _, ok := t.find(p); !ok && p != "/" {
		return nil, ErrNoNode
	}
	prefix := strings.TrimSuffix(p, "/") + "/"
	i, _ := slices.BinarySearchFunc(t.Nodes, prefix, func(n Node, p string) int { return strings.Compare(n.Path, p) })
	var out []string
	for ; i < len(t.Nodes) && strings.HasPrefix(t.Nodes[i].Path, prefix); i++ {
		rest := t.Nodes[i].Path[len(prefix):]
		if rest != "" && !strings.Contains(rest, "/") {
			out = append(out, rest)
		}
	}
	return out, nil
}

// Load reads a tree from a JSON file.
func Load(file string) (*Tree, error) {
	c, err := infile.OpenContent(file, infile.Tree)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	if err := c.Expect(); err != nil {
		return nil, err
	}
	t, err := Decode(c)
	if err != nil {
		return nil, infile.Wrap(file, infile.Tree, fmt.Errorf("%s: %w", file, err))
	}
	return t, nil
}

// Decode reads a tree from JSON.
func Decode(r io.Reader) (*Tree, error) {
	var t Tree
	if err := json.NewDecoder(r).Decode(&t); err != nil {
		return nil, err
	}
	for i := range t.Nodes {
		t.Nodes[i].Path = path.Clean(t.Nodes[i].Path)
		t.Nodes[i].Text = ""
	}
	t.Sort()
	return &t, nil
}

// Encode writes the tree as indented JSON, with Text filled for readability.
func Encode(w io.Writer, t *Tree) error {
	c := Tree{Nodes: slices.Clone(t.Nodes)}
	c.Sort()
	for i := range c.Nodes {
		if d := c.Nodes[i].Data; len(d) > 0 && isText(d) {
			c.Nodes[i].Text = string(d)
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(&c)
}

func isText(b []byte) bool {
	s := string(b)
	for _, r := range s {
		if r == '\uFFFD' || (r < 0x20 && r != '\n' && r != '\t') {
			return false
		}
	}
	return true
}
