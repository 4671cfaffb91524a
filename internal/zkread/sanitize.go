package zkread

import (
	"fmt"
	"net/url"
	"strings"
)

// DefaultEntity is the literal znode name of the default entity
// (ZooKeeperInternals.DEFAULT_STRING). It is stored unescaped; a real entity
// named "<default>" is stored sanitized as "%3Cdefault%3E".
const DefaultEntity = "<default>"

// Desanitize decodes an entity name the way Kafka's Sanitizer.desanitize
// does (java.net.URLDecoder: %XX escapes of UTF-8 bytes, '+' as space).
func Desanitize(s string) (string, error) {
	d, err := url.QueryUnescape(s)
	if err != nil {
		return "", fmt.Errorf("zkread: bad URL-encoded name %q: %w", s, err)
	}
	return d, nil
}

// Sanitize encodes a name the way Kafka's Sanitizer.sanitize does: every
// byte of the UTF-8 encoding other than [A-Za-z0-9._-] becomes %XX in upper
// case (so "~" is "%7E", "*" is "%2A" and space is "%20").
func Sanitize(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}
