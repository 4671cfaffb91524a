package access

import (
	"context"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/testkit/zkgen"
	"github.com/zkmigrate/zkmigrate/internal/zkread"
)

// benchACLs are the ACLs of the 50,000-topic bench tree (zkgen.Full:
// 100,000 ACL entries), read by zkread, built once per test binary.
var benchACLs = sync.OnceValues(func() ([]snapshot.ACL, error) { return generatedACLs(zkgen.Full(1)) })

func benchNode(class, super string) Node { return node(class, class, super, "") }

// BenchmarkCompareFullScale proves the bench tree's ACLs migrated as they
// are (equivalent but for what the two authorizers decide differently),
// and with one ACL in a hundred dropped.
func BenchmarkCompareFullScale(b *testing.B) {
	acls, err := benchACLs()
	if err != nil {
		b.Fatal(err)
	}
	dropped := make([]snapshot.ACL, 0, len(acls))
	for i, a := range acls {
		if i%100 != 7 {
			dropped = append(dropped, a)
		}
	}
	for _, tc := range []struct {
		name   string
		target []snapshot.ACL
	}{{"same", acls}, {"dropped-1pct", dropped}} {
		b.Run(tc.name, func(b *testing.B) {
			in := Input{
				Source: Side{Name: "source", ACLs: acls, Nodes: []Node{benchNode(ClassAclAuthorizer, "User:admin")}},
				Target: Side{Name: "target", ACLs: tc.target, Nodes: []Node{benchNode(ClassStandardAuthorizer, "User:admin")}},
			}
			b.ReportAllocs()
			var r *Result
			cpu0 := cpuTime()
			for b.Loop() {
				if r, err = Compare(in); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
			b.ReportMetric(float64(r.Classes), "classes")
			b.ReportMetric(float64(r.Differing), "differing")
			b.ReportMetric(float64(len(r.Groups)), "groups")
		})
	}
}

// BenchmarkCompareShortcut sets the proof's shortcut (a principal none of
// a name's own ACLs names decided once per class of names, over just the
// ACLs that can matter, and content decided alike reused) beside deciding
// every class over every ACL, at a tenth of the bench tree (10,000 ACLs;
// ZKM_BENCH_ACCESS_TREE=full: the whole tree, where the full way takes
// minutes).
func BenchmarkCompareShortcut(b *testing.B) {
	tree := smallACLs
	if os.Getenv("ZKM_BENCH_ACCESS_TREE") == "full" {
		tree = benchACLs
	}
	acls, err := tree()
	if err != nil {
		b.Fatal(err)
	}
	in := Input{
		Source: Side{Name: "source", ACLs: acls, Nodes: []Node{benchNode(ClassAclAuthorizer, "User:admin")}},
		Target: Side{Name: "target", ACLs: acls, Nodes: []Node{benchNode(ClassStandardAuthorizer, "User:admin")}},
	}
	for _, tc := range []struct {
		name  string
		every bool
	}{{"shortcut", false}, {"every-class", true}} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			var r *Result
			cpu0 := cpuTime()
			for b.Loop() {
				if r, err = compare(in, tc.every); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
			b.ReportMetric(float64(r.Classes), "classes")
		})
	}
}

// smallACLs are the ACLs of a tenth of the bench tree (5,000 topics,
// 10,000 ACL entries).
var smallACLs = sync.OnceValues(func() ([]snapshot.ACL, error) {
	c := zkgen.Full(1)
	c.Topics, c.ACLs, c.ScramUsers, c.QuotaEntities = c.Topics/10, c.ACLs/10, c.ScramUsers/10, c.QuotaEntities/10
	return generatedACLs(c)
})

func generatedACLs(c zkgen.Config) ([]snapshot.ACL, error) {
	w := zkgen.NewTreeWriter()
	ctx := context.Background()
	if _, err := zkgen.Generate(ctx, c, w, zkgen.Options{}); err != nil {
		return nil, err
	}
	s, err := zkread.Read(ctx, w.Tree(), zkread.Options{})
	if err != nil {
		return nil, err
	}
	return s.ACLs, nil
}

// cpuTime is the process's user+system CPU time so far: on a shared
// machine the figure that does not depend on the others' load.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
