package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestDemo runs the README's first command: the whole flow on the bundled
// capture and kfake, ending with a plan that has nothing left to do.
func TestDemo(t *testing.T) {
	code, out, errs := runMigrate(t, "demo", "--no-tui", "--no-audit")
	if code != exitOK {
		t.Fatalf("demo: exit %d\n%s\n%s", code, out, errs)
	}
	for _, want := range []string{"== Plan ==", "+ topic orders", "+ acl Deny User:mallory", "+ scram-user User:alice SCRAM-SHA-512",
		"Apply finished: 59 succeeded, 0 failed", "== Plan again ==", "No changes. The target matches the source except for 2 blocker(s)."} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q", want)
		}
	}
	var creds []credentialFile
	if err := json.Unmarshal(demoScram, &creds); err != nil {
		t.Fatal(err)
	}
	secrets := []string{strings.TrimSpace(demoEncoderSecret), "kp-secret-1"}
	for _, c := range creds {
		secrets = append(secrets, c.Password)
	}
	for _, s := range secrets {
		if strings.Contains(out+errs, s) {
			t.Errorf("demo output contains the secret %q", s)
		}
	}
}
