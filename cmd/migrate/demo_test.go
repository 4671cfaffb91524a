package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/demo"
)

// TestDemo runs the README's first command: the whole flow on the bundled
// capture and kfake, ending with a plan that has nothing left to do.
func TestDemo(t *testing.T) {
	code, out, errs := runMigrate(t, "demo", "--no-tui", "--no-audit")
	if code != exitOK {
		t.Fatalf("demo: exit %d\n%s\n%s", code, out, errs)
	}
	for _, want := range []string{"== Plan ==", "+ topic orders", "+ acl Deny User:mallory", "+ scram-user User:alice SCRAM-SHA-512",
		"Apply finished: 59 succeeded, 0 failed", "== Plan again ==", "No changes. The target matches the source except for 2 blockers."} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q", want)
		}
	}
	var creds []struct {
		Password string `json:"password"`
	}
	if err := json.Unmarshal(demo.Scram, &creds); err != nil {
		t.Fatal(err)
	}
	secrets := []string{strings.TrimSpace(demo.EncoderSecret), "kp-secret-1"}
	for _, c := range creds {
		secrets = append(secrets, c.Password)
	}
	for _, s := range secrets {
		if strings.Contains(out+errs, s) {
			t.Errorf("demo output contains the secret %q", s)
		}
	}
}

// TestDemoExplainsItself: the demo says where its audit trail is, and the
// commands it prints at the end work as printed (run here in-process): the
// run is there, and its receipt verifies as an anchor of that database.
func TestDemoExplainsItself(t *testing.T) {
	db := filepath.Join(t.TempDir(), "demo audit.db") // a space: the hint must quote it
	code, out, errs := runMigrate(t, "demo", "--no-tui", "--audit-db", db)
	if code != exitOK {
		t.Fatalf("demo: exit %d\n%s", code, errs)
	}
	if !strings.Contains(out, "Audit trail: "+db+" (the demo's own database") {
		t.Errorf("demo does not say where its audit trail is:\n%.300s", out)
	}
	var hints [][]string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "  migrate audit ") {
			hints = append(hints, shellWords(t, strings.TrimSpace(l)))
		}
	}
	if len(hints) != 2 {
		t.Fatalf("want 2 audit hints at the end, got %q\n%s", hints, out)
	}
	for _, h := range hints {
		code, hout, herrs := runMigrate(t, h[1:]...)
		if code != exitOK {
			t.Errorf("pasted %q: exit %d, %s", h, code, herrs)
		}
		switch h[2] {
		case "show":
			if !strings.Contains(hout, ": demo by ") {
				t.Errorf("pasted %q shows no demo run:\n%.300s", h, hout)
			}
		case "verify":
			if !strings.HasPrefix(hout, "Intact") || !strings.Contains(hout, "found at position") {
				t.Errorf("pasted %q: %s", h, hout)
			}
		}
	}

	// demo --help tells the demo's own database, not the operator's.
	_, help, _ := runMigrate(t, "demo", "--help")
	if !strings.Contains(strings.Join(strings.Fields(help), " "), demo.AuditDirPattern+": one per run") {
		t.Errorf("demo --help does not show the demo's database:\n%s", help)
	}
}

// shellWords splits a pasted command line as a POSIX shell would for the
// quoting shellQuote makes (single quotes, '\” for a quote).
func shellWords(t *testing.T, s string) []string {
	t.Helper()
	var words []string
	var cur strings.Builder
	inWord, quoted := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quoted && c == '\'':
			quoted = false
		case quoted:
			cur.WriteByte(c)
		case c == '\'':
			quoted, inWord = true, true
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			inWord = true
		case c == ' ':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if quoted {
		t.Fatalf("unterminated quote in %q", s)
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}
