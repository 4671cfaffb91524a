package principalmap

import (
	"errors"
	"testing"
)

// outcome renders a mapping's result as the differential test compares it:
// "ok:<name>" or "err:<Java exception class>" ("unsupported" for an input
// this tool refuses to evaluate).
func outcome(name string, err error) string {
	if err == nil {
		return "ok:" + name
	}
	return "err:" + javaClass(err)
}

// javaClass is the simple name of the Java exception Kafka throws where
// this package returns err.
func javaClass(err error) string {
	var (
		nm *noMatchError
		ns *nonSimpleError
		je *javaError
		re *RuleError
		ie *inputError
	)
	switch {
	case errors.As(err, &nm), errors.As(err, &ns):
		return "NoMatchingRule"
	case errors.As(err, &je):
		return je.Class
	case errors.As(err, &re):
		if re.Unsupported {
			return "unsupported"
		}
		return re.Class
	case errors.As(err, &ie):
		return "unsupported"
	}
	return "unknown:" + err.Error()
}

func sslName(rules, dn string) string {
	r, err := parseSSLRules(rules)
	if err != nil {
		return outcome("", err)
	}
	name, _, err := r.name(dn)
	return outcome(name, err)
}

func krbName(realm, rules, name string) string {
	r, err := parseKerberosRules(realm, splitList(rules))
	if err != nil {
		return outcome("", err)
	}
	short, _, err := r.shortName(name)
	return outcome(short, err)
}

// The cases of reference/kafka-authorizers.md §3.1, each run there against
// Kafka's own SslPrincipalMapper, and the port pitfalls it names.
func TestSSLRulesReference(t *testing.T) {
	for _, tt := range sslTable {
		if got := sslName(tt.rules, tt.dn); got != tt.want {
			t.Errorf("rules %q, %q: got %s, want %s", tt.rules, tt.dn, got, tt.want)
		}
	}
}

const docRules = `RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/,RULE:^CN=(.*?),OU=(.*?),O=(.*?),L=(.*?),ST=(.*?),C=(.*?)$/$1@$2/L,RULE:^.*[Cc][Nn]=([a-zA-Z0-9.]*).*$/$1/L,DEFAULT`

var sslTable = []struct{ rules, dn, want string }{
	{docRules, "CN=serviceuser,OU=ServiceUsers,O=Unknown,L=Unknown,ST=Unknown,C=Unknown", "ok:serviceuser"},
	{docRules, "CN=adminUser,OU=Admin,O=Unknown,L=Unknown,ST=Unknown,C=Unknown", "ok:adminuser@admin"},
	{docRules, "OU=x,CN=Bob.Smith,O=y", "ok:bob.smith"},
	{docRules, "O=nocn", "ok:O=nocn"},
	{`RULE:CN=([^,]+).*/$1/U`, "CN=alice,O=x", "ok:ALICE"},
	{`RULE:CN=([^,]+).*/$1/U`, "O=x,CN=alice", "err:NoMatchingRule"},
	{`RULE:^CN=([a-z]+)\/x$/$1/`, "CN=bob/x", "ok:bob"},
	// Java's replaceAll keeps the empty match after the whole input.
	{`RULE:(.*)/X$1/`, "abc", "ok:XabcX"},
	{`RULE:^(.*)$/X$1/`, "abc", "ok:Xabc"},
	// A $n beyond the groups is literal; \$ is literal.
	{`RULE:^CN=(.*)$/$1$2/`, "CN=bob", "ok:bob$2"},
	{`RULE:^CN=(.*)$/$12/`, "CN=bob", "ok:bob2"},
	{`RULE:^CN=(.*)$/\$1/`, "CN=bob", "ok:$1"},
	{`RULE:^CN=(.*)$/$1/X`, "CN=bob", "err:IllegalArgumentException"},
	{`RULE:^CN=(.*)$/$1`, "CN=bob", "err:IllegalArgumentException"},
	{"", "CN=bob", "err:NoMatchingRule"},
	{"DEFAULT", `CN=a\,b,O=c`, `ok:CN=a\,b,O=c`},
	// Kafka's back-reference escaping puts the second backslash one
	// character early, so $6 stays a reference to a missing group.
	{`RULE:^CN=(.*)$/$5$6/`, "CN=bob", "err:IndexOutOfBoundsException"},
	{`RULE:^CN=.*$/$1/`, "CN=bob", "err:IndexOutOfBoundsException"},
	{`RULE:^CN=(.*)$/$99999999999/`, "CN=bob", "err:NumberFormatException"},
	{`RULE:^CN=(?<u>.*)$/${u}/`, "CN=bob", "ok:bob"},
	{`RULE:^CN=(.*)$/${v}/`, "CN=bob", "err:IllegalArgumentException"},
	{`RULE:^CN=(.*)$/$1/U`, "CN=straße", "ok:STRASSE"},
	{`RULE:^CN=(.*)$/$1/L`, "CN=İ", "ok:i̇"},
	// Refused: constructs and inputs Go cannot evaluate as Java does.
	{`RULE:^CN=(?=a)(.*)$/$1/`, "CN=a", "err:unsupported"},
	{`RULE:^CN=(a)\1$/$1/`, "CN=aa", "err:unsupported"},
	{`RULE:^CN=a++$/x/`, "CN=aa", "err:unsupported"},
	{`RULE:^CN=(a*)*$/x/`, "CN=aa", "err:unsupported"},
	{`RULE:^CN=(.*)$/$1/`, "CN=a\n", "err:unsupported"},
	// Malformed: Kafka refuses the rule.
	{`RULE:^CN=(.*$/$1/`, "CN=bob", "err:PatternSyntaxException"},
	{`RULE:*/$1/`, "CN=bob", "err:PatternSyntaxException"},
	{`RULE:^CN=[a-$/$1/`, "CN=bob", "err:PatternSyntaxException"},
}

// The cases of reference/kafka-authorizers.md §3.2 (default realm
// EXAMPLE.COM), run there against Kafka's own KerberosShortNamer.
func TestKerberosRulesReference(t *testing.T) {
	for _, tt := range krbTable {
		if got := krbName("EXAMPLE.COM", tt.rules, tt.name); got != tt.want {
			t.Errorf("rules %q, %q: got %s, want %s", tt.rules, tt.name, got, tt.want)
		}
	}
}

var krbTable = []struct{ rules, name, want string }{
	{"DEFAULT", "alice@EXAMPLE.COM", "ok:alice"},
	{"DEFAULT", "kafka/h1.example.com@EXAMPLE.COM", "ok:kafka"},
	{"DEFAULT", "alice@OTHER.COM", "err:NoMatchingRule"},
	{"DEFAULT", "alice", "ok:alice"},
	{"RULE:[1:$1@$0](.*@MYDOMAIN.COM)s/@.*//,DEFAULT", "user@MYDOMAIN.COM", "ok:user"},
	{"RULE:[1:$1@$0](.*@MYDOMAIN.COM)s/@.*//,DEFAULT", "user@X.COM", "err:NoMatchingRule"},
	{"RULE:[2:$1](kafka)s/^.*$/kafka-svc/", "kafka/broker1@EXAMPLE.COM", "ok:kafka-svc"},
	{"RULE:[2:$1@$0](.*@EXAMPLE.COM)s/@.*//L", "HTTP/web1@EXAMPLE.COM", "ok:http"},
	{"RULE:[1:$1]/U", "bob@OTHER.COM", "ok:BOB"},
	{"RULE:[1:$1]s/a/X/g", "banana@EXAMPLE.COM", "ok:bXnXnX"},
	{"RULE:[1:$1]s/a/X/", "banana@EXAMPLE.COM", "ok:bXnana"},
	{"RULE:[1:$1@$0]", "bob@EXAMPLE.COM", "err:NoMatchingRule"},
	{"RULE:[1:$1]//U", "bob@EXAMPLE.COM", "err:IllegalArgumentException"},
	{"RULE:[1:$1]L", "BOB@EXAMPLE.COM", "ok:bob"},
	{"RULE:[:$1]", "bob@EXAMPLE.COM", "err:NumberFormatException"},
	{"RULE:[1:$3]", "bob@EXAMPLE.COM", "err:BadFormatString"},
	{"RULE:[1:$]", "bob@EXAMPLE.COM", "err:BadFormatString"},
	{"DEFAULT,", "bob@EXAMPLE.COM", "err:IllegalArgumentException"},
	{"", "bob@EXAMPLE.COM", "err:NoMatchingRule"},
	{"DEFAULT", "a@b@c", "err:IllegalArgumentException"},
	{"DEFAULT", "a/b/c@EXAMPLE.COM", "err:IllegalArgumentException"},
	{"RULE:[1:$1](a(b)s/a/b/", "ab@EXAMPLE.COM", "err:PatternSyntaxException"},
}
