package principalmap

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/zkmigrate/zkmigrate/internal/props"
)

// FuzzCompileJava: any pattern is translated or refused without panicking;
// a refusal is a *patternError (unsupported or malformed) with a position
// in the pattern; a translation evaluates any input without panicking.
func FuzzCompileJava(f *testing.F) {
	for _, s := range []string{`^CN=(.*?),OU=(.*?)$`, `[^\]]*`, `\Qa.b\E*`, `(?<n>a|b){2,3}?`, `[\d-z&&]`, `\x{1F600}\u00e9\0101\cA`, `(a*)*`, `a{2`, `[a-`, `\`, `(?x)`, `.*\.COM$`} {
		f.Add(s, "CN=alice,OU=eng")
	}
	f.Fuzz(func(t *testing.T, pattern, input string) {
		j, err := compileJava(pattern)
		if err != nil {
			var pe *patternError
			if !errors.As(err, &pe) || !(errors.Is(err, errUnsupported) || errors.Is(err, errMalformed)) {
				t.Fatalf("%q: untyped refusal %v", pattern, err)
			}
			if pe.pos < 0 || pe.pos > utf8.RuneCountInString(pattern) {
				t.Fatalf("%q: position %d outside the pattern", pattern, pe.pos)
			}
			return
		}
		if j.checkInput(input) != nil {
			return
		}
		j.matches(input)
		if _, err := j.replace(input, "<$0>", true); err != nil {
			t.Fatalf("%q on %q: %v", pattern, input, err)
		}
	})
}

// FuzzSSLRules: any rules value parses or is refused with a *RuleError;
// parsed rules map any name or fail with a typed reason.
func FuzzSSLRules(f *testing.F) {
	f.Add(docRules, "CN=adminUser,OU=Admin,O=Unknown,L=Unknown,ST=Unknown,C=Unknown")
	f.Add(`RULE:(.*)/X$1/,RULE:^CN=(.*)$/$5$6/U, DEFAULT`, "abc")
	f.Add(`RULE:^CN=(?<u>.*)$/${u}\$/L`, "CN=İ")
	f.Fuzz(func(t *testing.T, rules, dn string) {
		r, err := parseSSLRules(rules)
		if err != nil {
			var re *RuleError
			if !errors.As(err, &re) || (re.Class == "") != re.Unsupported {
				t.Fatalf("%q: refusal %v", rules, err)
			}
			return
		}
		_, _, err = r.name(dn)
		checkReason(t, err)
	})
}

// FuzzKerberosRules: as FuzzSSLRules for sasl.kerberos.principal.to.local.rules.
func FuzzKerberosRules(f *testing.F) {
	f.Add("EXAMPLE.COM", "RULE:[1:$1@$0](.*@MYDOMAIN.COM)s/@.*//,RULE:[2:$1](kafka)s/^.*$/kafka-svc/L,DEFAULT", "kafka/h@EXAMPLE.COM")
	f.Add("", "RULE:[1:$1]s/a/X/g/U, RULE:[:$1]", "banana@X")
	f.Fuzz(func(t *testing.T, realm, rules, name string) {
		r, err := parseKerberosRules(realm, splitList(rules))
		if err != nil {
			var re *RuleError
			if !errors.As(err, &re) || (re.Class == "") != re.Unsupported {
				t.Fatalf("%q: refusal %v", rules, err)
			}
			return
		}
		_, _, err = r.shortName(name)
		checkReason(t, err)
	})
}

func checkReason(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		return
	}
	if r := reason(err); r == ErrRuleFails {
		var (
			je *javaError
			ns *nonSimpleError
		)
		if !errors.As(err, &je) && !errors.As(err, &ns) {
			t.Fatalf("untyped failure %v", err)
		}
	}
}

// FuzzParse: any file is read or refused naming the file and a line of it;
// a map read back from its canonical form is the same map; Apply never
// panics and fails only with an *ApplyError.
func FuzzParse(f *testing.F) {
	f.Add([]byte("ssl.principal.mapping.rules=RULE:^CN=([^,]+),OU=eng$/$1/,DEFAULT\nzkmigrate.map=User:CN=a -> User:b\n"), "User:CN=a,OU=eng")
	f.Add([]byte("sasl.kerberos.principal.to.local.rules=DEFAULT\nzkmigrate.kerberos.default.realm=\\u00c9X\n"), "User:x@\u00c9X")
	f.Fuzz(func(t *testing.T, file []byte, principal string) {
		lines := 1 + strings.Count(string(file), "\n") + strings.Count(string(file), "\r")
		m, err := Parse(strings.NewReader(string(file)), "fuzz.properties")
		if err != nil {
			var fe *FileError
			var pe *props.Error
			switch {
			case errors.As(err, &fe):
				if fe.Path != "fuzz.properties" || fe.Line < 1 || fe.Line > lines {
					t.Fatalf("%v does not name fuzz.properties:LINE (1..%d)", err, lines)
				}
			case errors.As(err, &pe):
			default:
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		back, err := Parse(strings.NewReader(m.Canonical()), "canonical")
		if err != nil || back.Canonical() != m.Canonical() {
			t.Fatalf("canonical form %q does not read back: %v", m.Canonical(), err)
		}
		out1, how1, err1 := m.Apply(principal)
		out2, how2, err2 := back.Apply(principal)
		if out1 != out2 || how1.By != how2.By || how1.Rule != how2.Rule || (err1 == nil) != (err2 == nil) {
			t.Fatalf("%q: %q %v %v, read back %q %v %v", principal, out1, how1, err1, out2, how2, err2)
		}
		var ae *ApplyError
		if err1 != nil && !errors.As(err1, &ae) {
			t.Fatalf("untyped Apply error %v", err1)
		}
	})
}
