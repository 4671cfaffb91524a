package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
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
	// The signed plan, verified, applies; the verification is said and
	// recorded.
	db := filepath.Join(b.dir, "apply-audit.db")
	code, out, errs := runMigrate(t, "apply", "--plan", b.signed, "--verify-key", b.key+".pub", "--snapshot", b.snap, "--bootstrap-server", b.addr,
		"--scram-credentials", b.creds, "--yes", "--audit-db", db, "--verify-timeout", "0")
	if code != exitOK || !strings.Contains(errs, b.signed+" is signed by key "+b.keyID+": verified.") {
		t.Fatalf("the signed plan: exit %d\n%s\n%s", code, out, errs)
	}
	var noted bool
	for _, ev := range exportRun(t, db, 1).Events {
		noted = noted || ev.Kind == "plan-signature" && ev.Detail == b.signed+": signed by key "+b.keyID+", verified"
	}
	if !noted {
		t.Errorf("the apply records no plan-signature event: %+v", exportRun(t, db, 1).Events)
	}
	if readTargetDigest(t, b.addr) == before {
		t.Fatal("the signed plan changed nothing")
	}
}

// exportRun exports run id of the audit database at db.
func exportRun(t *testing.T, db string, id int64) *audit.RunExport {
	t.Helper()
	ctx := context.Background()
	store, err := audit.Open(ctx, db)
	must(t, err)
	defer store.Close()
	ex, err := store.Export(ctx, id)
	must(t, err)
	return ex
}

// Without keys, a plan edited to prune and resealed (options.prune set, a
// delete of the target-only topic added, the digest made again) still
// passes the digest and the justification, as the source does justify
// that delete under prune: apply shows and records the options that widen
// what it may do (prune with its count of deletes, placement "target",
// no policy), and refuses the delete unless its count is confirmed
// (--confirm-deletes N, with --yes, when not at a terminal); a wrong
// count is refused naming the plan's. Confirmed, it applies.
func TestSavedPlanWideningShownAndDeletesConfirmed(t *testing.T) {
	b := newSignedPlanBed(t)
	edited := filepath.Join(b.dir, "pruned-edit.json")
	b.reseal(t, edited, false, func(p *plan.Plan) {
		p.Options.Prune = true
		p.Changes = append(p.Changes, b.pruneDelete(t))
	})
	db := filepath.Join(b.dir, "apply-audit.db")
	apply := func(extra ...string) (int, string, string) {
		return runMigrate(t, append([]string{"apply", "--plan", edited, "--snapshot", b.snap, "--bootstrap-server", b.addr,
			"--scram-credentials", b.creds, "--audit-db", db, "--verify-timeout", "0", "--no-access-proof"}, extra...)...)
	}
	widened := []string{
		edited + " widens what apply may do:",
		"  options.prune: deletes what the target has and the source does not: 1 delete in this plan\n",
		`  options.placement: "target": the target places the replicas`,
		"  options.policy: absent: no topic policy checks the topic changes\n",
	}
	before := readTargetDigest(t, b.addr)
	for i, c := range []struct {
		name  string
		extra []string
		want  []string
	}{
		{"--yes alone", []string{"--yes"}, append(widened, "refusing to apply: the plan deletes 1 resource and this is not a terminal to confirm them at; pass --confirm-deletes 1 (with --yes)")},
		{"a wrong count", []string{"--yes", "--confirm-deletes", "2"}, append(widened, "--confirm-deletes 2: the plan deletes 1 resource, not 2; nothing applied")},
		{"the count without --yes", []string{"--confirm-deletes", "1"}, append(widened, "not a terminal; pass --yes")},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := apply(c.extra...)
			if code != exitError {
				t.Fatalf("exit %d, want %d\n%s\n%s", code, exitError, out, errs)
			}
			for _, w := range c.want {
				if !strings.Contains(errs, w) {
					t.Errorf("stderr lacks %q:\n%s", w, errs)
				}
			}
			if readTargetDigest(t, b.addr) != before {
				t.Fatal("the target changed")
			}
			// The audit trail records what the file widened.
			var noted bool
			for _, ev := range exportRun(t, db, int64(i+1)).Events {
				noted = noted || ev.Kind == "plan-options" && strings.Contains(ev.Detail, "options.prune: deletes what the target has and the source does not: 1 delete in this plan") &&
					strings.Contains(ev.Detail, "options.policy: absent")
			}
			if !noted {
				t.Errorf("run %d records no plan-options event naming prune and the policy: %+v", i+1, exportRun(t, db, int64(i+1)).Events)
			}
		})
	}
	code, out, errs := apply("--yes", "--confirm-deletes", "1")
	if code != exitOK {
		t.Fatalf("confirmed: exit %d\n%s\n%s", code, out, errs)
	}
	if s := readTargetDigest(t, b.addr); s == before {
		t.Fatal("the confirmed plan changed nothing")
	}
	var confirmed bool
	for _, ev := range exportRun(t, db, 4).Events {
		confirmed = confirmed || ev.Kind == "confirm-deletes" && ev.Detail == "1 delete confirmed by their count, given"
	}
	if !confirmed {
		t.Errorf("the confirmed run records no confirm-deletes event: %+v", exportRun(t, db, 4).Events)
	}
}

// At a terminal, a saved plan's deletes are confirmed by typing their
// count: another answer applies nothing (exit 0), the count applies
// without a second question. A dry run asks nothing.
func TestSavedPlanDeletesTypedAtTheTerminal(t *testing.T) {
	b := newSignedPlanBed(t)
	edited := filepath.Join(b.dir, "pruned-edit.json")
	b.reseal(t, edited, false, func(p *plan.Plan) {
		p.Options.Prune = true
		p.Changes = append(p.Changes, b.pruneDelete(t))
	})
	args := []string{"apply", "--plan", edited, "--snapshot", b.snap, "--bootstrap-server", b.addr,
		"--scram-credentials", b.creds, "--no-audit", "--verify-timeout", "0", "--no-access-proof"}
	before := readTargetDigest(t, b.addr)
	atTerminal := func(stdin string, extra ...string) (int, string) {
		var out, errb strings.Builder
		code := run(context.Background(), append(slices.Clone(args), extra...), strings.NewReader(stdin), &out, &errb, true)
		return code, errb.String()
	}
	for _, answer := range []string{"y\n", "2\n", "\n"} {
		code, errs := atTerminal(answer)
		if code != exitOK || !strings.Contains(errs, "The plan deletes 1 resource (the changes marked -). Type 1 to confirm: ") || !strings.Contains(errs, "Nothing applied.") {
			t.Errorf("answer %q: exit %d\n%s", answer, code, errs)
		}
		if readTargetDigest(t, b.addr) != before {
			t.Fatalf("answer %q changed the target", answer)
		}
	}
	if code, errs := atTerminal("", "--validate-only"); code != exitOK || strings.Contains(errs, "Type 1") {
		t.Errorf("--validate-only: exit %d\n%s", code, errs)
	}
	code, errs := atTerminal("1\n")
	if code != exitOK || strings.Contains(errs, "[y/N]") {
		t.Fatalf("the count typed: exit %d\n%s", code, errs)
	}
	if readTargetDigest(t, b.addr) == before {
		t.Fatal("the count typed applied nothing")
	}
}

// The operator's --policy at apply is evaluated whatever the file says: a
// plan made with a policy that denies payments, edited to drop
// options.policy and to create payments, and resealed, is refused under
// --verify-key (the signature) and, given the policy at apply, refused as
// blocked now; without either it is applied with the absence of a policy
// shown and recorded (what the digest cannot stop).
func TestOperatorPolicyAtApplyAlwaysEvaluated(t *testing.T) {
	b := newSignedPlanBed(t)
	pol := filepath.Join(b.dir, "policy.yaml")
	must(t, os.WriteFile(pol, []byte("version: 1\nrules:\n  - name: freeze-payments\n    topics: '^payments$'\n    expr: 'false'\n    message: payments is frozen\n"), 0o600))
	saved := filepath.Join(b.dir, "policy-plan.json")
	if code, _, errs := runMigrate(t, "plan", "--snapshot", b.snap, "--bootstrap-server", b.addr, "--scram-credentials", b.creds, "--placement", "target",
		"--policy", pol, "--no-audit", "--no-access-proof", "--out", saved, "--sign-key", b.key); code != exitPending {
		t.Fatalf("plan: exit %d\n%s", code, errs)
	}
	p, err := planfile.Read(saved)
	must(t, err)
	var denied plan.Change
	for _, bl := range p.Blockers {
		if bl.Change != nil && bl.Change.ID == "topic:payments" {
			denied = *bl.Change
		}
	}
	if denied.ID == "" || p.Options.Policy == "" {
		t.Fatalf("the policy did not block topic:payments (policy %q)", p.Options.Policy)
	}
	denied.Verdict = nil
	p.Options.Policy = ""
	p.Changes = append(p.Changes, denied)
	sig := p.Signature
	edited := filepath.Join(b.dir, "no-policy.json")
	must(t, planfile.Write(edited, p))
	// The signature kept, as an editor would.
	plain := readPlainFile(t, edited)
	s, _ := json.Marshal(sig)
	must(t, os.WriteFile(edited, append(plain[:len(plain)-2], []byte(`,"signature":`+string(s)+"}\n")...), 0o600))

	args := func(extra ...string) []string {
		return append([]string{"apply", "--plan", edited, "--snapshot", b.snap, "--bootstrap-server", b.addr, "--scram-credentials", b.creds,
			"--yes", "--no-audit", "--verify-timeout", "0", "--no-access-proof"}, extra...)
	}
	before := readTargetDigest(t, b.addr)
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"under --verify-key", args("--verify-key", b.key+".pub"), "the signature by key " + b.keyID + " does not verify"},
		{"with the operator's --policy", args("--policy", pol), `topic:payments: blocked now: policy rule "freeze-payments"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := runMigrate(t, c.args...)
			if code != exitError || !strings.Contains(errs, c.want) {
				t.Fatalf("exit %d, want 1 with %q:\n%s\n%s", code, c.want, out, errs)
			}
			if readTargetDigest(t, b.addr) != before {
				t.Fatal("the target changed")
			}
		})
	}
	code, out, errs := runMigrate(t, args()...)
	if code != exitOK || !strings.Contains(errs, "options.policy: absent: no topic policy checks the topic changes") {
		t.Fatalf("without keys or policy: exit %d, want 0 with the absent policy shown\n%s\n%s", code, out, errs)
	}
}
