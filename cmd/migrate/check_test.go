package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const checkFixture = "../../internal/check/testdata/legacy.snapshot.json"

func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(""), &out, &errb, false)
	return code, out.String(), errb.String()
}

func TestCheckCommand(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		code    int
		stdout  string // substring of stdout
		stderr  string // substring of stderr
		oneLine bool   // stderr is one line
	}{
		{"errors fail by default", []string{"--snapshot", checkFixture}, exitPartial, "[KRAFT-AUTHORIZER]", "", false},
		{"fail-on none", []string{"--snapshot", checkFixture, "--fail-on", "none"}, exitOK, "7 errors, 18 warnings, 2 info", "", false},
		{"markdown", []string{"--snapshot", checkFixture, "-o", "markdown"}, exitPartial, "## Pre-upgrade audit", "", false},
		{"target 4.0", []string{"--snapshot", checkFixture, "--target-version", "4.0", "--fail-on", "none"}, exitOK, "valid on 4.0 but refused from 4.1", "", false},
		{"policy", []string{"--snapshot", checkFixture, "--policy", "../../internal/check/testdata/policy.yaml", "-o", "json"}, exitPartial, `"rule rf-at-least-3: topics need at least 3 replicas"`, "", false},
		{"bad target", []string{"--snapshot", checkFixture, "--target-version", "3.9"}, exitError, "", "migrate check: --target-version \"3.9\"", true},
		{"bad output", []string{"--snapshot", checkFixture, "-o", "xml"}, exitError, "", "-o \"xml\"", true},
		{"bad fail-on", []string{"--snapshot", checkFixture, "--fail-on", "fatal"}, exitError, "", "--fail-on \"fatal\"", true},
		{"missing snapshot", []string{"--snapshot", "no-such.json"}, exitError, "", "no-such.json", true},
		{"catalogue", []string{"--catalogue"}, exitOK, "KRAFT-PASSWORD-NO-SECRET  [error]", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := runCLI(t, append([]string{"check", "--no-audit"}, tc.args...)...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tc.code, out, errs)
			}
			if !strings.Contains(out, tc.stdout) {
				t.Errorf("stdout does not contain %q:\n%s", tc.stdout, out)
			}
			if !strings.Contains(errs, tc.stderr) {
				t.Errorf("stderr does not contain %q:\n%s", tc.stderr, errs)
			}
			if tc.oneLine && strings.Count(strings.TrimSpace(errs), "\n") != 0 {
				t.Errorf("stderr is not one line:\n%s", errs)
			}
		})
	}
}

func TestCheckFailOnWarning(t *testing.T) {
	// A snapshot with only warnings and info: passes by default, fails with --fail-on warning.
	dir := t.TempDir()
	path := dir + "/warn.json"
	data := `{"format":1,"source":"zookeeper","pending_deletes":["doomed"],"static_configs":[{"file":"s.properties","configs":[]}]}`
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := runCLI(t, "check", "--no-audit", "--snapshot", path); code != exitOK {
		t.Fatalf("default fail-on: exit %d\n%s%s", code, out, errs)
	}
	if code, _, _ := runCLI(t, "check", "--no-audit", "--snapshot", path, "--fail-on", "warning"); code != exitPartial {
		t.Fatalf("--fail-on warning: exit %d, want %d", code, exitPartial)
	}
}

func TestCheckJSON(t *testing.T) {
	code, out, _ := runCLI(t, "check", "--no-audit", "--snapshot", checkFixture, "-o", "json")
	if code != exitPartial {
		t.Fatalf("exit %d", code)
	}
	var r struct {
		Target   string `json:"target_version"`
		Counts   map[string]int
		Findings []struct{ ID, Severity, Resource, Message, Why, Fix string }
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if r.Target != "4.1" || r.Counts["error"] != 7 || len(r.Findings) != 27 {
		t.Fatalf("target %s counts %v findings %d", r.Target, r.Counts, len(r.Findings))
	}
	if r.Findings[0].Severity != "error" || r.Findings[len(r.Findings)-1].Severity != "info" {
		t.Errorf("findings not ordered by severity")
	}
}

func TestCheckCatalogueMatchesDocs(t *testing.T) {
	code, out, _ := runCLI(t, "check", "--catalogue", "-o", "markdown")
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	docs, err := os.ReadFile("../../docs/checks.md")
	if err != nil {
		t.Fatal(err)
	}
	if out != string(docs) {
		t.Fatal("migrate check --catalogue -o markdown differs from docs/checks.md (go run ./tools/checksdoc)")
	}
}

// check --scram-credentials: users whose passwords are given are not lost.
func TestCheckScramCredentials(t *testing.T) {
	dir := t.TempDir()
	creds := filepath.Join(dir, "creds.json")
	if err := os.WriteFile(creds, []byte(`[{"user":"alice","mechanism":"SCRAM-SHA-256","password":"alice-pw"}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	_, without, _ := runCLI(t, "check", "--no-audit", "--snapshot", checkFixture, "--fail-on", "none")
	code, with, errs := runCLI(t, "check", "--no-audit", "--snapshot", checkFixture, "--fail-on", "none", "--scram-credentials", creds)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(without, "scram-user:User:alice: SCRAM-SHA-256") || strings.Contains(with, "scram-user:User:alice:") {
		t.Errorf("alice is reported as lost with her password given:\n%s", with)
	}
	if !strings.Contains(with, "scram-user:User:bob: SCRAM-SHA-512") {
		t.Errorf("bob (no password given) is no longer reported:\n%s", with)
	}
	if strings.Contains(with, "alice-pw") {
		t.Error("the report contains the password")
	}
	bad := filepath.Join(dir, "bad.json")
	_ = os.WriteFile(bad, []byte(`{`), 0o600)
	code, _, errs = runCLI(t, "check", "--no-audit", "--snapshot", checkFixture, "--scram-credentials", bad)
	if code != exitError || !strings.Contains(errs, "bad.json") || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
		t.Errorf("bad credentials file: exit %d, stderr %q; want 1 and one line naming the file", code, errs)
	}
}
