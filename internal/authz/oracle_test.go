package authz

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/testkit/testbed"
)

// The differential test: Kafka's own authorizer classes (AclAuthorizer from
// the 3.9.1 jars, StandardAuthorizer from the 4.1.1 and 3.9.1 jars), run by
// testdata/kafka/AuthzOracle.java, decide thousands of generated cases, and
// every decision of NewZK and NewKRaft must be theirs.
var (
	oracleSeed   = flag.Uint64("authz.seed", 1, "seed of the differential test's cases")
	oracleBlocks = flag.Int("authz.blocks", 500, "ACL sets the differential test generates")
)

// block is one case: a configuration, an ACL set and queries on it.
type block struct {
	suSet, aeSet bool
	su, ae       string
	acls         []ACL
	queries      []query
}

type query struct {
	byType    bool
	principal string
	ip        string // as the client's address is given to InetAddress.getByName
	op        Operation
	typ       ResourceType
	name      string
}

func (b block) props() map[string]string {
	p := map[string]string{}
	if b.suSet {
		p[SuperUsersProperty] = b.su
	}
	if b.aeSet {
		p[AllowEveryoneProperty] = b.ae
	}
	return p
}

// enc percent-encodes a field for the oracle's line format.
func enc(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-' {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

func bit(set bool) string {
	if set {
		return "1"
	}
	return "0"
}

// lines is the block in the oracle's input format.
func (b block) lines() []string {
	out := []string{"config " + bit(b.suSet) + " " + enc(b.su) + " " + bit(b.aeSet) + " " + enc(b.ae)}
	for _, a := range b.acls {
		out = append(out, strings.Join([]string{"acl", a.Type.Enum(), enc(a.Name), a.Pattern.String(), enc(a.Principal), enc(a.Host),
			a.Operation.Enum(), a.Permission.Enum()}, " "))
	}
	for _, q := range b.queries {
		if q.byType {
			out = append(out, strings.Join([]string{"t", enc(q.principal), enc(q.ip), q.op.Enum(), q.typ.Enum()}, " "))
		} else {
			out = append(out, strings.Join([]string{"q", enc(q.principal), enc(q.ip), q.op.Enum(), q.typ.Enum(), enc(q.name)}, " "))
		}
	}
	return append(out, "end")
}

func (b block) String() string {
	var s strings.Builder
	fmt.Fprintf(&s, "super.users=%q (set %v), allow.everyone.if.no.acl.found=%q (set %v)\n", b.su, b.suSet, b.ae, b.aeSet)
	for _, a := range b.acls {
		fmt.Fprintf(&s, "  %s\n", a)
	}
	for _, q := range b.queries {
		fmt.Fprintf(&s, "  ? %s\n", q)
	}
	return s.String()
}

func (q query) String() string {
	if q.byType {
		return fmt.Sprintf("authorizeByResourceType %s from %s: %s on %s", q.principal, q.ip, q.op, q.typ)
	}
	return fmt.Sprintf("authorize %s from %s: %s %s:%q", q.principal, q.ip, q.op, q.typ, q.name)
}

// side is one authorizer under test: its Go port and Kafka's class.
type side struct {
	name  string // "AclAuthorizer 3.9.1"
	lib   func(testing.TB) string
	mode  string // the oracle's argument
	build func(acls []ACL, props map[string]string) (Authorizer, error)
}

var sides = []side{
	{"AclAuthorizer 3.9.1", testbed.Lib39, "zk", func(acls []ACL, p map[string]string) (Authorizer, error) {
		c, err := ParseZKProperties(p)
		return NewZK(acls, c), err
	}},
	{"StandardAuthorizer 4.1.1", testbed.Lib41, "kraft", func(acls []ACL, p map[string]string) (Authorizer, error) {
		c, err := ParseKRaftProperties(p)
		return NewKRaft(acls, c), err
	}},
	{"StandardAuthorizer 3.9.1", testbed.Lib39, "kraft", func(acls []ACL, p map[string]string) (Authorizer, error) {
		c, err := ParseKRaftProperties(p)
		return NewKRaft(acls, c), err
	}},
}

// predict is what the Go port says Kafka prints for each line of a block's
// result: the config and load lines and one outcome per query.
func (s side) predict(b block) []string {
	a, err := s.build(b.acls, b.props())
	if err != nil {
		return []string{"CONFIG THROWS IllegalArgumentException"}
	}
	out := []string{"CONFIG OK", "LOAD OK"}
	for _, q := range b.queries {
		out = append(out, decide(a, q).Outcome())
	}
	return out
}

func decide(a Authorizer, q query) Decision {
	host, err := HostAddress(q.ip)
	if err != nil {
		panic(err) // the generator only makes valid addresses
	}
	if q.byType {
		return a.AuthorizeByResourceType(q.principal, host, q.op, q.typ)
	}
	return a.Authorize(Request{Principal: q.principal, Host: host, Operation: q.op, Type: q.typ, Name: q.name})
}

// normalise turns the oracle's block result into one outcome per line as
// predict gives them: a load that throws fails every query with it (the
// broker would not start).
func normalise(res []string, b block) []string {
	if len(res) >= 2 && strings.HasPrefix(res[1], "LOAD THROWS ") {
		out := []string{res[0], "LOAD OK"}
		for range b.queries {
			out = append(out, strings.TrimPrefix(res[1], "LOAD "))
		}
		return out
	}
	return res
}

// oracle is a running AuthzOracle JVM.
type oracle struct {
	t      testing.TB
	cmd    *exec.Cmd
	in     *bufio.Writer
	inPipe io.WriteCloser
	out    *bufio.Reader
	stderr *strings.Builder
	mu     sync.Mutex
}

func startOracle(t testing.TB, lib, mode string) *oracle {
	t.Helper()
	if _, err := exec.LookPath("java"); err != nil {
		t.Fatalf("java is not installed, but the test bed's jars are: %v", err)
	}
	src, err := filepath.Abs(filepath.Join("testdata", "kafka", "AuthzOracle.java"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("java", "-Xmx256m", "-Xss4m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Dorg.apache.logging.log4j.level=OFF",
		"-cp", filepath.Join(lib, "*"), src, mode)
	o := &oracle{t: t, cmd: cmd, stderr: &strings.Builder{}}
	cmd.Stderr = &lockedWriter{b: o.stderr, mu: &o.mu}
	if o.inPipe, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	o.in, o.out = bufio.NewWriter(o.inPipe), bufio.NewReader(stdout)
	t.Cleanup(func() {
		o.inPipe.Close()
		cmd.Wait()
	})
	return o
}

type lockedWriter struct {
	b  *strings.Builder
	mu *sync.Mutex
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.b.Len() < 1<<20 {
		w.b.Write(p)
	}
	return len(p), nil
}

func (o *oracle) send(lines []string) {
	for _, l := range lines {
		o.in.WriteString(l)
		o.in.WriteByte('\n')
	}
}

// next returns the oracle's next result line, without its "R ".
func (o *oracle) next() string {
	o.t.Helper()
	for {
		line, err := o.out.ReadString('\n')
		if err != nil {
			o.mu.Lock()
			tail := o.stderr.String()
			o.mu.Unlock()
			if len(tail) > 4000 {
				tail = tail[len(tail)-4000:]
			}
			o.t.Fatalf("AuthzOracle stopped answering: %v\nits stderr ends:\n%s", err, tail)
		}
		if r, ok := strings.CutPrefix(strings.TrimRight(line, "\n"), "R "); ok {
			return r
		}
	}
}

// block reads one block's result lines, up to its END.
func (o *oracle) block() []string {
	var out []string
	for {
		r := o.next()
		if r == "END" {
			return out
		}
		out = append(out, r)
	}
}

// run sends blocks and returns their results (written by another goroutine
// so that neither pipe fills).
func (o *oracle) run(bs []block) [][]string {
	written := make(chan struct{})
	go func() {
		defer close(written)
		for _, b := range bs {
			o.send(b.lines())
		}
		o.in.Flush()
	}()
	out := make([][]string, len(bs))
	for i := range bs {
		out[i] = o.block()
	}
	<-written
	return out
}

func (o *oracle) one(b block) []string { return o.run([]block{b})[0] }

func TestKafkaOracle(t *testing.T) {
	libs := map[string]string{}
	for _, s := range sides {
		libs[s.name] = s.lib(t)
	}
	blocks := append(pinned(t), generate(*oracleSeed, *oracleBlocks)...)
	n := 0
	for _, b := range blocks {
		n += len(b.queries)
	}
	t.Logf("seed %d: %d ACL sets, %d queries each side (go test -authz.seed N -authz.blocks M to vary)", *oracleSeed, len(blocks), n)
	for _, s := range sides {
		t.Run(strings.ReplaceAll(s.name, " ", "-"), func(t *testing.T) {
			t.Parallel()
			o := startOracle(t, libs[s.name], s.mode)
			o.hosts(t)
			o.parses(t)
			res := o.run(blocks)
			failed := 0
			for i, b := range blocks {
				got, want := normalise(res[i], b), s.predict(b)
				if slices.Equal(got, want) {
					continue
				}
				failed++
				if failed <= 3 {
					t.Errorf("%s: %s", s.name, shrink(t, o, s, b))
				}
			}
			if failed > 0 {
				t.Errorf("%s: %d of %d ACL sets decided differently by Kafka (seed %d)", s.name, failed, len(blocks), *oracleSeed)
			}
			coverage(t, s, blocks)
		})
	}
}

// coverage fails when the cases no longer reach every way the authorizer
// decides (a generator that lost a corner proves nothing about it), and
// logs how often each was reached.
func coverage(t *testing.T, s side, blocks []block) {
	seen := map[string]int{}
	for _, b := range blocks {
		a, err := s.build(b.acls, b.props())
		if err != nil {
			seen["config error"]++
			continue
		}
		for _, q := range b.queries {
			d := decide(a, q)
			k := d.Reason.String()
			if d.Reason == Broken {
				k += " " + d.Exception
			}
			if d.Probe {
				k += " (probe)"
			}
			seen[k]++
		}
	}
	want := []string{"config error", "SuperUser", "AllowACL", "DenyACL", "NoACLAllowEveryone", "NoACLDeny", "NoMatchingAllow",
		"ByTypeDenyWildcard", "ByTypeAllowWildcard", "ByTypeAllowACL", "ByTypeNoAllow", "Broken IllegalArgumentException"}
	if s.mode == "zk" {
		want = append(want, "ByTypeAllowEveryone")
	} else {
		want = append(want, "Hang", "Broken StringIndexOutOfBoundsException", "Broken IllegalStateException", "AllowACL (probe)",
			"SuperUser (probe)", "NoACLAllowEveryone (probe)")
	}
	for _, k := range want {
		if seen[k] == 0 {
			t.Errorf("%s: no case decided %s: the generator lost that corner", s.name, k)
		}
	}
	keys := slices.Sorted(maps.Keys(seen))
	var line []string
	for _, k := range keys {
		line = append(line, fmt.Sprintf("%s %d", k, seen[k]))
	}
	t.Logf("%s: decisions by reason: %s", s.name, strings.Join(line, ", "))
}

// shrink reduces a block on which the port and Kafka disagree to one query
// and as few ACLs as still disagree, and describes it.
func shrink(t *testing.T, o *oracle, s side, b block) string {
	fails := func(c block) bool { return !slices.Equal(normalise(o.one(c), c), s.predict(c)) }
	if len(b.queries) > 0 {
		for _, q := range b.queries {
			c := b
			c.queries = []query{q}
			if fails(c) {
				b = c
				break
			}
		}
	}
	for i := 0; i < len(b.acls); {
		c := b
		c.acls = slices.Delete(slices.Clone(b.acls), i, i+1)
		if fails(c) {
			b = c
		} else {
			i++
		}
	}
	got, want := normalise(o.one(b), b), s.predict(b)
	reason := ""
	if a, err := s.build(b.acls, b.props()); err == nil && len(b.queries) == 1 {
		reason = "; the port's reason: " + decide(a, b.queries[0]).String()
	}
	return fmt.Sprintf("minimal case:\n%sKafka: %v\nport:  %v%s", b, got, want, reason)
}

// hosts checks HostAddress against InetAddress.getHostAddress.
func (o *oracle) hosts(t *testing.T) {
	ips := []string{"1.2.3.4", "::1", "::", "0::0", "::ffff:1.2.3.4", "::1.2.3.4", "FE80::DB8:1", "2001:db8::ff00:42", "1:2:3:4:5:6:7:8",
		"2001:DB8:0:0:0:0:0:1", "0:0:0:0:0:0:0:1", "255.255.255.255", "::ffff:0:0", "64:ff9b::1.2.3.4"}
	var lines []string
	for _, ip := range ips {
		lines = append(lines, "host "+enc(ip))
	}
	o.send(lines)
	o.in.Flush()
	for _, ip := range ips {
		got := strings.TrimPrefix(o.next(), "HOST ")
		want, err := HostAddress(ip)
		if err != nil {
			want = "error: " + err.Error()
		}
		if got != want {
			t.Errorf("HostAddress(%q) = %q, InetAddress.getHostAddress %q", ip, want, got)
		}
	}
}

// parses checks ParseOperation, ParseResourceType and ParsePermission
// against SecurityUtils: the same value wherever Kafka's is not UNKNOWN;
// where it is UNKNOWN, an error, or the enum constant form Kafka's lookup
// does not take.
func (o *oracle) parses(t *testing.T) {
	type item struct{ kind, s string }
	var items []item
	variants := func(kind string, pascal, enum string) {
		for _, s := range []string{pascal, strings.ToUpper(pascal), strings.ToLower(pascal), enum, strings.ToLower(enum),
			strings.ReplaceAll(pascal, "s", "ſ"), strings.ReplaceAll(strings.ToLower(pascal), "i", "ı"), strings.ReplaceAll(pascal, "st", "ﬆ"),
			strings.ReplaceAll(pascal, "fi", "ﬁ"), pascal + " ", "x" + pascal, strings.ReplaceAll(enum, "_", "-")} {
			items = append(items, item{kind, s})
		}
	}
	for op := OpUnknown; op <= OpDescribeTokens; op++ {
		variants("op", op.String(), op.Enum())
	}
	for rt := ResourceUnknown; rt <= ResourceUser; rt++ {
		variants("type", rt.String(), rt.Enum())
	}
	for p := PermissionUnknown; p <= Allow; p++ {
		variants("perm", p.String(), p.Enum())
	}
	items = append(items, item{"op", ""}, item{"op", "Reads"}, item{"type", "TOPİC"}, item{"op", "ßread"}, item{"op", "CLUSTER_ACTİON"})
	var lines []string
	for _, it := range items {
		lines = append(lines, "parse "+it.kind+" "+enc(it.s))
	}
	o.send(lines)
	o.in.Flush()
	for _, it := range items {
		got := strings.TrimPrefix(o.next(), "PARSE ")
		var c int8
		var err error
		var enum []string
		switch it.kind {
		case "op":
			var v Operation
			v, err = ParseOperation(it.s)
			c, enum = int8(v), operationEnum
		case "type":
			var v ResourceType
			v, err = ParseResourceType(it.s)
			c, enum = int8(v), resourceEnum
		default:
			var v Permission
			v, err = ParsePermission(it.s)
			c, enum = int8(v), permissionEnum
		}
		switch {
		case err != nil && got != "UNKNOWN":
			t.Errorf("parse %s %q: error %v, but SecurityUtils says %s", it.kind, it.s, err, got)
		case err == nil && got != enum[c] && !(got == "UNKNOWN" && strings.Contains(javaUpper(it.s), "_") && javaUpper(it.s) == enum[c]):
			t.Errorf("parse %s %q = %s, SecurityUtils says %s", it.kind, it.s, enum[c], got)
		}
	}
}

// pinned are the known differences between the two authorizers (the unit
// tests' cases), decided by Kafka too.
func pinned(t *testing.T) []block {
	acls := func(ss ...string) []ACL { return parseACLs(t, ss...) }
	q := func(p, ip string, op Operation, rt ResourceType, name string) query {
		return query{principal: p, ip: ip, op: op, typ: rt, name: name}
	}
	bt := func(p, ip string, op Operation, rt ResourceType) query {
		return query{byType: true, principal: p, ip: ip, op: op, typ: rt}
	}
	const alice, ip = "User:alice", "1.2.3.4"
	return []block{
		{acls: acls("ALLOW User:alice Read Group:* LITERAL *"), queries: []query{q(alice, ip, OpRead, ResourceGroup, "g1"),
			q(alice, ip, OpRead, ResourceGroup, "*"), q(alice, ip, OpRead, ResourceGroup, "*g1")}},
		{aeSet: true, ae: "true", acls: acls("ALLOW User:bob Write Topic:* LITERAL *"), queries: []query{bt(alice, ip, OpWrite, ResourceTopic),
			q(alice, ip, OpWrite, ResourceTopic, "orders")}},
		{aeSet: true, ae: "true", acls: acls("DENY User:alice Write Topic:h PREFIXED *"), queries: []query{bt(alice, ip, OpWrite, ResourceTopic)}},
		{acls: acls("ALLOW User:* Write Group:* LITERAL *"), queries: []query{bt(alice, ip, OpDescribe, ResourceGroup)}},
		{acls: acls("ALLOW User:alice Write Topic:* LITERAL *", "DENY User:alice Write Topic:h PREFIXED *"), queries: []query{bt(alice, ip, OpWrite, ResourceTopic)}},
		{acls: acls("ALLOW User:alice Read Topic:orders LITERAL ::1", "ALLOW User:bob Read Topic:orders LITERAL 0:0:0:0:0:0:0:1"),
			queries: []query{q(alice, "::1", OpRead, ResourceTopic, "orders"), q("User:bob", "::1", OpRead, ResourceTopic, "orders")}},
		{suSet: true, su: "User:a;;User:admin", queries: []query{q("User:admin", ip, OpRead, ResourceTopic, "t")}},
		{suSet: true, su: "User:CN=admin,O=eng;User:b", queries: []query{q("User:CN=admin,O=eng", ip, OpRead, ResourceTopic, "t"), q("User:b", ip, OpAlter, ResourceCluster, ClusterName)}},
		{aeSet: true, ae: "yes", queries: []query{q(alice, ip, OpRead, ResourceTopic, "t")}},
		{acls: acls("ALLOW alice Read Topic:orders LITERAL *"), queries: []query{q(alice, ip, OpRead, ResourceTopic, "orders"), q(alice, ip, OpRead, ResourceTopic, "other")}},
		{acls: acls("ALLOW User:bob Read Group:!a PREFIXED *", "ALLOW User:bob Read Group:!ax PREFIXED *"),
			queries: []query{q(alice, ip, OpRead, ResourceGroup, "!b"), q(alice, ip, OpRead, ResourceGroup, "!ab")}},
	}
}

// generate makes n ACL sets with their queries, deterministic by seed, from
// small alphabets that find the authorizers' corners quickly: names that
// are prefixes of each other, "*" as a name and a prefix, names starting
// with "*" and with characters sorted below it, the wildcard principal and
// ones that only look like it, hosts in and out of Java's IPv6 form, DN
// principals, super.users and allow.everyone spelled every way.
func generate(seed uint64, n int) []block {
	r := rand.New(rand.NewPCG(seed, 0x617574687a))
	pick := func(xs []string) string { return xs[r.IntN(len(xs))] }
	names := []string{"*", "f", "fo", "foo", "foob", "fooa", "fob", "*f", "f*", "hardcode", "h", "ha", "x", "g1", "*g"}
	below := []string{"!a", "!ab", "!ax", "!b", "!", "#a", " a", "(x"}
	reqNames := []string{"foobar", "fooz", "*foo", "*g1", "", "hardcod", "zz", "f", "foo", "*"}
	principals := []string{"User:alice", "User:bob", "User:*", "User:*", "Group:alice", "user:alice", "User:CN=alice,O=eng", "User:admin", "Group:*"}
	reqPrincipals := []string{"User:alice", "User:alice", "User:bob", "Group:alice", "user:alice", "User:CN=alice,O=eng", "User:admin", "User:carol"}
	hosts := []string{"*", "*", "*", "1.2.3.4", "::1", "0:0:0:0:0:0:0:1", "10.0.0.1"}
	ips := []string{"1.2.3.4", "1.2.3.4", "::1", "10.0.0.1", "::ffff:1.2.3.4", "2001:db8::1"}
	types := []ResourceType{ResourceTopic, ResourceTopic, ResourceGroup, ResourceGroup, ResourceCluster, ResourceTransactionalID, ResourceDelegationToken, ResourceUser}
	byTypeOps := []Operation{OpWrite, OpWrite, OpDescribe, OpRead, OpDescribeConfigs, OpIdempotentWrite, OpAll}
	configs := []struct {
		suSet bool
		su    string
	}{{false, ""}, {false, ""}, {false, ""}, {true, ""}, {true, "User:admin"}, {true, "User:admin"}, {true, "User:CN=alice,O=eng;User:bob"},
		{true, " User:alice ; "}, {true, "User:a;;User:admin"}, {true, ";User:admin"}, {true, "admin"}, {true, " "}, {true, "User:admin;"}}
	allows := []struct {
		set bool
		v   string
	}{{false, ""}, {false, ""}, {true, "true"}, {true, "true"}, {true, "false"}, {true, "TRUE"}, {true, " true "}, {true, "yes"}, {true, ""}, {true, "falſe"}}
	op := func() Operation { return Operation(3 + r.IntN(12)) } // Read..DescribeTokens
	out := make([]block, 0, n)
	for len(out) < n {
		var b block
		c, a := configs[r.IntN(len(configs))], allows[r.IntN(len(allows))]
		if r.IntN(4) != 0 { // mostly configurations both accept
			c, a = configs[r.IntN(7)], allows[r.IntN(7)]
		}
		b.suSet, b.su, b.aeSet, b.ae = c.suSet, c.su, a.set, a.v
		walk := r.IntN(25) == 0      // names below "*": StandardAuthorizer may loop (each loop costs the oracle 200 ms of CPU)
		colonless := r.IntN(30) == 0 // an ACL principal without ':'
		t1, t2 := types[r.IntN(len(types))], types[r.IntN(len(types))]
		aclNames := names
		if walk {
			aclNames = append(slices.Clone(names[:4]), below...)
		}
		seen := map[ACL]bool{}
		for range 1 + r.IntN(10) {
			acl := ACL{Type: t1, Name: pick(aclNames), Pattern: PatternLiteral, Principal: pick(principals), Host: pick(hosts),
				Operation: op(), Permission: Allow}
			if r.IntN(3) == 0 {
				acl.Type = t2
			}
			if r.IntN(3) == 0 {
				acl.Pattern = PatternPrefixed
			}
			if r.IntN(5) == 0 {
				acl.Operation = OpAll
			}
			if r.IntN(3) == 0 {
				acl.Permission = Deny
			}
			if colonless && r.IntN(3) == 0 {
				acl.Principal = "alice"
			}
			if !seen[acl] {
				seen[acl] = true
				b.acls = append(b.acls, acl)
			}
		}
		// Queries lean on the block's own ACLs, so that they match often.
		like := func() ACL { return b.acls[r.IntN(len(b.acls))] }
		principal := func() string {
			if p := like().Principal; r.IntN(2) == 0 && strings.Contains(p, ":") && p != WildcardPrincipal {
				return p
			}
			return pick(reqPrincipals)
		}
		qop := func() Operation {
			if o := like().Operation; r.IntN(2) == 0 && o != OpAll {
				return o
			}
			if r.IntN(20) == 0 {
				return OpAll
			}
			return op()
		}
		ip := func() string {
			if h := like().Host; r.IntN(3) == 0 && h != WildcardHost && h != "0:0:0:0:0:0:0:1" {
				return h
			}
			return pick(ips)
		}
		queries := 20
		if walk {
			queries = 4
		}
		for range queries {
			l := like()
			q := query{principal: principal(), ip: ip(), op: qop(), typ: l.Type}
			switch {
			case walk:
				q.name = pick(below)
			case r.IntN(3) == 0:
				q.name = l.Name
			case r.IntN(2) == 0 && l.Pattern == PatternPrefixed:
				q.name = l.Name + pick([]string{"a", "bar", "*"})
			default:
				q.name = pick(reqNames)
			}
			b.queries = append(b.queries, q)
		}
		if !walk {
			for range 5 {
				o := byTypeOps[r.IntN(len(byTypeOps))]
				if r.IntN(2) == 0 {
					o = qop()
				}
				b.queries = append(b.queries, query{byType: true, principal: principal(), ip: ip(), op: o, typ: like().Type})
			}
		}
		out = append(out, b)
	}
	return out
}
