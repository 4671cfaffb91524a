package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/render"
)

// --resend-secrets sends SCRAM credentials and sensitive broker configs the
// target already holds. Kafka never returns them, so the target looks the
// same before and after: verify must count them as shown at once, not wait
// out --verify-timeout and exit 3 (seen on the real 4.1 target: "after 1m0s
// the target still does not show 7 applied changes: broker-config:1,
// scram-user:...").
func TestApplyResendSecretsVerifies(t *testing.T) {
	dir := t.TempDir()
	snap, creds := fixtureFiles(t, dir)
	addr, _ := kfakeTarget(t)
	if code, _, errs := runMigrate(t, "apply", "--yes", "--no-audit", "--snapshot", snap, "--scram-credentials", creds,
		"--bootstrap-server", addr, "--placement", "target", "--verify-timeout", "0"); code != exitOK {
		t.Fatalf("first apply: exit %d\n%s", code, errs)
	}
	// The wait must end by itself: --verify-timeout is far beyond the
	// test's own bound.
	bound := time.Minute
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	code, out, errs := runMigrateCtx(ctx, "apply", "--yes", "--no-audit", "-o", "json", "--snapshot", snap, "--scram-credentials", creds,
		"--bootstrap-server", addr, "--placement", "target", "--resend-secrets", "--include", "scram-user,broker-config", "--verify-timeout", "1h")
	if ctx.Err() != nil {
		t.Fatalf("apply --resend-secrets did not end within %s: verify waits for secrets the target never shows\n%s", bound, errs)
	}
	var res render.ApplyJSON
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v\n%s%s", err, out, errs)
	}
	kinds := map[string]int{}
	for _, r := range res.Results {
		if r.Status == "succeeded" {
			kinds[r.Kind]++
		}
	}
	if kinds["scram-user"] == 0 {
		t.Fatalf("want resent SCRAM users, got %v\n%s", kinds, out)
	}
	if code != exitOK || len(res.Summary.Unverified) != 0 || !strings.Contains(errs, "Verified") {
		t.Errorf("exit %d, unverified %v; want 0 and verified\n%s", code, res.Summary.Unverified, errs)
	}
}
