package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/zkmigrate/zkmigrate/internal/jsonfile"
)

// A target that returns password-type values in clear (kfake does; so may
// a misconfigured or older broker) never has them reach any output or
// file: seeded values are searched for in every byte of stdout and stderr
// of plan (text, JSON, --out) and apply, in the plan file, in the audit
// database with its WAL, and in every plan recorded there, decompressed.
func TestTargetClearSecretsNeverLeak(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	snap, creds := fixtureFiles(t, dir)
	addr, adm := kfakeTarget(t)
	if _, err := adm.CreateTopic(ctx, 3, 1, nil, "orders"); err != nil {
		t.Fatal(err)
	}
	seeds := map[string]string{
		"ssl.key.password": "seeded-topic-pw-5Yq",
		"listener.name.sasl_plaintext.ssl.truststore.password":        "seeded-broker-pw-7Hd",
		"listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config": `ScramLoginModule required username="x" password="seeded-jaas-pw-2Kc";`,
	}
	var set []kadm.AlterConfig
	for k, v := range seeds {
		set = append(set, kadm.AlterConfig{Op: kadm.SetConfig, Name: k, Value: &v})
	}
	if rs, err := adm.AlterTopicConfigs(ctx, set, "orders"); err != nil || rs[0].Err != nil {
		t.Fatalf("seed topic configs: %v %v", err, rs)
	}
	if rs, err := adm.AlterBrokerConfigs(ctx, set, 0); err != nil || rs[0].Err != nil {
		t.Fatalf("seed broker configs: %v %v", err, rs)
	}
	db := filepath.Join(dir, "audit.db")
	planFile := filepath.Join(dir, "plan.json")
	common := []string{"--snapshot", snap, "--bootstrap-server", addr, "--scram-credentials", creds, "--prune", "--audit-db", db}
	var streams []string
	for _, args := range [][]string{
		{"plan"},
		{"plan", "-o", "json", "--out", planFile},
		{"apply", "--yes", "--verify-timeout", "0"},
	} {
		code, out, errs := runMigrate(t, append(args, common...)...)
		if code == exitError {
			t.Fatalf("%v: exit %d\n%s", args, code, errs)
		}
		streams = append(streams, out, errs)
	}
	if !strings.Contains(streams[0], "orders") {
		t.Fatalf("the plan does not touch topic orders; the test proves nothing:\n%s", streams[0])
	}
	// Every byte of the plan file and of the audit database with its WAL,
	// and every recorded plan decompressed (a compressed blob would hide a
	// secret from a byte search).
	where := []string{planFile, planFile + " (decompressed)"}
	b, err := os.ReadFile(planFile)
	if err != nil {
		t.Fatal(err)
	}
	text, err := jsonfile.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	plain, err := io.ReadAll(text)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(plain, []byte(`"orders"`)) {
		t.Fatalf("the plan file does not mention topic orders: the search in it proves nothing:\n%.300s", plain)
	}
	streams = append(streams, string(b), string(plain))
	files, plans := auditDBContents(t, db)
	for f, b := range files {
		where = append(where, f)
		streams = append(streams, string(b))
	}
	for i, pj := range plans {
		if !bytes.Contains(pj, []byte(`"orders"`)) {
			t.Errorf("recorded plan %d does not mention topic orders: the search in it proves nothing:\n%.300s", i, pj)
		}
		where = append(where, fmt.Sprintf("%s: recorded plan %d (decompressed)", db, i))
		streams = append(streams, string(pj))
	}
	for _, needle := range seeds {
		for i, s := range streams {
			if strings.Contains(s, needle) {
				w := "a command's output"
				if i >= 6 {
					w = where[i-6]
				}
				t.Errorf("%s holds the seeded secret %q", w, needle)
			}
		}
	}
}
