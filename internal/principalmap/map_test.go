package principalmap

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	goldenfile "github.com/zkmigrate/zkmigrate/internal/testkit/golden"
)

func golden(t *testing.T, name, got string) {
	t.Helper()
	goldenfile.AssertString(t, filepath.Join("testdata", name), got)
}

// Every principal of the example file through Apply: what it maps to and
// which key, rule and line decided it.
func TestApplyExample(t *testing.T) {
	m, err := Load(filepath.Join("testdata", "example.properties"))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, p := range []string{
		"User:CN=serviceuser,OU=ServiceUsers,O=Unknown,L=Unknown,ST=Unknown,C=Unknown",
		"User:CN=adminUser,OU=Admin,O=Unknown,L=Unknown,ST=Unknown,C=Unknown",
		"User:OU=x,CN=Bob.Smith,O=y",
		"User:O=nocn",
		"User:CN=jakub,OU=eng",
		"User:CN=legacy app,O=corp",
		`User:CN=a\,b,O=c`,
		"User:user@MYDOMAIN.COM",
		"User:kafka/broker1@EXAMPLE.COM",
		"User:alice@EXAMPLE.COM",
		"User:alice@OTHER.COM",
		"User:a@b@c",
		"User:bob@corp.example",
		"User:alice",
		"User:*",
		"User:ANONYMOUS",
		"Group:CN=x",
		"user:CN=x",
		"User:CN=x\n",
		"User:CN=😀",
	} {
		out, how, err := m.Apply(p)
		fmt.Fprintf(&b, "%q\n\tkind %q mapped %v\n", p, m.Kind(p), m.Mapped(p))
		if err != nil {
			fmt.Fprintf(&b, "\terror %v\n", err)
			continue
		}
		fmt.Fprintf(&b, "\t-> %q by %q rule %q at %s\n", out, how.By, how.Rule, how.Where)
	}
	golden(t, "apply.golden", b.String())
}

func TestApplyReasons(t *testing.T) {
	m, err := Load(filepath.Join("testdata", "example.properties"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		principal string
		reason    error
	}{
		{"User:alice@OTHER.COM", ErrNoMatch},
		{"User:a@b@c", ErrRuleFails},
		{"User:CN=x\n", ErrUnsupported},
		{"User:CN=😀", ErrUnsupported},
	} {
		_, _, err := m.Apply(tt.principal)
		var ae *ApplyError
		if !errors.Is(err, tt.reason) || !errors.As(err, &ae) || ae.Principal != tt.principal {
			t.Errorf("%q: %v, want %v naming it", tt.principal, err, tt.reason)
		}
	}
	if u, _, err := m.ApplyUser("CN=jakub,OU=eng"); err != nil || u != "jakub" {
		t.Errorf("ApplyUser: %q %v", u, err)
	}
	g, err := Parse(strings.NewReader("zkmigrate.map=User:a -> Group:a\n"), "g.properties")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := g.ApplyUser("a"); !errors.Is(err, ErrRuleFails) {
		t.Errorf("a user mapped to a Group: %v", err)
	}
}

// A refused file names file:line and what is wrong.
func TestParseErrors(t *testing.T) {
	for _, tt := range []struct{ file, want string }{
		{"ssl.principal.mapping.rules=RULE:^CN=(.*$/$1/", "m.properties:1: ssl.principal.mapping.rules: rule \"RULE:^CN=(.*$/$1/\": pattern: unclosed group"},
		{"a=b\nssl.principal.mapping.rules=RULE:^CN=(?=x).*$/$1/", "m.properties:2: ssl.principal.mapping.rules: rule \"RULE:^CN=(?=x).*$/$1/\": pattern: a lookahead (?= (at character 5): Java accepts it, but it cannot be evaluated exactly"},
		{"ssl.principal.mapping.rules=RULE:(a)\\\\1/x/", "back reference \\1"},
		{"ssl.principal.mapping.rules=RULE:a++/x/", "possessive quantifier"},
		{"ssl.principal.mapping.rules=RULE:\\\\bx/x/", "word boundary"},
		{"ssl.principal.mapping.rules=RULE:[a[b]]/x/", "nested character class"},
		{"ssl.principal.mapping.rules=RULE:(?i)cn=x/x/", "inline flag"},
		{"ssl.principal.mapping.rules=RULE:\\\\p{L}/x/", "Unicode property"},
		{"ssl.principal.mapping.rules=RULE:a/b/X", "m.properties:1: ssl.principal.mapping.rules: rule \"RULE:a/b/X\": invalid rule: unmatched substring \"X\""},
		{"ssl.principal.mapping.rules=RULE:a/b", "invalid rule"},
		{"\n\nsasl.kerberos.principal.to.local.rules=RULE:[1:$1]//U", "m.properties:3: sasl.kerberos.principal.to.local.rules: rule \"RULE:[1:$1]//U\": invalid rule"},
		{"sasl.kerberos.principal.to.local.rules=DEFAULT", "m.properties:1: sasl.kerberos.principal.to.local.rules: the DEFAULT rule needs the default realm"},
		{"zkmigrate.kerberos.default.realm=X", "set without sasl.kerberos.principal.to.local.rules"},
		{"zkmigrate.mapp=User:a -> User:b", "m.properties:1: zkmigrate.mapp: unknown key"},
		{"zkmigrate.map=User:a", "m.properties:1: zkmigrate.map: \"User:a\": a pair is SOURCE -> TARGET"},
		{"zkmigrate.map=User:a -> b", "\"b\" is not a principal TYPE:NAME"},
		{"zkmigrate.map=User:a -> User:*", "wildcard"},
		{"zkmigrate.map=User:a -> User:b\nzkmigrate.map=User:a -> User:c", "m.properties:2: zkmigrate.map: User:a is already mapped, on line 1"},
		{"listener.name.ssl.ssl.principal.mapping.rules=DEFAULT", "rules of one listener"},
		{"principal.builder.class=com.example.MyBuilder\nzkmigrate.map=User:a -> User:b", "a custom principal builder (com.example.MyBuilder)"},
		{"# nothing\nbroker.id=1", "m.properties:1: maps nothing"},
		{"zkmigrate.map=User:a -> User:b\\u12", "m.properties:1: zkmigrate.map: malformed"},
	} {
		_, err := Parse(strings.NewReader(tt.file), "m.properties")
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: %v, want %q", tt.file, err, tt.want)
		}
	}
}

// Canonical reads back to the same map, and two spellings of one map have
// one canonical form and digest.
func TestCanonical(t *testing.T) {
	m, err := Load(filepath.Join("testdata", "example.properties"))
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "example.canonical", m.Canonical())
	back, err := Parse(strings.NewReader(m.Canonical()), "canonical")
	if err != nil {
		t.Fatal(err)
	}
	if back.Canonical() != m.Canonical() || back.Digest() != m.Digest() {
		t.Errorf("canonical form does not read back:\n%s\n%s", m.Canonical(), back.Canonical())
	}
	a, _ := Parse(strings.NewReader("# one\nzkmigrate.map=User:b -> User:c\nzkmigrate.map = User:a->User:x \n"), "a")
	b, _ := Parse(strings.NewReader("zkmigrate.map=User:a -> User:x\nzkmigrate.map=User:b -> User:c\nbroker.id=2\n"), "b")
	c, _ := Parse(strings.NewReader("zkmigrate.map=User:a -> User:y\nzkmigrate.map=User:b -> User:c\n"), "c")
	if a.Digest() != b.Digest() || a.Digest() == c.Digest() || !strings.HasPrefix(a.Digest(), "sha256:") {
		t.Errorf("digests %s %s %s", a.Digest(), b.Digest(), c.Digest())
	}
}

func TestIsDN(t *testing.T) {
	for _, tt := range []struct {
		name string
		want bool
	}{
		{"CN=jakub,OU=eng", true},
		{"CN=jakub", true},
		{`CN=a\,b,O=c`, true},
		{"CN=a+UID=b,O=c", true},
		{"2.5.4.3=x,O=y", true},
		{`CN="quoted, value",O=x`, true},
		{"CN=", true},
		{"cn=x, ou=y", true},
		{"alice", false},
		{"alice@EXAMPLE.COM", false},
		{"", false},
		{"=x", false},
		{"CN=x,", false},
		{"CN=x,bad", false},
		{"2.5.=x", false},
		{`CN=x\`, false},
		{"C N=x", false},
	} {
		if got := IsDN(tt.name); got != tt.want {
			t.Errorf("IsDN(%q) = %v", tt.name, got)
		}
	}
}
