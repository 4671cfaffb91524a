package authz

import (
	"fmt"
	"syscall"
	"testing"
	"time"
)

// scaleACLs is the bench tree's shape at 50,000 topics: 100,000 ACLs —
// 5,000 principals, each reading literal topics and writing some teams'
// prefixes ("team042.", about 66 principals each), its consumer group,
// some DENY prefixes and cluster grants, User:* describing some teams'
// topics, hosts mostly "*" — much as internal/check's benchmark builds it.
func scaleACLs() []ACL {
	var acls []ACL
	for i := 0; len(acls) < 100000; i++ {
		principal := fmt.Sprintf("User:app-%04d", i%5000)
		topic := fmt.Sprintf("team%03d.topic-%05d", i%500, i%50000)
		host := "*"
		if i%7 == 0 {
			host = fmt.Sprintf("10.0.%d.%d", i%250, i%200)
		}
		acls = append(acls,
			ACL{Type: ResourceTopic, Name: topic, Pattern: PatternLiteral, Principal: principal, Host: host, Operation: OpRead, Permission: Allow},
			ACL{Type: ResourceTopic, Name: fmt.Sprintf("team%03d.", i%500), Pattern: PatternPrefixed, Principal: fmt.Sprintf("User:app-%04d", i%4999), Host: "*", Operation: OpWrite, Permission: Allow},
			ACL{Type: ResourceGroup, Name: principal[5:], Pattern: PatternLiteral, Principal: principal, Host: "*", Operation: OpRead, Permission: Allow})
		if i%50 == 0 {
			acls = append(acls,
				ACL{Type: ResourceTopic, Name: fmt.Sprintf("team%03d.topic-", i%500), Pattern: PatternPrefixed, Principal: principal, Host: "*", Operation: OpRead, Permission: Deny},
				ACL{Type: ResourceCluster, Name: ClusterName, Pattern: PatternLiteral, Principal: principal, Host: "*", Operation: OpCreate, Permission: Allow},
				ACL{Type: ResourceGroup, Name: principal[5:], Pattern: PatternLiteral, Principal: principal, Host: "*", Operation: OpDescribe, Permission: Allow})
		}
		if i%100 == 0 { // everyone may describe a team's topics, and nobody writes some topics
			acls = append(acls,
				ACL{Type: ResourceTopic, Name: fmt.Sprintf("team%03d.", i%500), Pattern: PatternPrefixed, Principal: WildcardPrincipal, Host: "*", Operation: OpDescribe, Permission: Allow},
				ACL{Type: ResourceTopic, Name: topic, Pattern: PatternLiteral, Principal: WildcardPrincipal, Host: "*", Operation: OpWrite, Permission: Deny})
		}
	}
	return acls
}

// scaleRequests is a mix of requests on the scale tree: topics of the
// principal's team and of others, its group, unnamed names, hosts in and
// out of the ACLs.
func scaleRequests() []Request {
	ops := []Operation{OpRead, OpWrite, OpDescribe, OpDescribeConfigs, OpCreate, OpAlter}
	var rs []Request
	for i := range 4096 {
		p := fmt.Sprintf("User:app-%04d", (i*37)%5000)
		r := Request{Principal: p, Host: fmt.Sprintf("10.0.%d.%d", i%250, i%200), Operation: ops[i%len(ops)], Type: ResourceTopic,
			Name: fmt.Sprintf("team%03d.topic-%05d", i%500, (i*101)%50000)}
		switch i % 8 {
		case 4: // someone without ACLs, where User:* may describe
			r.Principal, r.Operation = "User:someone-else", ops[(i/8)%len(ops)]
			r.Name = fmt.Sprintf("team%03d.topic-%05d", (i/8)%5*100, i)
		case 5:
			r.Type, r.Name = ResourceGroup, p[5:]
		case 6:
			r.Name = fmt.Sprintf("unnamed-%d", i)
		case 7:
			r.Host = "192.168.1.1"
		}
		rs = append(rs, r)
	}
	return rs
}

var sink Decision

// cpuNsPerOp reports the process's CPU time (user and system, GC included)
// per iteration of f: on a shared machine wall time also counts the wait
// for a core, CPU time does not.
func cpuNsPerOp(b *testing.B, f func()) {
	cpu := func() time.Duration {
		var ru syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
			b.Fatal(err)
		}
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	b.ReportAllocs()
	start, n := cpu(), 0
	for b.Loop() {
		f()
		n++
	}
	b.ReportMetric(float64(cpu()-start)/float64(n), "cpu-ns/op")
}

func BenchmarkNew100k(b *testing.B) {
	acls := scaleACLs()
	for _, k := range []struct {
		name string
		new  func([]ACL, Config) Authorizer
	}{{"ZK", NewZK}, {"KRaft", NewKRaft}} {
		b.Run(k.name, func(b *testing.B) {
			cpuNsPerOp(b, func() { k.new(acls, Config{SuperUsers: []string{"User:admin"}}) })
		})
	}
}

func BenchmarkAuthorize100k(b *testing.B) {
	acls, rs := scaleACLs(), scaleRequests()
	cfg := Config{SuperUsers: []string{"User:admin"}}
	for _, a := range []Authorizer{NewZK(acls, cfg), NewKRaft(acls, cfg)} {
		b.Run(a.Kind(), func(b *testing.B) {
			i := 0
			cpuNsPerOp(b, func() {
				sink = a.Authorize(rs[i%len(rs)])
				i++
			})
		})
	}
}

// BenchmarkKRaftWalk100k is StandardAuthorizer's walk taken step for step
// on every request (what Authorize does only where the walk can throw or
// loop): the cost the name lookups save.
func BenchmarkKRaftWalk100k(b *testing.B) {
	acls, rs := scaleACLs(), scaleRequests()
	k := NewKRaft(acls, Config{SuperUsers: []string{"User:admin"}}).(*kraftAuthorizer)
	i := 0
	cpuNsPerOp(b, func() {
		r := rs[i%len(rs)]
		sink = k.walk(k.types[r.Type].entries, &r)
		i++
	})
}

func BenchmarkAuthorizeByResourceType100k(b *testing.B) {
	acls, rs := scaleACLs(), scaleRequests()
	cfg := Config{SuperUsers: []string{"User:admin"}}
	for _, a := range []Authorizer{NewZK(acls, cfg), NewKRaft(acls, cfg)} {
		b.Run(a.Kind(), func(b *testing.B) {
			i := 0
			cpuNsPerOp(b, func() {
				r := rs[i%len(rs)]
				sink = a.AuthorizeByResourceType(r.Principal, r.Host, OpWrite, ResourceTopic)
				i++
			})
		})
	}
}

// TestScaleAgree: at the bench tree's scale (spans of ACLs large enough to
// be indexed by principal), where no name has "*" or a character below it,
// both ports decide every benchmark request as StandardAuthorizer's walk,
// taken step for step, does; and the decisions are not all one kind.
func TestScaleAgree(t *testing.T) {
	acls, rs := scaleACLs(), scaleRequests()
	z, k := NewZK(acls, Config{}), NewKRaft(acls, Config{}).(*kraftAuthorizer)
	seen := map[ReasonKind]int{}
	for _, r := range rs {
		zd, kd, wd := z.Authorize(r), k.Authorize(r), k.walk(k.types[r.Type].entries, &r)
		if zd.Allowed != wd.Allowed || zd.Reason != wd.Reason || kd.Allowed != wd.Allowed || kd.Reason != wd.Reason {
			t.Fatalf("%s: AclAuthorizer %s, StandardAuthorizer %s, its walk %s", r, zd, kd, wd)
		}
		seen[zd.Reason]++
	}
	for _, want := range []ReasonKind{AllowACL, DenyACL, NoACLDeny, NoMatchingAllow} {
		if seen[want] == 0 {
			t.Errorf("no request decided %s: %v", want, seen)
		}
	}
}
