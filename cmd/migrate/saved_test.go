package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/apply"
	"github.com/zkmigrate/zkmigrate/internal/jsonfile"
	"github.com/zkmigrate/zkmigrate/internal/kafkaconn"
	"github.com/zkmigrate/zkmigrate/internal/kread"
	"github.com/zkmigrate/zkmigrate/internal/migration"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/planfile"
	"github.com/zkmigrate/zkmigrate/internal/secret"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// readTargetDigest reads the kfake target back and digests what it holds.
func readTargetDigest(t *testing.T, addr string) string {
	t.Helper()
	conn, err := kafkaconn.Dial(context.Background(), strings.Split(addr, ","), kafkaconn.Default())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	s, err := kread.Read(context.Background(), conn, kread.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return snapshot.Digest(s)
}

func findChange(t *testing.T, p *plan.Plan, id string) *plan.Change {
	t.Helper()
	for i := range p.Changes {
		if p.Changes[i].ID == id {
			return &p.Changes[i]
		}
	}
	t.Fatalf("the saved plan has no change %s", id)
	return nil
}

// Each edit of a plan saved from a real plan (the fixture source, a kfake
// target) is refused by apply --plan, exit 1, naming the change (or the
// file and field), and leaves the target untouched. Edits are resealed with
// a valid digest, as an editor who knows the format would, unless the test
// is about the digest itself.
func TestApplyRefusesEditedPlans(t *testing.T) {
	dir := t.TempDir()
	snap, creds := fixtureFiles(t, dir)
	addr, _ := kfakeTarget(t)
	saved := filepath.Join(dir, "plan.json")
	if code, _, errs := runMigrate(t, "plan", "--snapshot", snap, "--bootstrap-server", addr, "--scram-credentials", creds, "--placement", "target", "--no-audit", "--out", saved); code != exitPending {
		t.Fatalf("plan: exit %d\n%s", code, errs)
	}
	other := fixtureSource(t)
	other.ClusterID = "another-source-cluster"
	otherSnap := filepath.Join(dir, "other-source.json")
	if err := snapshot.Save(otherSnap, other); err != nil {
		t.Fatal(err)
	}
	before := readTargetDigest(t, addr)

	reseal := func(edit func(p *plan.Plan)) func(t *testing.T, path string) {
		return func(t *testing.T, path string) {
			p, err := planfile.Read(saved)
			if err != nil {
				t.Fatal(err)
			}
			edit(p)
			if err := planfile.Write(path, p); err != nil {
				t.Fatal(err)
			}
		}
	}
	// plain writes the saved plan decompressed (as zstd -dc shows it), with
	// edit applied to the bytes.
	plain := func(edit func(b []byte) []byte) func(t *testing.T, path string) {
		return func(t *testing.T, path string) {
			f, err := os.Open(saved)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			r, err := jsonfile.NewReader(f)
			if err != nil {
				t.Fatal(err)
			}
			b, err := io.ReadAll(r)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, edit(b), 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	mallory := snapshot.ACL{ResourceType: "Cluster", ResourceName: "kafka-cluster", PatternType: "LITERAL", Principal: "User:mallory", Host: "*", Operation: "All", Permission: "Allow"}
	for _, c := range []struct {
		name   string
		write  func(t *testing.T, path string)
		source string // default: the snapshot the plan was made from
		want   []string
	}{
		{"partition count changed", reseal(func(p *plan.Plan) { findChange(t, p, "topic:orders").After.Partitions = 30 }), "",
			[]string{"topic:orders", "after-state"}},
		{"retention.ms=1", reseal(func(p *plan.Plan) {
			cs := findChange(t, p, "topic:orders").After.Configs
			i := slices.IndexFunc(cs, func(c snapshot.Config) bool { return c.Key == "retention.ms" })
			cs[i].Value = "1"
		}), "", []string{"topic:orders", `"retention.ms","value":"1"`}},
		{"ACL granting User:mallory All on Cluster added", reseal(func(p *plan.Plan) {
			res := plan.Resource{Type: "acl", Name: mallory.String(), ACL: &mallory}
			p.Changes = append(p.Changes, plan.Change{ID: plan.ChangeID(plan.KindACL, res), Kind: plan.KindACL, Action: plan.ActionCreate,
				Resource: res, After: &plan.State{Present: true}})
		}), "", []string{"acl:Allow User:mallory All on Cluster:LITERAL:kafka-cluster from *", "would not plan"}},
		{"SCRAM reference in a plain topic's config", reseal(func(p *plan.Plan) {
			c := findChange(t, p, "topic:payments")
			ref := secret.Ref("scram-credentials:alice/SCRAM-SHA-256")
			c.After.Configs = append(c.After.Configs, snapshot.Config{Key: "x", Sensitive: true, Secret: &ref})
		}), "", []string{"topic:payments", "config x refers to a SCRAM credential"}},
		{"target.cluster_id emptied", reseal(func(p *plan.Plan) { p.Target.ClusterID = "" }), "",
			[]string{"field target.cluster_id: empty"}},
		{"source.cluster_id emptied", reseal(func(p *plan.Plan) { p.Source.ClusterID = "" }), "",
			[]string{"field source.cluster_id: empty"}},
		{"applied with another source", plain(func(b []byte) []byte { return b }), otherSnap,
			[]string{"source cluster " + fixtureSource(t).ClusterID, "another-source-cluster"}},
		{"digest edited", plain(func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"digest":"sha256:`), []byte(`"digest":"sha256:1`), 1)
		}), "",
			[]string{"field digest: digest mismatch", "corrupted or was edited"}},
		{"a byte changed", plain(func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"partitions":3,`), []byte(`"partitions":4,`), 1)
		}), "",
			[]string{"field digest: digest mismatch"}},
		{"internal topic added", reseal(func(p *plan.Plan) {
			res := plan.Resource{Type: "topic", Name: "__consumer_offsets"}
			p.Changes = append(p.Changes, plan.Change{ID: plan.ChangeID(plan.KindTopic, res), Kind: plan.KindTopic, Action: plan.ActionCreate,
				Resource: res, After: &plan.State{Partitions: 50, ReplicationFactor: 1}})
		}), "", []string{"topic:__consumer_offsets", "Kafka-internal topic"}},
		{"format 1 (an older version's file)", reseal(func(p *plan.Plan) { p.Format = 1 }), "",
			[]string{"field format: 1 was written by an older zkmigrate"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "edited.json")
			c.write(t, path)
			src := snap
			if c.source != "" {
				src = c.source
			}
			code, out, errs := runMigrate(t, "apply", "--plan", path, "--snapshot", src, "--bootstrap-server", addr,
				"--scram-credentials", creds, "--yes", "--no-audit")
			if code != exitError {
				t.Fatalf("apply: exit %d, want %d\n%s\n%s", code, exitError, out, errs)
			}
			for _, w := range c.want {
				if !strings.Contains(errs, w) {
					t.Errorf("stderr lacks %q:\n%s", w, errs)
				}
			}
			if !strings.Contains(errs, path) {
				t.Errorf("stderr does not name the plan file %s:\n%s", path, errs)
			}
			if got := readTargetDigest(t, addr); got != before {
				t.Fatal("the target changed")
			}
		})
	}
	// A flag that shapes a plan means nothing with a saved one: refused.
	for _, flag := range [][]string{{"--prune"}, {"--topics", "^orders$"}, {"--placement", "source"}, {"--resend-secrets"}} {
		code, _, errs := runMigrate(t, append([]string{"apply", "--plan", saved, "--snapshot", snap, "--bootstrap-server", addr, "--yes", "--no-audit"}, flag...)...)
		if code != exitError || !strings.Contains(errs, flag[0]+" shapes a plan") {
			t.Errorf("apply --plan %v: exit %d\n%s", flag, code, errs)
		}
	}
	// The plan as saved applies, and applies only with its source.
	code, out, errs := runMigrate(t, "apply", "--plan", saved, "--bootstrap-server", addr, "--scram-credentials", creds, "--yes", "--no-audit")
	if code != exitError || !strings.Contains(errs, "needs the source it was planned from") {
		t.Fatalf("apply --plan without a source: exit %d\n%s", code, errs)
	}
	code, out, errs = runMigrate(t, "apply", "--plan", saved, "--snapshot", snap, "--bootstrap-server", addr, "--scram-credentials", creds, "--yes", "--no-audit", "--verify-timeout", "0")
	if code != exitOK {
		t.Fatalf("the unedited plan: exit %d\n%s\n%s", code, out, errs)
	}
	if readTargetDigest(t, addr) == before {
		t.Fatal("the unedited plan changed nothing")
	}
}

// A secret reference resolves only into the resource and key it was read
// from: the fixture's broker 1 keystore password, decrypted in memory, is
// not sent to another broker or into a topic config, however the saved
// plan is edited, and the edit is refused as not justified by the source.
func TestBrokerPasswordCannotBeRerouted(t *testing.T) {
	ctx := context.Background()
	src := fixtureSource(t)
	const key = "listener.name.sasl_plaintext.ssl.key.password"
	ref := "zookeeper:/config/brokers/1#" + key
	addr, _ := kfakeTarget(t)
	conn, err := kafkaconn.Dial(ctx, strings.Split(addr, ","), kafkaconn.Default())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	tgt, err := kread.Read(ctx, conn, kread.Options{})
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := migration.BuildPlan(src, tgt, nil, plan.Options{}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	secrets := plan.SecretsOf(fresh)
	if _, ok := secrets.Resolve("broker-config:1", key, ref); !ok {
		t.Fatalf("the fixture's broker 1 password is not planned; the test would prove nothing")
	}
	// The saved plan as a file holds: references only.
	var saved plan.Plan
	b, _ := json.Marshal(fresh)
	if err := json.Unmarshal(b, &saved); err != nil {
		t.Fatal(err)
	}
	moved := secret.Ref(ref)
	for _, c := range []struct {
		name   string
		change plan.Change
	}{
		{"to broker 2", plan.Change{ID: "broker-config:2", Kind: plan.KindBrokerConfig, Action: plan.ActionUpdate,
			Resource: plan.Resource{Type: "broker", Name: "2"}, Before: &plan.State{}, After: &plan.State{Configs: []snapshot.Config{{Key: key, Sensitive: true, Secret: &moved}}}}},
		{"to broker 2 under another key", plan.Change{ID: "broker-config:2", Kind: plan.KindBrokerConfig, Action: plan.ActionUpdate,
			Resource: plan.Resource{Type: "broker", Name: "2"}, Before: &plan.State{}, After: &plan.State{Configs: []snapshot.Config{{Key: "ssl.truststore.password", Sensitive: true, Secret: &moved}}}}},
		{"into a topic config", plan.Change{ID: "topic-config:orders", Kind: plan.KindTopicConfig, Action: plan.ActionUpdate,
			Resource: plan.Resource{Type: "topic", Name: "orders"}, Before: &plan.State{}, After: &plan.State{Configs: []snapshot.Config{{Key: key, Sensitive: true, Secret: &moved}}}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			edited := saved
			edited.Changes = append(slices.Clone(saved.Changes), c.change)
			verr := plan.Validate(&edited)
			rerr := plan.Recheck(&edited, fresh, plan.NewTarget(tgt))
			if verr == nil && rerr == nil {
				t.Fatal("neither validation nor the recheck refuses the rerouted password")
			}
			for _, err := range []error{verr, rerr} {
				if err != nil && !strings.Contains(err.Error(), c.change.ID) {
					t.Errorf("the refusal does not name %s: %v", c.change.ID, err)
				}
			}
			// And should both be bypassed, the value is not found there.
			cf := c.change.After.Configs[0]
			if v, ok := secrets.Resolve(c.change.ID, cf.Key, ref); ok {
				t.Errorf("the password resolves into %s %s (%d bytes)", c.change.ID, cf.Key, len(v))
			}
			one := &plan.Plan{Changes: []plan.Change{c.change}}
			if _, err := apply.Run(ctx, conn.Client, one, tgt, apply.Options{Secrets: secrets}, nil); err == nil {
				t.Errorf("apply.Run sent the rerouted change")
			}
		})
	}
}

// A plan made with a TopicActionPolicy is applied only with that policy,
// which is evaluated again: a change it denies, added to the file, is
// refused as blocked now.
func TestSavedPlanKeepsItsPolicy(t *testing.T) {
	dir := t.TempDir()
	snap, creds := fixtureFiles(t, dir)
	addr, _ := kfakeTarget(t)
	pol := filepath.Join(dir, "policy.yaml")
	if err := os.WriteFile(pol, []byte("version: 1\nrules:\n  - name: freeze-payments\n    topics: '^payments$'\n    expr: 'false'\n    message: payments is frozen\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "other.yaml")
	if err := os.WriteFile(other, []byte("version: 1\nrules: []\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	saved := filepath.Join(dir, "plan.json")
	if code, _, errs := runMigrate(t, "plan", "--snapshot", snap, "--bootstrap-server", addr, "--scram-credentials", creds, "--placement", "target",
		"--policy", pol, "--no-audit", "--out", saved); code != exitPending {
		t.Fatalf("plan: exit %d\n%s", code, errs)
	}
	p, err := planfile.Read(saved)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(p.Options.Policy, "sha256:") || slices.ContainsFunc(p.Changes, func(c plan.Change) bool { return c.ID == "topic:payments" }) {
		t.Fatalf("the plan records policy %q and changes %d; want the digest and no payments", p.Options.Policy, len(p.Changes))
	}
	var denied plan.Change
	for _, b := range p.Blockers {
		if b.Change != nil && b.Change.ID == "topic:payments" {
			denied = *b.Change
		}
	}
	if denied.ID == "" {
		t.Fatal("the policy did not block topic:payments")
	}
	denied.Verdict = nil
	p.Changes = append(p.Changes, denied)
	edited := filepath.Join(dir, "edited.json")
	if err := planfile.Write(edited, p); err != nil {
		t.Fatal(err)
	}
	before := readTargetDigest(t, addr)
	args := func(file string, extra ...string) []string {
		return append([]string{"apply", "--plan", file, "--snapshot", snap, "--bootstrap-server", addr, "--scram-credentials", creds, "--yes", "--no-audit", "--verify-timeout", "0"}, extra...)
	}
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"without --policy", args(saved), "planned with a topic policy"},
		{"with another policy", args(saved, "--policy", other), "is not the policy"},
		{"a denied change added", args(edited, "--policy", pol), `topic:payments: blocked now: policy rule "freeze-payments"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, errs := runMigrate(t, c.args...)
			if code != exitError || !strings.Contains(errs, c.want) {
				t.Fatalf("exit %d, want 1 with %q:\n%s", code, c.want, errs)
			}
			if readTargetDigest(t, addr) != before {
				t.Fatal("the target changed")
			}
		})
	}
	if code, _, errs := runMigrate(t, args(saved, "--policy", pol)...); code != exitOK {
		t.Fatalf("the saved plan with its policy: exit %d\n%s", code, errs)
	}
}
