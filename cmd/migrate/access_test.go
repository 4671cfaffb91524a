package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zkmigrate/zkmigrate/internal/access"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// accessBed writes both clusters of an access test as files: snapshots
// with ACLs, the source brokers' and the target nodes' properties.
type accessBed struct {
	dir                string
	src, tgt           string // snapshot files
	brokerCfg, nodeCfg string // properties files
}

func aclOf(s string) snapshot.ACL {
	f := strings.Fields(s)
	res := strings.SplitN(f[3], ":", 3)
	host := "*"
	if len(f) > 4 {
		host = f[4]
	}
	return snapshot.ACL{Permission: f[0], Principal: f[1], Operation: f[2], ResourceType: res[0], PatternType: res[1], ResourceName: res[2], Host: host}
}

// baseACLs are the source's ACLs in every access test.
var baseACLs = []string{
	"Allow User:alice Read Topic:LITERAL:orders",
	"Allow User:alice Read Group:PREFIXED:app-",
	"Allow User:bob Write Topic:PREFIXED:pay",
	"Allow User:CN=jakub,OU=eng Write Topic:LITERAL:orders",
	"Deny User:* Write Topic:LITERAL:audit",
	"Allow User:svc IdempotentWrite Cluster:LITERAL:kafka-cluster",
	"Allow User:alice Read Topic:LITERAL:orders 10.0.0.7",
}

func newAccessBed(t *testing.T, srcACLs, tgtACLs []string, brokerProps, nodeProps string) *accessBed {
	t.Helper()
	b := &accessBed{dir: t.TempDir()}
	write := func(name string, acls []string) string {
		s := &snapshot.Snapshot{Format: snapshot.FormatVersion, Source: snapshot.SourceZooKeeper, Address: "zk.example:2181"}
		if name == "target.json" {
			s.Source, s.Address = snapshot.SourceKafka, "kafka.example:9092"
		}
		for _, a := range acls {
			s.ACLs = append(s.ACLs, aclOf(a))
		}
		s.Sort()
		p := filepath.Join(b.dir, name)
		if err := snapshot.Save(p, s); err != nil {
			t.Fatal(err)
		}
		return p
	}
	b.src, b.tgt = write("source.json", srcACLs), write("target.json", tgtACLs)
	b.brokerCfg, b.nodeCfg = filepath.Join(b.dir, "server.properties"), filepath.Join(b.dir, "node.properties")
	for p, body := range map[string]string{b.brokerCfg: brokerProps, b.nodeCfg: nodeProps} {
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

const (
	zkBroker  = "broker.id=1\nauthorizer.class.name=kafka.security.authorizer.AclAuthorizer\nsuper.users=User:admin\nallow.everyone.if.no.acl.found=false\n"
	kraftNode = "process.roles=broker,controller\nnode.id=1\nauthorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer\n" +
		"super.users=User:admin\nallow.everyone.if.no.acl.found=false\n"
)

func (b *accessBed) args(cmd ...string) []string {
	out := append(cmd, "--snapshot", b.src, "--broker-config", b.brokerCfg, "--target-snapshot", b.tgt, "--target-config", b.nodeCfg)
	if cmd[len(cmd)-1] == "diff" {
		out = append(out, "--no-audit")
	}
	return out
}

// normalize replaces the test's temporary directory.
func (b *accessBed) normalize(s string) string { return strings.ReplaceAll(s, b.dir, "<DIR>") }

func accessGolden(t *testing.T, name, got string) {
	t.Helper()
	goldenFile(t, filepath.Join("testdata", "access", name), got)
}

// TestAccessDiffGolden: a faithful copy is proved equivalent (exit 0); a
// copy that lost a super user, an ACL and a principal's form reports each
// once (exit 3) in text, JSON and Markdown; the principal map and --accept
// bring it back to equivalent.
func TestAccessDiffGolden(t *testing.T) {
	same := newAccessBed(t, baseACLs, baseACLs, zkBroker, kraftNode)
	code, out, errs := runMigrate(t, same.args("access", "diff")...)
	if code != exitOK {
		t.Fatalf("equivalent: exit %d, stderr %s\n%s", code, errs, out)
	}
	accessGolden(t, "equivalent.txt", same.normalize(out))

	var lossy []string
	for _, a := range baseACLs {
		switch {
		case strings.Contains(a, "Group:PREFIXED:app-"):
			// dropped
		case strings.Contains(a, "CN=jakub"):
			lossy = append(lossy, strings.Replace(a, "User:CN=jakub,OU=eng", "User:jakub", 1))
		default:
			lossy = append(lossy, a)
		}
	}
	diff := newAccessBed(t, baseACLs, lossy, zkBroker, strings.Replace(kraftNode, "super.users=User:admin", "super.users=", 1))
	for _, o := range []struct{ format, file string }{{"text", "differences.txt"}, {"json", "differences.json"}, {"markdown", "differences.md"}} {
		code, out, errs := runMigrate(t, append(diff.args("access", "diff"), "-o", o.format)...)
		if code != exitPartial || errs != "" {
			t.Fatalf("%s: exit %d, stderr %q", o.format, code, errs)
		}
		accessGolden(t, o.file, diff.normalize(out))
		if o.format == "json" {
			var r access.Result
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatal(err)
			}
			kinds := map[string]int{}
			for _, g := range r.Groups {
				kinds[g.Kind]++
			}
			if want := map[string]int{"super-user": 1, "acl": 1, "principal-form": 1}; !cmp.Equal(kinds, want) {
				t.Errorf("causes %v, want %v", kinds, want)
			}
		}
	}

	mapFile := filepath.Join(diff.dir, "map.properties")
	if err := os.WriteFile(mapFile, []byte("zkmigrate.map=User:CN=jakub,OU=eng -> User:jakub\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, out, _ = runMigrate(t, append(diff.args("access", "diff"), "--principal-map", mapFile, "-o", "json")...)
	var r access.Result
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, g := range r.Groups {
		if g.Kind == "principal-form" {
			t.Errorf("with the map, the principal that changed form is still a cause: %s", g.Cause)
		}
		ids = append(ids, g.ID)
	}
	code, out, _ = runMigrate(t, append(diff.args("access", "diff"), "--principal-map", mapFile, "--accept", strings.Join(ids, ","))...)
	if code != exitOK || !strings.Contains(out, "EQUIVALENT but for 2 causes the operator accepted") {
		t.Errorf("accepted: exit %d\n%s", code, out)
	}
}

// TestAccessPlanned: --planned proves what the plan would leave: ACLs left
// behind by --principals are differences, the whole plan none.
func TestAccessPlanned(t *testing.T) {
	b := newAccessBed(t, baseACLs, nil, zkBroker, kraftNode)
	code, out, errs := runMigrate(t, append(b.args("access", "diff"), "--planned", "-o", "json")...)
	if code != exitOK {
		t.Fatalf("whole plan: exit %d %s\n%s", code, errs, out)
	}
	code, out, _ = runMigrate(t, append(b.args("access", "diff"), "--planned", "--principals", "^User:alice$", "-o", "json")...)
	var r access.Result
	if err := json.Unmarshal([]byte(out), &r); err != nil || code != exitPartial {
		t.Fatalf("exit %d, %v\n%s", code, err, out)
	}
	left := map[string]bool{}
	for _, g := range r.Groups {
		for _, p := range g.Principals {
			left[p] = true
		}
	}
	for _, p := range []string{"User:bob", "User:svc", "User:CN=jakub,OU=eng"} {
		if !left[p] {
			t.Errorf("%s's ACLs, left behind by --principals, are not reported: %v", p, left)
		}
	}
	if left["User:alice"] {
		t.Errorf("alice's ACLs are planned, yet reported")
	}
	// With a principal map the plan creates the ACL under the mapped
	// principal, and the proof compares the source's with map(P): proved.
	mapFile := filepath.Join(b.dir, "map.properties")
	if err := os.WriteFile(mapFile, []byte("ssl.principal.mapping.rules=RULE:^CN=([^,]+),OU=eng$/$1/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs = runMigrate(t, append(b.args("access", "diff"), "--planned", "--principal-map", mapFile)...)
	if code != exitOK || !strings.Contains(out, "EQUIVALENT") || !strings.Contains(out, "map.properties") {
		t.Errorf("--planned with the map: exit %d %s\n%s", code, errs, out)
	}
	if code, _, errs := runMigrate(t, append(b.args("access", "diff"), "--principals", "x")...); code != exitError || !strings.Contains(errs, "--planned") {
		t.Errorf("--principals without --planned: exit %d %q", code, errs)
	}
}

// TestAccessExplainAndWho: one request's decision and reason on each
// side; who may do what on one resource.
func TestAccessExplainAndWho(t *testing.T) {
	b := newAccessBed(t, baseACLs, baseACLs[1:], zkBroker, kraftNode)
	code, out, errs := runMigrate(t, append(b.args("access", "explain"), "--principal", "User:alice", "--operation", "Read", "--resource", "Topic:orders")...)
	if code != exitPartial {
		t.Fatalf("explain: exit %d %s", code, errs)
	}
	accessGolden(t, "explain.txt", b.normalize(out))
	code, out, _ = runMigrate(t, append(b.args("access", "explain"), "--principal", "User:alice", "--operation", "Read", "--resource", "Topic:orders", "--host", "10.0.0.7")...)
	if code != exitOK || !strings.Contains(out, "Same decision") {
		t.Errorf("explain from 10.0.0.7: exit %d\n%s", code, out)
	}
	code, out, _ = runMigrate(t, append(b.args("access", "who"), "--resource", "Topic:orders")...)
	if code != exitPartial {
		t.Fatalf("who: exit %d", code)
	}
	accessGolden(t, "who.txt", b.normalize(out))
}

// TestAccessBadInput: errors name the flag, file:line or the ACL, and
// exit 1; names from files never reach the terminal raw.
func TestAccessBadInput(t *testing.T) {
	bad := newAccessBed(t, baseACLs, baseACLs, strings.Replace(zkBroker, "super.users=User:admin", "super.users=User:admin;;User:x", 1), kraftNode)
	code, _, errs := runMigrate(t, bad.args("access", "diff")...)
	if code != exitError || !strings.Contains(errs, bad.brokerCfg+":3") || !strings.Contains(errs, "does not start") {
		t.Errorf("empty super.users element: exit %d %q", code, errs)
	}
	badACL := newAccessBed(t, append(baseACLs, "Allow User:x Any Topic:LITERAL:t"), baseACLs, zkBroker, kraftNode)
	if code, _, errs := runMigrate(t, badACL.args("access", "diff")...); code != exitError || !strings.Contains(errs, "User:x") {
		t.Errorf("an ACL with operation Any: exit %d %q", code, errs)
	}
	b := newAccessBed(t, baseACLs, baseACLs, zkBroker, kraftNode)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"access", "diff", "--snapshot", b.src}, "give the target"},
		{[]string{"access", "diff", "--snapshot", b.src, "--target-snapshot", b.tgt, "--bootstrap-server", "x:1"}, "give one target"},
		{append(b.args("access", "explain"), "--principal", "alice", "--operation", "Read", "--resource", "Topic:orders"), "want Type:name"},
		{append(b.args("access", "explain"), "--principal", "User:alice", "--operation", "Frobnicate", "--resource", "Topic:orders"), "operation"},
		{append(b.args("access", "who"), "--resource", "Topics:orders"), "unknown resource type"},
		{append(b.args("access", "diff"), "--principal-map", filepath.Join(b.dir, "missing.properties")), "missing.properties"},
		{[]string{"access"}, "give a subcommand"},
	} {
		if code, _, errs := runMigrate(t, tc.args...); code != exitError || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want one naming %q", tc.args, code, errs, tc.want)
		}
	}
	evil := newAccessBed(t, []string{"Allow User:ev\x1b[2Jil Read Topic:LITERAL:orders"}, nil, zkBroker, kraftNode)
	for _, o := range []string{"text", "markdown"} {
		_, out, _ := runMigrate(t, append(evil.args("access", "diff"), "-o", o)...)
		if strings.Contains(out, "\x1b") || !strings.Contains(out, `User:ev\x1b[2Jil`) {
			t.Errorf("%s: a control character reached the output or was not shown escaped:\n%q", o, out)
		}
	}
}

// TestPlanAccessLine: plan says whether the target it would leave is
// equivalent — not while ACLs are left out by --principals (the causes
// with --detail), yes for the whole plan — and --no-access-proof leaves
// the line out.
func TestPlanAccessLine(t *testing.T) {
	b := newAccessBed(t, baseACLs, nil, zkBroker, kraftNode)
	args := []string{"plan", "--snapshot", b.src, "--broker-config", b.brokerCfg, "--target-snapshot", b.tgt, "--target-config", b.nodeCfg, "--no-audit"}
	_, out, errs := runMigrate(t, args...)
	if !strings.Contains(out, "Access: equivalent: the target as the plan would leave it decides every request class as the source does") {
		t.Errorf("whole plan:\n%s\n%s", out, errs)
	}
	_, out, _ = runMigrate(t, append(args, "--principals", "^User:alice$", "--detail")...)
	if !strings.Contains(out, "Access: NOT equivalent: the target as the plan would leave it decides") || !strings.Contains(out, "ALLOW User:bob Write Topic:pay (PREFIXED)") {
		t.Errorf("--principals alice:\n%s", out)
	}
	if _, out, _ = runMigrate(t, append(args, "--no-access-proof")...); strings.Contains(out, "Access:") {
		t.Errorf("--no-access-proof:\n%s", out)
	}
}
