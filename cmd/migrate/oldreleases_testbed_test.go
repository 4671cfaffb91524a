package main

import (
	"crypto/hmac"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/cliflags"
	"github.com/zkmigrate/zkmigrate/internal/kraftseed"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/props"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/testkit/testbed"
)

// oldWant is what an old release's legacy state holds and lacks
// (testbed.sh old_state_script writes it with the release's own tools).
type oldWant struct {
	acls       int  // ACL bindings written (the prefixed ones among them from 2.0)
	topicIDs   bool // 2.8 assigns topic ids; older releases never do
	tokens     bool // delegation tokens: 1.1+
	passwords  bool // a dynamic broker password (encrypted with password.encoder.secret): 1.1+
	authorizer string
}

var oldWants = map[string]oldWant{
	"kafka011": {acls: 21, authorizer: "kafka.security.auth.SimpleAclAuthorizer"},
	"kafka11":  {acls: 22, tokens: true, passwords: true, authorizer: "kafka.security.auth.SimpleAclAuthorizer"},
	"kafka24":  {acls: 30, tokens: true, passwords: true, authorizer: "kafka.security.authorizer.AclAuthorizer"},
	"kafka28":  {acls: 30, topicIDs: true, tokens: true, passwords: true, authorizer: "kafka.security.authorizer.AclAuthorizer"},
}

// TestOldReleasesRealKafka41 migrates the legacy state that Kafka 0.11,
// 1.1, 2.4 and 2.8 each wrote with their own tools (testbed.sh old: each in
// its chroot of the test ZooKeeper, brokers stopped afterwards) straight
// onto the Kafka 4.1 target, reset to empty for each release: snapshot,
// check (what the release lacks named: topics without ids before 2.8, its
// authorizer class, keys Kafka 4 removed), plan, apply with the recorded
// SCRAM passwords, a second plan of every kind empty, every migrated item
// on the target with the source's replica lists and preferred leaders, and
// the SCRAM users logging in with their original passwords; access diff
// proves that the target decides every request as the release's authorizer
// did, but for the one difference the test bed makes on purpose. Then
// bootstrap seeds a fresh 4.1 controller from the same chroot: after its
// first start every user, carol included (whose password the tool never
// had), logs in with their original password, the release's delegation
// token (1.1+) authenticates, and --topic-ids creates payments with the
// source's id (2.8) or names it as having none (older). No secret reaches
// any output.
func TestOldReleasesRealKafka41(t *testing.T) {
	for _, name := range testbed.OldReleases {
		t.Run(name, func(t *testing.T) { oldReleaseEndToEnd(t, testbed.Old(t, name), oldWants[name]) })
	}
}

func oldReleaseEndToEnd(t *testing.T, o testbed.OldSource, want oldWant) {
	dir := t.TempDir()
	b := &bed{target: testbed.TargetBootstrap(t), targetProps: testbed.TargetClientProps(t), dir: dir, auditDB: filepath.Join(dir, "audit.db")}
	testbed.ResetTarget(t)
	src := o.SourceArgs()
	common := append(append(slices.Clone(src), b.targetArgs()...), "--scram-credentials", o.Credentials)

	// 1. The whole snapshot.
	code, out, errs := b.migrate(t, append([]string{"snapshot", "--full", "-o", "json"}, src...)...)
	if code != exitOK {
		t.Fatalf("snapshot: exit %d\n%s", code, errs)
	}
	snap, err := snapshot.Decode(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	tokens := map[bool]int{true: 1}[want.tokens]
	if len(snap.Topics) != 9 || len(snap.ACLs) != want.acls || len(snap.ScramUsers) != 6 || len(snap.DelegationTokens) != tokens {
		t.Fatalf("snapshot: %d topics, %d ACLs, %d SCRAM users, %d tokens; want 9, %d, 6, %d",
			len(snap.Topics), len(snap.ACLs), len(snap.ScramUsers), len(snap.DelegationTokens), want.acls, tokens)
	}
	for _, tp := range snap.Topics {
		if (tp.ID != "") != want.topicIDs {
			t.Errorf("topic %s: id %q, want one: %v", tp.Name, tp.ID, want.topicIDs)
		}
	}

	// 2. check names what the release lacks and what Kafka 4 refuses.
	code, out, errs = b.migrate(t, append([]string{"check", "-o", "json", "--audit-db", b.auditDB}, src...)...)
	var report struct{ Findings []snapshot.Finding }
	if err := json.Unmarshal([]byte(out), &report); code != exitPartial || err != nil {
		t.Fatalf("check: exit %d, %v (want 3: errors found)\n%s", code, err, errs)
	}
	found := func(id, resource string) bool {
		return slices.ContainsFunc(report.Findings, func(f snapshot.Finding) bool { return f.ID == id && strings.Contains(f.Resource, resource) })
	}
	if found("KRAFT-TOPIC-NO-ID", "topic:orders") == want.topicIDs || found("topic-id-changes", "topics") != want.topicIDs {
		t.Errorf("check: KRAFT-TOPIC-NO-ID for orders %v, topic-id-changes %v; the release assigns topic ids: %v",
			found("KRAFT-TOPIC-NO-ID", "topic:orders"), found("topic-id-changes", "topics"), want.topicIDs)
	}
	for _, f := range [][2]string{{"KRAFT-AUTHORIZER", "server.properties"}, {"K4-TOPIC-CONFIG-REMOVED", "topic:legacy-format"},
		{"K4-TOPIC-SEGMENT-BYTES", "topic:tiny-segments"}, {"CARRY-SCRAM", "scram-user:User:carol"}} {
		if !found(f[0], f[1]) {
			t.Errorf("check: no %s on %s", f[0], f[1])
		}
	}
	if found("delegation-token", "delegation-token:") != want.tokens {
		t.Errorf("check: delegation-token %v, want %v", !want.tokens, want.tokens)
	}

	// 3. plan, apply, and a second plan of every kind with nothing to do.
	code, out, errs = b.migrate(t, append([]string{"plan", "-o", "json"}, common...)...)
	p := decodePlan(t, out)
	if code != exitPending || len(p.Changes) == 0 {
		t.Fatalf("plan: exit %d, %d changes; want 2 and changes\n%s", code, len(p.Changes), errs)
	}
	for _, bl := range [][2]string{{"config-invalid-on-target", "tiny-segments"}, {"scram-no-password", "carol"}} {
		if !slices.ContainsFunc(p.Blockers, func(x plan.Blocker) bool { return x.ID == bl[0] && strings.Contains(x.Resource, bl[1]) }) {
			t.Errorf("plan: no blocker %s on %s: %+v", bl[0], bl[1], p.Blockers)
		}
	}
	if code, _, errs = b.migrate(t, append([]string{"apply", "--yes"}, common...)...); code != exitOK {
		t.Fatalf("apply: exit %d\n%s", code, errs)
	}
	code, out, errs = b.migrate(t, append([]string{"plan", "-o", "json", "--include", cliflags.KindList(), "--reassign"}, common...)...)
	if again := decodePlan(t, out); code != exitOK || len(again.Changes) != 0 {
		var ids []string
		for _, c := range again.Changes {
			ids = append(ids, c.ID)
		}
		t.Fatalf("second plan: exit %d with changes %v, want 0 and nothing to do\n%s", code, ids, errs)
	}
	compareMigrated(t, snap, b.readTarget(t))
	preferredLeaders(t, b.admin(t), snap)
	accessProof(t, b, o)

	// 4. Through --scram-credentials, each user logs in with the password
	// the release's tools set.
	var creds []demoCred
	data, err := os.ReadFile(o.Credentials)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &creds); err != nil || len(creds) == 0 {
		t.Fatalf("%s: %v", o.Credentials, err)
	}
	for _, c := range creds {
		loginAs(t, b.target, c.User, c.Mechanism, c.Password, true)
	}
	loginAs(t, b.target, "alice", "SCRAM-SHA-512", "wrong-password", false)

	// 5. bootstrap: a fresh controller seeded from the same chroot.
	fresh := testbed.FormatFresh(t)
	args := []string{"bootstrap", "--zookeeper", o.ZK, "--metadata-dir", fresh.MetadataDir, "--topic-ids", "--topics", "^payments$", "-o", "json", "--no-audit"}
	if want.tokens {
		args = append(args, "--delegation-tokens")
	}
	code, out, errs = b.migrate(t, args...)
	var seeded kraftseed.Result
	if err := json.Unmarshal([]byte(out), &seeded); code != exitOK || err != nil {
		t.Fatalf("bootstrap: exit %d, %v\n%s%s", code, err, out, errs)
	}
	// A release without topic ids: payments is named, not given an id.
	if got := slices.Equal(seeded.NoTopicID, []string{"payments"}); got == want.topicIDs {
		t.Errorf("bootstrap --topic-ids: topics without id %v; the release assigns ids: %v", seeded.NoTopicID, want.topicIDs)
	}
	testbed.StartFresh(t)
	for _, c := range append(creds, demoCred{User: "carol", Mechanism: "SCRAM-SHA-256", Password: "carol-unrecorded-secret"}) {
		if err := login(fresh.Bootstrap, c.User, c.Password, c.Mechanism); err != nil {
			t.Errorf("%s %s with its original password on the bootstrapped target: %v", c.User, c.Mechanism, err)
		}
	}
	if err := login(fresh.Bootstrap, "bob", "bob-secret-wrong", "SCRAM-SHA-256"); err == nil {
		t.Error("a wrong password was accepted on the bootstrapped target")
	}
	if want.topicIDs {
		if err := checkSeededTopic(fresh.Bootstrap, "payments", snap.Topic("payments").ID, 3); err != nil {
			t.Errorf("payments on the bootstrapped target: %v", err)
		}
	}
	if want.tokens {
		if seeded.Tokens != 1 {
			t.Fatalf("bootstrap seeded %d tokens, want the release's one", seeded.Tokens)
		}
		// The HMAC as Kafka derives it, from the brokers' delegation.token.master.key.
		sp, err := props.Load(o.ServerProps)
		if err != nil {
			t.Fatal(err)
		}
		mac := hmac.New(sha512.New, []byte(sp.Map()["delegation.token.master.key"]))
		mac.Write([]byte(snap.DelegationTokens[0].TokenID))
		if err := tokenLogin(fresh.Bootstrap, snap.DelegationTokens[0].TokenID, base64.StdEncoding.EncodeToString(mac.Sum(nil))); err != nil {
			t.Errorf("the release's delegation token on the bootstrapped target: %v", err)
		}
	}

	// 6. No secret in any output.
	secrets := []string{"carol-unrecorded-secret"}
	for _, c := range creds {
		secrets = append(secrets, c.Password)
	}
	if want.passwords {
		secrets = append(secrets, "kp-secret-1", strings.TrimSpace(readFile(t, o.EncoderSecret)))
	}
	for i, out := range b.outputs {
		for _, s := range secrets {
			if strings.Contains(out, s) {
				t.Errorf("output %d contains the secret %q", i, s)
			}
		}
	}
	if want.authorizer != "" && !strings.Contains(strings.Join(b.outputs, "\n"), want.authorizer) {
		t.Errorf("no output names the release's authorizer %s", want.authorizer)
	}
}

// accessProof runs migrate access diff between the release's ZooKeeper
// (its ACLs, and super.users and allow.everyone.if.no.acl.found from its
// server.properties) and the migrated target (its ACLs, and its nodes'
// properties): the only cause is that the test bed's target makes
// User:ANONYMOUS (its PLAINTEXT controller listener) a super user, which
// the source does not; with that cause accepted, the target is equivalent.
func accessProof(t *testing.T, b *bed, o testbed.OldSource) {
	t.Helper()
	dir := testbed.Dir(t)
	args := append([]string{"access", "diff", "-o", "json", "--target-config", filepath.Join(dir, "conf", "target.properties"),
		"--target-config", filepath.Join(dir, "conf", "target1.properties")}, append(o.SourceArgs(), b.targetArgs()...)...)
	var proof struct {
		Verdict string
		Classes int
		Groups  []struct {
			ID, Kind   string
			Principals []string
		}
	}
	code, out, errs := b.migrate(t, args...)
	if err := json.Unmarshal([]byte(out), &proof); err != nil || code != exitPartial || proof.Verdict != "differences" || len(proof.Groups) != 1 ||
		proof.Groups[0].Kind != "super-user" || !slices.Equal(proof.Groups[0].Principals, []string{"User:ANONYMOUS"}) {
		t.Fatalf("access diff: exit %d, %v, %+v; want the test bed's User:ANONYMOUS super user as the one cause\n%s%s", code, err, proof, out, errs)
	}
	code, out, errs = b.migrate(t, append(args, "--accept", proof.Groups[0].ID)...)
	if err := json.Unmarshal([]byte(out), &proof); err != nil || code != exitOK || proof.Verdict != "equivalent" || proof.Classes == 0 {
		t.Errorf("access diff --accept %s: exit %d, %v, verdict %q over %d request classes; want equivalent\n%s", proof.Groups[0].ID, code, err, proof.Verdict, proof.Classes, errs)
	}
}
