package migration

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/zkmigrate/zkmigrate/internal/secret"
	"github.com/zkmigrate/zkmigrate/internal/zkdisk"
	"github.com/zkmigrate/zkmigrate/internal/zkread"
)

const zkDataFixture = "../zkdisk/testdata/datadir"

// A migration read of a data dir leaves out of the tree the znodes zkread
// never reads in that mode (below each topic's znode), and its snapshot is
// the one zkread makes from the whole replayed tree; a full read keeps them.
func TestZKDataDirUnread(t *testing.T) {
	ctx := context.Background()
	clock := func() time.Time { return time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC) }
	res, err := zkdisk.Read(zkdisk.Options{DataDir: zkDataFixture})
	if err != nil {
		t.Fatal(err)
	}
	tree, err := res.Tree("")
	if err != nil {
		t.Fatal(err)
	}
	skipped := 0
	for _, n := range tree.Nodes {
		if unread("", false)(n.Path) {
			skipped++
			if !strings.Contains(n.Path, "/partitions") {
				t.Errorf("%s left out of a migration read", n.Path)
			}
		}
	}
	if skipped < 10 {
		t.Fatalf("only %d znodes below topics in the fixture", skipped)
	}
	if unread("", true) != nil {
		t.Error("a full read leaves znodes out")
	}
	for _, full := range []bool{false, true} {
		got, err := readDataDir(ctx, &DataDirSource{Dir: zkDataFixture}, zkread.Options{Full: full, Now: clock}, Hooks{})
		if err != nil {
			t.Fatal(err)
		}
		want, err := zkread.Read(ctx, zkdisk.Source{Tree: tree, Zxid: res.Zxid}, zkread.Options{Full: full, Now: clock, Address: got.Address})
		if err != nil {
			t.Fatal(err)
		}
		want.Read.Offline = got.Read.Offline
		if d := cmp.Diff(want, got, cmp.AllowUnexported(secret.Secret{})); d != "" {
			t.Errorf("full=%v: snapshot differs from zkread over the whole tree (-whole +read):\n%s", full, d)
		}
	}
}
