package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/testkit/zkgen"
	"github.com/zkmigrate/zkmigrate/internal/zktree"
)

func TestRunErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no target", []string{"--topics", "1"}, "give exactly one of --zookeeper and --out"},
		{"both targets", []string{"--zookeeper", "h:1", "--out", "x"}, "give exactly one of --zookeeper and --out"},
		{"bad size", []string{"--out", "x", "--brokers", "0"}, "--brokers must be at least 1"},
		{"stray argument", []string{"--out", "x", "extra"}, `unexpected argument "extra"`},
		{"missing secret file", []string{"--out", "x", "--password-encoder-secret-file", "/nonexistent/secret"}, "/nonexistent/secret"},
		{"unknown flag", []string{"--nope"}, "flag provided but not defined: -nope"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := run(context.Background(), tc.args, &out, &errb); code != 1 {
				t.Errorf("exit %d, want 1", code)
			}
			if !strings.Contains(errb.String(), tc.want) {
				t.Errorf("stderr %q does not contain %q", errb.String(), tc.want)
			}
		})
	}
}

func TestRunToFile(t *testing.T) {
	dir := t.TempDir()
	tree, sumFile := filepath.Join(dir, "tree.json"), filepath.Join(dir, "summary.json")
	args := []string{"--out", tree, "--summary-json", sumFile, "--quiet", "--topics", "30", "--partitions-per-topic", "2",
		"--acls", "40", "--quota-entities", "12", "--scram-users", "5", "--brokers", "3", "--seed", "9"}
	var out, errb bytes.Buffer
	if code := run(context.Background(), args, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	tr, err := zktree.Load(tree)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(sumFile)
	if err != nil {
		t.Fatal(err)
	}
	var sum zkgen.Summary
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Topics != 30 || sum.ACLEntries != 40 || sum.Quotas.Total() != 12 || sum.ScramUsers != 5 || sum.Znodes != len(tr.Nodes) {
		t.Errorf("summary %+v for %d znodes", sum, len(tr.Nodes))
	}
	if !strings.Contains(out.String(), "topics            30") {
		t.Errorf("stdout:\n%s", out.String())
	}
	if strings.Contains(out.String()+string(b), "stored_key") || strings.Contains(out.String()+string(b), "encryptedPassword") {
		t.Error("secrets in the summary output")
	}
}
