package access_test

import (
	"context"
	"os"
	"sync"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/access"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/testkit/zkgen"
	"github.com/zkmigrate/zkmigrate/internal/zkread"
)

// benchACLs are the ACLs of the 50,000-topic bench tree (zkgen.Full:
// 100,000 ACL entries), read by zkread, built once per test binary.
var benchACLs = sync.OnceValues(func() ([]snapshot.ACL, error) {
	w := zkgen.NewTreeWriter()
	ctx := context.Background()
	if _, err := zkgen.Generate(ctx, benchConfig(), w, zkgen.Options{}); err != nil {
		return nil, err
	}
	s, err := zkread.Read(ctx, w.Tree(), zkread.Options{})
	if err != nil {
		return nil, err
	}
	return s.ACLs, nil
})

func benchNode(class, super string) access.Node {
	return access.Node{Name: class, Roles: []string{access.RoleBroker, access.RoleController},
		Class:         access.Setting{Value: class, Set: true, Known: true},
		SuperUsers:    access.Setting{Value: super, Set: true, Known: true},
		AllowEveryone: access.Setting{Known: true}}
}

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
			in := access.Input{
				Source: access.Side{Name: "source", ACLs: acls, Nodes: []access.Node{benchNode(access.ClassAclAuthorizer, "User:admin")}},
				Target: access.Side{Name: "target", ACLs: tc.target, Nodes: []access.Node{benchNode(access.ClassStandardAuthorizer, "User:admin")}},
			}
			b.ReportAllocs()
			var r *access.Result
			for b.Loop() {
				if r, err = access.Compare(in); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(r.Classes), "classes")
			b.ReportMetric(float64(r.Differing), "differing")
			b.ReportMetric(float64(len(r.Groups)), "groups")
		})
	}
}

// benchConfig is zkgen.Full, or a tenth of it with ZKM_BENCH_ACCESS_SMALL=1.
func benchConfig() zkgen.Config {
	c := zkgen.Full(1)
	if os.Getenv("ZKM_BENCH_ACCESS_SMALL") != "" {
		c.Topics, c.ACLs, c.ScramUsers, c.QuotaEntities = c.Topics/10, c.ACLs/10, c.ScramUsers/10, c.QuotaEntities/10
	}
	return c
}
