package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/audit"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/planfile"
)

// newKey makes a key pair with migrate audit keygen in dir and returns the
// private key's path (the public key is path + ".pub") and its id.
func newKey(t *testing.T, dir, name string) (string, string) {
	t.Helper()
	path := filepath.Join(dir, name)
	if code, out, errs := runMigrate(t, "audit", "keygen", "--out", path); code != exitOK {
		t.Fatalf("keygen: exit %d\n%s%s", code, out, errs)
	}
	k, err := audit.LoadKey(path + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	return path, k.ID()
}

// signedPlanBed is a kfake target with a topic the fixture source lacks
// (what --prune would delete), the fixture's files, and a plan of it
// saved unsigned, signed, and made with --prune (for its delete change).
type signedPlanBed struct {
	dir, snap, creds, addr string
	key, keyID             string // the signing key and its id
	otherKey, otherID      string
	signed, unsigned       string
	pruned                 *plan.Plan
}

func newSignedPlanBed(t *testing.T) *signedPlanBed {
	t.Helper()
	b := &signedPlanBed{dir: t.TempDir()}
	b.snap, b.creds = fixtureFiles(t, b.dir)
	addr, adm := kfakeTarget(t)
	_, err := adm.CreateTopic(context.Background(), 1, 1, nil, "target-only")
	must(t, err)
	b.addr = addr
	b.key, b.keyID = newKey(t, b.dir, "plan.key")
	b.otherKey, b.otherID = newKey(t, b.dir, "other.key")
	b.signed, b.unsigned = filepath.Join(b.dir, "signed.json"), filepath.Join(b.dir, "unsigned.json")
	base := []string{"plan", "--snapshot", b.snap, "--bootstrap-server", b.addr, "--scram-credentials", b.creds, "--placement", "target", "--no-access-proof"}
	// Signed through the audit trail's shared encoding (--audit-db), and
	// unsigned without an audit trail.
	if code, _, errs := runMigrate(t, append(base, "--audit-db", filepath.Join(b.dir, "audit.db"), "--out", b.signed, "--sign-key", b.key)...); code != exitPending {
		t.Fatalf("plan --sign-key: exit %d\n%s", code, errs)
	}
	if code, _, errs := runMigrate(t, append(base, "--no-audit", "--out", b.unsigned)...); code != exitPending {
		t.Fatalf("plan: exit %d\n%s", code, errs)
	}
	pruned := filepath.Join(b.dir, "pruned.json")
	if code, _, errs := runMigrate(t, append(base, "--no-audit", "--prune", "--out", pruned)...); code != exitPending {
		t.Fatalf("plan --prune: exit %d\n%s", code, errs)
	}
	b.pruned, err = planfile.Read(pruned)
	must(t, err)
	return b
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// pruneDelete is the --prune plan's delete of the target-only topic.
func (b *signedPlanBed) pruneDelete(t *testing.T) plan.Change {
	t.Helper()
	return *findChange(t, b.pruned, "topic:target-only")
}

// reseal writes the signed plan with edit applied and its digest made
// again as planfile.Write seals (which writes no signature); keepSig then
// appends the original signature member, as an editor who kept it would.
func (b *signedPlanBed) reseal(t *testing.T, path string, keepSig bool, edit func(p *plan.Plan)) {
	t.Helper()
	p, err := planfile.Read(b.signed)
	must(t, err)
	sig := p.Signature
	edit(p)
	must(t, planfile.Write(path, p))
	if keepSig {
		plain := readPlainFile(t, path)
		s, _ := json.Marshal(sig)
		plain = append(plain[:len(plain)-2], []byte(`,"signature":`+string(s)+"}\n")...)
		must(t, os.WriteFile(path, plain, 0o600))
	}
}

// readPlainFile returns a plan file's JSON text as planfile writes it
// (the text it compresses).
func readPlainFile(t *testing.T, path string) []byte {
	t.Helper()
	p, err := planfile.Read(path)
	must(t, err)
	var sb strings.Builder
	_, err = planfile.Encode(p, &sb)
	must(t, err)
	return []byte(sb.String())
}

// plan --out --sign-key signs the file; apply --plan --verify-key applies
// it only as signed: an unsigned plan, another key's, and a plan edited and
// resealed (options.prune set and a delete added; a signature kept or
// not) are each refused, exit 1, naming the key id, before the source is
// read or the target dialled (the source here is not a snapshot and the
// target's address refuses connections: either, read, would fail
// otherwise).
func TestSignedPlan(t *testing.T) {
	b := newSignedPlanBed(t)
	p, err := planfile.Read(b.signed)
	must(t, err)
	if p.Signature == nil || p.Signature.KeyID != b.keyID {
		t.Fatalf("plan --sign-key wrote signature %+v, want key %s", p.Signature, b.keyID)
	}
	garbage := filepath.Join(b.dir, "not-a-snapshot.json")
	must(t, os.WriteFile(garbage, []byte("not a snapshot"), 0o600))
	before := readTargetDigest(t, b.addr)

	edited := func(keepSig bool, edit func(p *plan.Plan)) func(t *testing.T) string {
		return func(t *testing.T) string {
			path := filepath.Join(t.TempDir(), "edited.json")
			b.reseal(t, path, keepSig, edit)
			return path
		}
	}
	file := func(path string) func(t *testing.T) string { return func(*testing.T) string { return path } }
	prune := func(p *plan.Plan) {
		p.Options.Prune = true
		p.Changes = append(p.Changes, b.pruneDelete(t))
	}
	for _, c := range []struct {
		name string
		file func(t *testing.T) string
		key  string
		want []string
	}{
		{"unsigned", file(b.unsigned), b.key + ".pub", []string{"unsigned", "holds no signature", "key " + b.keyID}},
		{"signed by another key", file(b.signed), b.otherKey + ".pub", []string{"signed by key " + b.keyID + ", not by key " + b.otherID}},
		{"options.prune set and a delete added, resealed", edited(false, prune), b.key + ".pub", []string{"unsigned", "key " + b.keyID}},
		{"options.prune set and a delete added, resealed, the signature kept", edited(true, prune), b.key + ".pub",
			[]string{"bad signature", "the signature by key " + b.keyID + " does not verify"}},
		{"a change's partitions edited, the signature kept", edited(true, func(p *plan.Plan) { findChange(t, p, "topic:orders").After.Partitions = 30 }), b.key + ".pub",
			[]string{"bad signature", "key " + b.keyID}},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := c.file(t)
			code, out, errs := runMigrate(t, "apply", "--plan", path, "--verify-key", c.key, "--snapshot", garbage, "--bootstrap-server", "127.0.0.1:1",
				"--scram-credentials", b.creds, "--yes", "--no-audit")
			if code != exitError {
				t.Fatalf("exit %d, want %d\n%s\n%s", code, exitError, out, errs)
			}
			for _, w := range append(c.want, path+": ") {
				if !strings.Contains(errs, w) {
					t.Errorf("stderr lacks %q:\n%s", w, errs)
				}
			}
			if strings.Count(strings.TrimSpace(errs), "\n") != 0 {
				t.Errorf("want one line:\n%s", errs)
			}
		})
	}
	if readTargetDigest(t, b.addr) != before {
		t.Fatal("the target changed")
	}
	// Usage: --verify-key without --plan, --sign-key without --out, a
	// public key to sign with.
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"apply", "--verify-key", b.key + ".pub", "--snapshot", b.snap, "--bootstrap-server", b.addr, "--no-audit"}, "--verify-key checks the signature of a saved plan: give --plan FILE"},
		{[]string{"plan", "--sign-key", b.key, "--snapshot", b.snap, "--bootstrap-server", b.addr, "--no-audit"}, "--sign-key signs the plan file --out saves"},
		{[]string{"plan", "--sign-key", b.key + ".pub", "--out", filepath.Join(b.dir, "x.json"), "--snapshot", b.snap, "--bootstrap-server", b.addr, "--no-audit"},
			"--sign-key " + b.key + ".pub: a public key (key " + b.keyID + ") cannot sign"},
		{[]string{"apply", "--plan", b.signed, "--verify-key", filepath.Join(b.dir, "missing.pub"), "--snapshot", b.snap, "--bootstrap-server", b.addr, "--no-audit", "--yes"}, "--verify-key: "},
	} {
		code, _, errs := runMigrate(t, c.args...)
		if code != exitError || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, want 1 with %q:\n%s", c.args, code, c.want, errs)
		}
	}
	// The signed plan, verified, applies.
	code, out, errs := runMigrate(t, "apply", "--plan", b.signed, "--verify-key", b.key+".pub", "--snapshot", b.snap, "--bootstrap-server", b.addr,
		"--scram-credentials", b.creds, "--yes", "--no-audit", "--verify-timeout", "0")
	if code != exitOK {
		t.Fatalf("the signed plan: exit %d\n%s\n%s", code, out, errs)
	}
	if readTargetDigest(t, b.addr) == before {
		t.Fatal("the signed plan changed nothing")
	}
}
