package audit

import (
	"bytes"
	"encoding/json"
	"regexp"
	"sort"
	"strings"

	"github.com/zkmigrate/zkmigrate/internal/catalogue"
)

// Redacted replaces a secret value in everything the audit stores.
const Redacted = "[redacted]"

// sensitiveWords mark a flag or key name whose value is a secret.
var sensitiveWords = []string{"password", "passwd", "secret", "auth", "jaas", "token", "credential"}

// sensitiveKey reports whether a config or JSON key names a secret
// (catalogue.LooksSensitive, plus anything mentioning jaas).
func sensitiveKey(key string) bool {
	k := strings.ToLower(key)
	return catalogue.LooksSensitive(k) || strings.Contains(k, "jaas") || strings.Contains(k, "passwd")
}

// sensitiveName reports whether a flag name names a secret: it contains
// password, secret, auth, jaas, token or credential.
func sensitiveName(name string) bool {
	n := strings.ToLower(name)
	for _, w := range sensitiveWords {
		if strings.Contains(n, w) {
			return true
		}
	}
	return catalogue.LooksSensitive(n)
}

var (
	// userinfo in a URL or connect string: scheme://user:pass@host.
	urlUserinfo = regexp.MustCompile(`(//[^/\s:@"',;]*):[^@\s/"',;]*@`)
	// JAAS options and similar: password="..." or secret=value.
	// The same inside JSON text: password=\"...\".
	escapedSecret  = regexp.MustCompile(`(?i)\b([a-z0-9_.-]*(?:password|passwd|secret|token|credential)[a-z0-9_.-]*)\s*=\s*\\"(?:[^"\\]|\\[^"])*\\"`)
	quotedSecret   = regexp.MustCompile(`(?i)\b([a-z0-9_.-]*(?:password|passwd|secret|token|credential)[a-z0-9_.-]*)\s*=\s*"[^"]*"`)
	unquotedSecret = regexp.MustCompile(`(?i)\b([a-z0-9_.-]*(?:password|passwd|secret|token|credential)[a-z0-9_.-]*)\s*=\s*[^\s";,&\\][^\s";,&]*`)
)

// RedactArgs returns a copy of command-line arguments with secrets
// replaced by [redacted]:
//   - the value of a flag whose name contains password, secret, auth, jaas,
//     token or credential (--password=x, or the next argument after
//     --password unless it is itself a long flag);
//   - the value of a key=value argument (or flag value) whose key is
//     sensitive (sasl.jaas.config=..., ssl.key.password=...);
//   - the password in user:password@host and in JAAS-style
//     password="..." text anywhere in an argument.
func RedactArgs(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if len(a) > 1 && a[0] == '-' && a != "--" {
			dashes := a[:len(a)-len(strings.TrimLeft(a, "-"))]
			name := a[len(dashes):]
			if n, v, ok := strings.Cut(name, "="); ok {
				if sensitiveName(n) {
					out = append(out, dashes+n+"="+Redacted)
				} else {
					out = append(out, dashes+n+"="+redactValue(v))
				}
				continue
			}
			out = append(out, a)
			if sensitiveName(name) && i+1 < len(args) && !strings.HasPrefix(args[i+1], "--") {
				out = append(out, Redacted)
				i++
			}
			continue
		}
		out = append(out, redactValue(a))
	}
	return out
}

// redactValue redacts one argument or flag value.
func redactValue(v string) string {
	if k, _, ok := strings.Cut(v, "="); ok && !strings.ContainsAny(k, " \t/") && sensitiveKey(k) {
		return k + "=" + Redacted
	}
	return redactText(v)
}

// redactText removes passwords in URLs and key=value text.
func redactText(s string) string {
	if !strings.ContainsAny(s, "=@") {
		return s
	}
	if strings.Contains(s, "@") {
		s = urlUserinfo.ReplaceAllString(s, "$1:"+Redacted+"@")
	}
	if strings.Contains(s, "=") && mentionsSecret(s) {
		s = redactKeyValues(s)
	}
	return s
}

// redactKeyValues redacts the values of JAAS-style secret options
// (password="...", secret=value; password=\"...\" inside JSON text).
func redactKeyValues(s string) string {
	s = escapedSecret.ReplaceAllString(s, `$1=\"`+Redacted+`\"`)
	s = quotedSecret.ReplaceAllString(s, `$1="`+Redacted+`"`)
	return unquotedSecret.ReplaceAllStringFunc(s, func(m string) string {
		if strings.HasSuffix(m, Redacted) || strings.HasSuffix(m, Redacted+`"`) {
			return m
		}
		k, _, _ := strings.Cut(m, "=")
		return k + "=" + Redacted
	})
}

// redactJSONText is redactText for a JSON document as json.Marshal writes
// it. The key=value patterns are applied to each string literal holding an
// '=' rather than to the whole text: a match never crosses a quote except
// at a string's end (where it would break the document: "...token=","next"
// became "...token="[redacted]"next"), so every secret is redacted as before,
// and the regular expressions no longer scan tens of megabytes byte by byte
// (40 s for the plan of a 50,000-topic cluster). The URL pattern starts with
// a literal "//" and stays on the whole text.
func redactJSONText(s string) string {
	if strings.Contains(s, "@") && urlUserinfo.MatchString(s) {
		s = urlUserinfo.ReplaceAllString(s, "$1:"+Redacted+"@")
	}
	if !hasSecretKeyEq(s) {
		return s
	}
	var b strings.Builder
	done := 0 // s[:done] is in b
	for i := 0; i < len(s); i++ {
		q := strings.IndexByte(s[i:], '"')
		if q < 0 {
			break
		}
		start := i + q + 1
		i = start + litEnd(s[start:])
		lit := s[start:min(i, len(s))]
		// An '=' the literal escapes (\=) is no match for the patterns
		// either: each needs a name or a space before its '='.
		if strings.IndexByte(lit, '=') < 0 || !mayMentionSecret(lit) {
			continue
		}
		if r := redactKeyValues(lit); r != lit {
			if b.Len() == 0 {
				b.Grow(len(s))
			}
			b.WriteString(s[done:start])
			b.WriteString(r)
			done = start + len(lit)
		}
	}
	if done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

// hasSecretKeyEq reports whether s holds an '=' that the key=value
// patterns (escapedSecret, quotedSecret, unquotedSecret) could match at: one
// after a run of key characters (ASCII letters, digits, '_', '.', '-', and
// any non-ASCII byte: case folding maps "ſ" to "s" and the Kelvin sign to
// "k") that mentions a secret (passw, secret, token, credential, ASCII
// case-insensitively, or any non-ASCII byte), and optional spaces. Every
// match of those patterns has such an '=', so text without one is left as
// it is; a plan's JSON has very few, so most of it is scanned for '=' only.
func hasSecretKeyEq[T string | []byte](s T) bool {
	for i := 0; i < len(s); i++ {
		j := indexByte(s[i:], '=')
		if j < 0 {
			return false
		}
		i += j
		k := i
		for k > 0 && isRegexpSpace(s[k-1]) {
			k--
		}
		end := k
		for k > 0 && isKeyByte(s[k-1]) {
			k--
		}
		if keyMentionsSecret(s[k:end]) {
			return true
		}
	}
	return false
}

// indexByte is strings.IndexByte or bytes.IndexByte.
func indexByte[T string | []byte](s T, c byte) int {
	switch x := any(s).(type) {
	case string:
		return strings.IndexByte(x, c)
	case []byte:
		return bytes.IndexByte(x, c)
	}
	return -1
}

// isRegexpSpace is \s in Go's regexp syntax: [\t\n\f\r ].
func isRegexpSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

// isKeyByte is a byte of [a-z0-9_.-] under (?i), or any non-ASCII byte.
func isKeyByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-' || c >= 0x80
}

// keyMentionsSecret reports whether a run of key bytes holds passw,
// secret, token or credential (ASCII case-insensitively) or a non-ASCII
// byte.
func keyMentionsSecret[T string | []byte](key T) bool {
	if len(key) < 5 {
		return false // the shortest word, token, has 5 bytes; "ſ" and "K" have 2 and 3
	}
	var low [64]byte
	b := low[:0]
	for i := 0; i < len(key); i++ {
		c := key[i]
		if c >= 0x80 {
			return true
		}
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	for _, w := range []string{"passw", "secret", "token", "credential"} {
		if bytes.Contains(b, []byte(w)) {
			return true
		}
	}
	return false
}

// litEnd returns where the string literal that s starts (just after its
// opening quote) ends: the index of its closing quote, len(s) if it has
// none. A backslash escapes the byte after it, a quote included.
func litEnd(s string) int {
	for off := 0; ; {
		q := strings.IndexByte(s[off:], '"')
		if q < 0 {
			return len(s)
		}
		q += off
		if backslashesBefore(s, off, q)%2 == 0 {
			return q
		}
		off = q + 1
	}
}

// backslashesBefore counts the backslashes right before s[end], back to
// s[from] at most.
func backslashesBefore[T string | []byte](s T, from, end int) int {
	k := 0
	for end-k > from && s[end-k-1] == '\\' {
		k++
	}
	return k
}

// mentionsSecret is a cheap pre-check for redactText's patterns.
func mentionsSecret(s string) bool {
	l := strings.ToLower(s)
	for _, w := range []string{"passw", "secret", "token", "credential"} {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// mayMentionSecret is mentionsSecret for one JSON string literal, true for
// any text that is not ASCII (the patterns match case-insensitively, and
// Unicode folds "ſ" to "s").
func mayMentionSecret(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return true
		}
	}
	return mentionsSecret(s)
}

// redactEndpointAddress strips credentials from an address.
func redactEndpointAddress(a string) string { return redactText(a) }

// redactJSONValue walks a decoded JSON value and redacts the values of
// sensitive keys.
func redactJSONValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if sensitiveKey(k) {
				switch e.(type) {
				case string, float64:
					x[k] = Redacted
					continue
				}
			}
			x[k] = redactJSONValue(e)
		}
		return x
	case []any:
		for i := range x {
			x[i] = redactJSONValue(x[i])
		}
		return x
	case string:
		return redactText(x)
	}
	return v
}

// redactedJSON marshals v and redacts sensitive keys' values.
func redactedJSON(v any) (string, error) {
	if v == nil {
		return "", nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	var g any
	if err := json.Unmarshal(b, &g); err != nil {
		return "", err
	}
	b, err = json.Marshal(redactJSONValue(g))
	return string(b), err
}

// scrubber removes known secret values (and their JSON-escaped forms) from
// text. Values shorter than minSecretLen are not searched for (they would
// match ordinary text); structural redaction keeps them out instead.
type scrubber struct {
	secrets []string
}

const minSecretLen = 4

// add remembers secret values to scrub.
func (sc *scrubber) add(vals ...string) {
	seen := map[string]bool{}
	for _, s := range sc.secrets {
		seen[s] = true
	}
	for _, v := range vals {
		if len(v) < minSecretLen {
			continue
		}
		forms := []string{v}
		if b, err := json.Marshal(v); err == nil {
			if e := string(b[1 : len(b)-1]); e != v {
				forms = append(forms, e)
			}
		}
		for _, f := range forms {
			if !seen[f] {
				seen[f] = true
				sc.secrets = append(sc.secrets, f)
			}
		}
	}
	// Longest first, so that a secret containing another is replaced whole.
	sort.Slice(sc.secrets, func(i, j int) bool { return len(sc.secrets[i]) > len(sc.secrets[j]) })
}

// scrub returns s without known secrets and with URL/JAAS passwords
// redacted.
func (sc *scrubber) scrub(s string) string {
	return redactText(sc.replaceSecrets(s))
}

// scrubJSON is scrub for a JSON document (see redactJSONText).
func (sc *scrubber) scrubJSON(s string) string {
	return redactJSONText(sc.replaceSecrets(s))
}

// containsAny reports whether b holds a known secret.
func (sc *scrubber) containsAny(b []byte) bool {
	for _, sec := range sc.secrets {
		if bytes.Contains(b, []byte(sec)) {
			return true
		}
	}
	return false
}

// replaceSecrets replaces every known secret in s.
func (sc *scrubber) replaceSecrets(s string) string {
	if sc == nil {
		return s
	}
	for _, sec := range sc.secrets {
		if strings.Contains(s, sec) {
			s = strings.ReplaceAll(s, sec, Redacted)
		}
	}
	return s
}
