package principalmap

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/zkmigrate/zkmigrate/internal/props"
)

// The keys of a principal map file. The first two are Kafka's own
// (server.properties); the others are this tool's.
const (
	KeySSLRules      = "ssl.principal.mapping.rules"
	KeyKerberosRules = "sasl.kerberos.principal.to.local.rules"
	// KeyKerberosRealm is the realm Kafka takes from the JVM's Kerberos
	// configuration (krb5.conf default_realm); the DEFAULT Kerberos rule
	// needs it.
	KeyKerberosRealm = "zkmigrate.kerberos.default.realm"
	// KeyPair is one explicit pair, "SOURCE -> TARGET" (full principals);
	// it may be given many times, one pair each.
	KeyPair = "zkmigrate.map"

	keyBuilder     = "principal.builder.class"
	defaultBuilder = "org.apache.kafka.common.security.authenticator.DefaultKafkaPrincipalBuilder"
)

// Map maps source principals to the principals the same clients have on
// the target: explicit pairs first, then Kafka's SSL rules for names that
// are distinguished names, then Kafka's Kerberos rules for Kerberos names.
// It is immutable and safe for concurrent use.
type Map struct {
	path      string
	ssl       *sslRules // nil: the key is not set
	sslAt     int
	krb       *krbRules
	krbAt     int
	pairs     map[string]pair
	canonical string
}

type pair struct {
	to   string
	line int
}

// By says what decided a principal's mapping.
type By string

// What decides a mapping.
const (
	ByNone     By = ""         // not of a mapped kind: left as it is
	ByPair     By = "pair"     // an explicit pair
	BySSL      By = "ssl"      // ssl.principal.mapping.rules
	ByKerberos By = "kerberos" // sasl.kerberos.principal.to.local.rules
)

// How is what decided a principal's mapping.
type How struct {
	By    By     `json:"by,omitempty"`
	Rule  string `json:"rule,omitempty"`  // the rule as written, or the pair "A -> B"
	Where string `json:"where,omitempty"` // file:line of the key or pair
}

// The reasons an Apply fails, for errors.Is.
var (
	// ErrNoMatch: no rule applies to a principal of a mapped kind (Kafka's
	// NoMatchingRule: such a client could not authenticate on the target).
	ErrNoMatch = errors.New("no rule applies")
	// ErrRuleFails: a rule applies but Kafka throws while applying it (a
	// replacement naming a missing group, a Kerberos result with '/' or
	// '@', a malformed Kerberos name): authentication fails on the target.
	ErrRuleFails = errors.New("the rule fails in Kafka")
	// ErrUnsupported: the principal cannot be evaluated exactly as Kafka
	// would (see the package documentation); nothing is guessed.
	ErrUnsupported = errors.New("not evaluated")
)

// ApplyError is a principal Apply cannot map; Reason is ErrNoMatch,
// ErrRuleFails or ErrUnsupported.
type ApplyError struct {
	Principal string
	Reason    error
	How       How    // the key (and rule) involved
	Detail    string // Kafka's exception or the refusal
}

func (e *ApplyError) Error() string {
	where := ""
	if e.How.Where != "" {
		where = " (" + e.How.Where + ")"
	}
	return fmt.Sprintf("principal %q: %v%s: %s", e.Principal, e.Reason, where, e.Detail)
}

func (e *ApplyError) Unwrap() error { return e.Reason }

// FileError is a refused principal map file, naming file:line.
type FileError struct {
	Path string
	Line int
	Key  string
	Err  error
}

func (e *FileError) Error() string {
	if e.Key == "" {
		return fmt.Sprintf("%s:%d: %v", e.Path, e.Line, e.Err)
	}
	return fmt.Sprintf("%s:%d: %s: %v", e.Path, e.Line, e.Key, e.Err)
}

func (e *FileError) Unwrap() error { return e.Err }

// Load reads a principal map file through the project's properties reader
// (its size limit included).
func Load(path string) (*Map, error) {
	f, err := props.Load(path)
	if err != nil {
		return nil, fmt.Errorf("principal map: %w", err)
	}
	return fromProps(f)
}

// Parse reads a principal map from r; name is used in errors.
func Parse(r io.Reader, name string) (*Map, error) {
	f, err := props.Parse(name, r)
	if err != nil {
		return nil, err
	}
	return fromProps(f)
}

func fromProps(f *props.File) (*Map, error) {
	m := &Map{path: f.Path, pairs: map[string]pair{}}
	ferr := func(e *props.Entry, err error) error {
		return &FileError{Path: f.Path, Line: e.Line, Key: e.Key, Err: err}
	}
	for i := range f.Entries {
		e := &f.Entries[i]
		switch {
		case e.Key == KeyPair:
			if err := m.addPair(e.Value, e.Line); err != nil {
				return nil, ferr(e, err)
			}
		case e.Key == KeySSLRules || e.Key == KeyKerberosRules || e.Key == KeyKerberosRealm:
		case strings.HasPrefix(e.Key, "zkmigrate."):
			return nil, ferr(e, fmt.Errorf("unknown key; this tool's keys are %s and %s", KeyKerberosRealm, KeyPair))
		case strings.HasPrefix(e.Key, "listener.name.") && (strings.HasSuffix(e.Key, "."+KeySSLRules) || strings.HasSuffix(e.Key, "."+KeyKerberosRules)):
			return nil, ferr(e, fmt.Errorf("rules of one listener: give the rules of the listener the clients will use under %s or %s, without the listener prefix", KeySSLRules, KeyKerberosRules))
		}
	}
	if e := f.Lookup(keyBuilder); e != nil && javaTrim(e.Value) != "" && javaTrim(e.Value) != defaultBuilder {
		return nil, ferr(e, fmt.Errorf("a custom principal builder (%s) decides principals in its own way, which no rule here can model; map its principals with %s pairs and leave this key out", javaTrim(e.Value), KeyPair))
	}
	if e := f.Lookup(KeySSLRules); e != nil {
		r, err := parseSSLRules(e.Value)
		if err != nil {
			return nil, ferr(e, err)
		}
		m.ssl, m.sslAt = r, e.Line
	}
	if e := f.Lookup(KeyKerberosRules); e != nil {
		list := splitList(e.Value)
		realm, haveRealm := f.Get(KeyKerberosRealm)
		realm = javaTrim(realm)
		if !haveRealm {
			for _, r := range list {
				if r == "DEFAULT" {
					return nil, ferr(e, fmt.Errorf("the DEFAULT rule needs the default realm the brokers' JVM has (krb5.conf default_realm): set %s", KeyKerberosRealm))
				}
			}
		}
		r, err := parseKerberosRules(realm, list)
		if err != nil {
			return nil, ferr(e, err)
		}
		m.krb, m.krbAt = r, e.Line
	} else if e := f.Lookup(KeyKerberosRealm); e != nil {
		return nil, ferr(e, fmt.Errorf("set without %s", KeyKerberosRules))
	}
	if m.ssl == nil && m.krb == nil && len(m.pairs) == 0 {
		return nil, &FileError{Path: f.Path, Line: 1, Err: fmt.Errorf("maps nothing: set %s, %s or %s", KeySSLRules, KeyKerberosRules, KeyPair)}
	}
	m.canonical = m.canonicalText(f)
	return m, nil
}

// addPair reads "SOURCE -> TARGET".
func (m *Map) addPair(value string, line int) error {
	parts := strings.Split(value, "->")
	if len(parts) != 2 {
		return fmt.Errorf("%q: a pair is SOURCE -> TARGET, with one \"->\" (write User:CN=jakub,OU=eng -> User:jakub)", value)
	}
	from, to := strings.TrimSpace(parts[0]), strings.TrimSpace(parts[1])
	for _, p := range []string{from, to} {
		i := strings.IndexByte(p, ':')
		if i <= 0 {
			return fmt.Errorf("%q is not a principal TYPE:NAME (as User:alice)", p)
		}
		if p == "User:*" {
			return fmt.Errorf("the wildcard principal User:* cannot be mapped or mapped to")
		}
	}
	if prev, dup := m.pairs[from]; dup {
		return fmt.Errorf("%s is already mapped, on line %d", from, prev.line)
	}
	m.pairs[from] = pair{to: to, line: line}
	return nil
}

// Kind is the kind of name a principal has, as a map sees it.
type Kind string

// The kinds of principal.
const (
	KindOther    Kind = ""         // no rule of this map applies to it
	KindDN       Kind = "dn"       // a distinguished name, with SSL rules given
	KindKerberos Kind = "kerberos" // a Kerberos name (with '@'), with Kerberos rules given
)

// Kind returns the kind of principal (Type:name) for this map: a User
// whose name is an X.500 distinguished name when SSL rules are given, a
// User whose name has '@' (Kafka parses it as primary[/instance]@REALM)
// when Kerberos rules are given (a name that is both is taken as a DN),
// else KindOther. The wildcard User:* is never of a mapped kind.
func (m *Map) Kind(principal string) Kind {
	typ, name, ok := strings.Cut(principal, ":")
	if !ok || typ != "User" || name == "*" {
		return KindOther
	}
	if m.ssl != nil && IsDN(name) {
		return KindDN
	}
	if m.krb != nil && strings.Contains(name, "@") {
		return KindKerberos
	}
	return KindOther
}

// Mapped reports whether Apply changes principal or must decide it: it has
// an explicit pair or is of a mapped kind.
func (m *Map) Mapped(principal string) bool {
	_, ok := m.pairs[principal]
	return ok || m.Kind(principal) != KindOther
}

// Apply returns the target principal for a source principal (full form,
// Type:name) and what decided it. A principal of no mapped kind and without
// a pair is returned unchanged with How.By ByNone. The error is an
// *ApplyError: ErrNoMatch, ErrRuleFails or ErrUnsupported.
func (m *Map) Apply(principal string) (string, How, error) {
	if p, ok := m.pairs[principal]; ok {
		return p.to, How{By: ByPair, Rule: principal + " -> " + p.to, Where: m.where(p.line)}, nil
	}
	kind := m.Kind(principal)
	if kind == KindOther {
		return principal, How{}, nil
	}
	name := principal[len("User:"):]
	how := How{By: BySSL, Where: m.where(m.sslAt)}
	var (
		out, rule string
		err       error
	)
	if kind == KindDN {
		out, rule, err = m.ssl.name(name)
	} else {
		how = How{By: ByKerberos, Where: m.where(m.krbAt)}
		out, rule, err = m.krb.shortName(name)
	}
	how.Rule = rule
	if err != nil {
		return "", how, &ApplyError{Principal: principal, Reason: reason(err), How: how, Detail: err.Error()}
	}
	return "User:" + out, how, nil
}

// ApplyUser maps a user name (a SCRAM user or a quota entity's user, which
// Kafka names without "User:"); the result must be a User.
func (m *Map) ApplyUser(user string) (string, How, error) {
	out, how, err := m.Apply("User:" + user)
	if err != nil {
		return "", how, err
	}
	typ, name, _ := strings.Cut(out, ":")
	if typ != "User" {
		return "", how, &ApplyError{Principal: "User:" + user, Reason: ErrRuleFails, How: how, Detail: fmt.Sprintf("maps to %s, which is not a User: a user name cannot become it", out)}
	}
	return name, how, nil
}

func reason(err error) error {
	var (
		nm *noMatchError
		ie *inputError
	)
	switch {
	case errors.As(err, &nm):
		return ErrNoMatch
	case errors.As(err, &ie):
		return ErrUnsupported
	}
	return ErrRuleFails
}

func (m *Map) where(line int) string { return fmt.Sprintf("%s:%d", m.path, line) }

// Path is the file the map was read from.
func (m *Map) Path() string { return m.path }

// Canonical is the map as a properties text that Parse reads back to the
// same map: only the keys that decide it, the rules as Kafka reads them
// (trimmed), the pairs sorted. Two files that differ only in comments,
// spacing, other keys or the order of pairs have one canonical form.
func (m *Map) Canonical() string { return m.canonical }

// Digest is "sha256:" and the hex SHA-256 of Canonical: what a plan
// records of the map it was built with.
func (m *Map) Digest() string {
	sum := sha256.Sum256([]byte(m.canonical))
	return "sha256:" + hex.EncodeToString(sum[:])
}

func (m *Map) canonicalText(f *props.File) string {
	var b strings.Builder
	line := func(k, v string) { b.WriteString(escapeProp(k, true) + "=" + escapeProp(v, false) + "\n") }
	if m.ssl != nil {
		v, _ := f.Get(KeySSLRules)
		line(KeySSLRules, javaTrim(v))
	}
	if m.krb != nil {
		v, _ := f.Get(KeyKerberosRules)
		line(KeyKerberosRules, strings.Join(splitList(v), ","))
		if _, ok := f.Get(KeyKerberosRealm); ok {
			line(KeyKerberosRealm, m.krb.realm)
		}
	}
	froms := make([]string, 0, len(m.pairs))
	for k := range m.pairs {
		froms = append(froms, k)
	}
	sort.Strings(froms)
	for _, k := range froms {
		line(KeyPair, k+" -> "+m.pairs[k].to)
	}
	return b.String()
}

// escapeProp writes s so that java.util.Properties (and props) reads it
// back: backslashes and control characters escaped, characters outside
// printable ASCII as \uXXXX, a leading space (in a key every space, '=',
// ':', '#' and '!') escaped.
func escapeProp(s string, key bool) string {
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\f':
			b.WriteString(`\f`)
		case r == ' ' && (key || i == 0):
			b.WriteString(`\ `)
		case key && strings.ContainsRune("=:#!", r):
			b.WriteString(`\` + string(r))
		case r < 0x20 || r > 0x7e:
			if r > 0xFFFF {
				r1, r2 := utf16Pair(r)
				fmt.Fprintf(&b, `\u%04X\u%04X`, r1, r2)
			} else {
				fmt.Fprintf(&b, `\u%04X`, r)
			}
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func utf16Pair(r rune) (rune, rune) {
	r -= 0x10000
	return 0xD800 + r>>10, 0xDC00 + r&0x3FF
}

// IsDN reports whether name is an X.500 distinguished name in the RFC 2253
// form Kafka hands its SSL rules (X500Principal.getName()): one or more
// RDNs separated by ',', each one or more type=value separated by '+', the
// type a keyword (CN, OU, ...) or an OID (2.5.4.3), the value with '\'
// escapes, a #hex string or a quoted string.
func IsDN(name string) bool {
	i, n := 0, len(name)
	for {
		// attribute type
		start := i
		if i < n && isLetter(name[i]) {
			for i < n && (isLetter(name[i]) || isDigitB(name[i]) || name[i] == '-') {
				i++
			}
		} else {
			for i < n && (isDigitB(name[i]) || name[i] == '.' && i > start) {
				i++
			}
			if i == start || name[i-1] == '.' {
				return false
			}
		}
		for i < n && name[i] == ' ' {
			i++
		}
		if i == start || i >= n || name[i] != '=' {
			return false
		}
		i++
		// attribute value
		if i < n && name[i] == '"' {
			i++
			for i < n && name[i] != '"' {
				if name[i] == '\\' {
					i++
				}
				i++
			}
			if i >= n {
				return false
			}
			i++
		}
		for i < n && name[i] != ',' && name[i] != '+' {
			if name[i] == '\\' {
				i++
				if i >= n {
					return false
				}
			}
			i++
		}
		if i >= n {
			return true
		}
		i++ // ',' or '+'
		for i < n && name[i] == ' ' {
			i++
		}
	}
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigitB(c byte) bool { return c >= '0' && c <= '9' }
