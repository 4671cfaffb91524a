// Command zkcapture reads a ZooKeeper tree, read-only, and writes it as a
// zktree JSON file: every znode's path, data and the stat fields the reader
// uses. It is how the fixtures in internal/zkread/testdata are made from the
// real test bed (make capture).
//
// Usage:
//
//	zkcapture -zk 127.0.0.1:21810 [-root /kafka] [-skip /zookeeper] -out tree.json
//
// With -root, the captured paths are relative to that root, as Kafka sees
// them under a chroot. It only ever calls Children and Get.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkmigrate/zkmigrate/internal/zktree"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

type skipList []string

func (s *skipList) String() string     { return strings.Join(*s, ",") }
func (s *skipList) Set(v string) error { *s = append(*s, path.Clean(v)); return nil }

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("zkcapture", flag.ContinueOnError)
	fs.SetOutput(stderr)
	server := fs.String("zk", "", "ZooKeeper `host:port[,host:port]` to read (required)")
	root := fs.String("root", "/", "subtree to capture; paths are written relative to it (a chroot)")
	out := fs.String("out", "-", "output `file` (- for stdout)")
	timeout := fs.Duration("timeout", 10*time.Second, "session timeout")
	skip := skipList{}
	fs.Var(&skip, "skip", "a `path` (relative to -root) to leave out with its subtree; repeatable (default /zookeeper)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *server == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "zkcapture: -zk is required and no arguments are taken")
		fs.Usage()
		return 2
	}
	if len(skip) == 0 {
		skip = skipList{"/zookeeper"}
	}
	conn, _, err := zk.Connect(strings.Split(*server, ","), *timeout, zk.WithLogInfo(false))
	if err != nil {
		fmt.Fprintf(stderr, "zkcapture: connect %s: %v\n", *server, err)
		return 1
	}
	defer conn.Close()
	tree, err := capture(conn, path.Clean("/"+*root), skip)
	if err != nil {
		fmt.Fprintf(stderr, "zkcapture: %s: %v\n", *server, err)
		return 1
	}
	w := stdout
	if *out != "-" {
		f, err := os.Create(*out)
		if err != nil {
			fmt.Fprintf(stderr, "zkcapture: %v\n", err)
			return 1
		}
		defer f.Close()
		w = f
	}
	if err := zktree.Encode(w, tree); err != nil {
		fmt.Fprintf(stderr, "zkcapture: write %s: %v\n", *out, err)
		return 1
	}
	fmt.Fprintf(stderr, "zkcapture: %d znodes under %s\n", len(tree.Nodes), *root)
	return 0
}

// reader is the read-only part of *zk.Conn that capture uses.
type reader interface {
	Get(p string) ([]byte, *zk.Stat, error)
	Children(p string) ([]string, *zk.Stat, error)
}

// capture walks the tree under root depth-first. Paths in the result are
// relative to root; skip holds such relative paths.
func capture(r reader, root string, skip []string) (*zktree.Tree, error) {
	t := &zktree.Tree{}
	var walk func(rel string) error
	walk = func(rel string) error {
		for _, s := range skip {
			if rel == s {
				return nil
			}
		}
		abs := path.Join(root, rel)
		data, st, err := r.Get(abs)
		switch {
		case errors.Is(err, zk.ErrNoNode):
			return nil // deleted while we walked
		case errors.Is(err, zk.ErrNoAuth):
			t.Nodes = append(t.Nodes, zktree.Node{Path: rel, NoAuth: true})
		case err != nil:
			return fmt.Errorf("get %s: %w", abs, err)
		default:
			n := zktree.Node{Path: rel, Czxid: st.Czxid, Mzxid: st.Mzxid, Version: st.Version, Ephemeral: st.EphemeralOwner != 0}
			if len(data) > 0 {
				n.Data = data
			}
			t.Nodes = append(t.Nodes, n)
		}
		kids, _, err := r.Children(abs)
		switch {
		case errors.Is(err, zk.ErrNoNode), errors.Is(err, zk.ErrNoAuth):
			return nil
		case err != nil:
			return fmt.Errorf("children %s: %w", abs, err)
		}
		for _, k := range kids {
			if err := walk(path.Join(rel, k)); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk("/"); err != nil {
		return nil, err
	}
	t.Sort()
	return t, nil
}
