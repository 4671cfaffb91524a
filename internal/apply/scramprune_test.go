package apply_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/zkmigrate/zkmigrate/internal/apply"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/secret"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// scramTarget reads kfake's SCRAM credentials into a target snapshot.
func scramTarget(t *testing.T, adm *kadm.Client) *snapshot.Snapshot {
	t.Helper()
	described, err := adm.DescribeUserSCRAMs(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	tgt := emptyTarget()
	for _, u := range described.Sorted() {
		if u.Err != nil {
			t.Fatalf("describe %s: %v", u.User, u.Err)
		}
		su := snapshot.ScramUser{Name: u.User}
		for _, c := range u.CredInfos {
			su.Credentials = append(su.Credentials, snapshot.ScramCredential{Mechanism: c.Mechanism.String(), Iterations: c.Iterations})
		}
		tgt.ScramUsers = append(tgt.ScramUsers, su)
	}
	tgt.Sort()
	return tgt
}

func scramOnly(t *testing.T, tgt *snapshot.Snapshot, own string) *plan.Plan {
	t.Helper()
	p, err := plan.Build(plan.Input{Source: source(), Target: tgt,
		Credentials: []plan.Credential{{User: "alice", Mechanism: "SCRAM-SHA-256", Iterations: 4096, Password: secret.New("scram-credentials:alice/SCRAM-SHA-256", "alice-pw")}},
		Options:     plan.Options{Prune: true, OwnUser: own, Include: []plan.Kind{plan.KindScramUser}}})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func creds(tgt *snapshot.Snapshot) []string {
	var out []string
	for _, u := range tgt.ScramUsers {
		for _, c := range u.Credentials {
			out = append(out, u.Name+"/"+c.Mechanism)
		}
	}
	return out
}

// TestApplyPrunesScramKfake: --prune's SCRAM deletes go out as
// AlterUserScramCredentials deletions (an upsert and a delete of one user
// in separate requests, as Kafka wants), the stray credentials are gone,
// the own user's is kept (blocked), and the next plan is empty.
func TestApplyPrunesScramKfake(t *testing.T) {
	ctx := context.Background()
	_, cl, adm := cluster(t)
	seed := []kadm.UpsertSCRAM{
		{User: "alice", Mechanism: kadm.ScramSha512, Iterations: 4096, Password: "x"},
		{User: "carol", Mechanism: kadm.ScramSha256, Iterations: 4096, Password: "x"},
		{User: "carol", Mechanism: kadm.ScramSha512, Iterations: 8192, Password: "x"},
		{User: "admin", Mechanism: kadm.ScramSha512, Iterations: 4096, Password: "x"},
	}
	for _, s := range seed { // one request per upsert: Kafka refuses a user twice in one
		if res, err := adm.AlterUserSCRAMs(ctx, nil, []kadm.UpsertSCRAM{s}); err != nil || res.Error() != nil {
			t.Fatalf("seed %s: %v %v", s.User, err, res.Error())
		}
	}
	tgt := scramTarget(t, adm)
	p := scramOnly(t, tgt, "admin")
	var got []string
	for _, c := range p.Changes {
		got = append(got, string(c.Action)+" "+c.ID)
	}
	want := []string{"create scram-user:alice/SCRAM-SHA-256", "delete scram-user:alice/SCRAM-SHA-512",
		"delete scram-user:carol/SCRAM-SHA-256", "delete scram-user:carol/SCRAM-SHA-512"}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("planned %v, want %v", got, want)
	}
	var ev events
	res, err := apply.Run(ctx, cl, p, tgt, apply.Options{BatchSize: 10}, &ev)
	if err != nil {
		t.Fatal(err)
	}
	if res.Failed != 0 || res.Succeeded != len(p.Changes) {
		t.Fatalf("result %+v: %v", res, res.Failures)
	}
	after := scramTarget(t, adm)
	if c, want := creds(after), []string{"admin/SCRAM-SHA-512", "alice/SCRAM-SHA-256"}; !slices.Equal(c, want) {
		t.Errorf("credentials after apply %v, want %v", c, want)
	}
	ix := plan.NewTarget(after)
	for i := range p.Changes {
		if st, obs := ix.Check(&p.Changes[i]); st != plan.Done {
			t.Errorf("verify %s: %v (found %s), want done", p.Changes[i].ID, st, obs)
		}
	}
	again := scramOnly(t, after, "admin")
	if len(again.Changes) != 0 {
		t.Errorf("second plan has %d changes, want none: %+v", len(again.Changes), again.Changes)
	}
	if len(again.Blockers) != 1 || again.Blockers[0].Change == nil || again.Blockers[0].Change.ID != "scram-user:admin/SCRAM-SHA-512" {
		t.Errorf("second plan's blockers %+v, want the own user's credential blocked", again.Blockers)
	}
}

// A delete the target refuses (the credential went away meanwhile) fails
// that change alone, with Kafka's error.
func TestApplyScramDeleteFailsPerResource(t *testing.T) {
	ctx := context.Background()
	_, cl, adm := cluster(t)
	if res, err := adm.AlterUserSCRAMs(ctx, nil, []kadm.UpsertSCRAM{{User: "carol", Mechanism: kadm.ScramSha256, Iterations: 4096, Password: "x"}}); err != nil || res.Error() != nil {
		t.Fatal(err, res.Error())
	}
	tgt := scramTarget(t, adm)
	tgt.ScramUsers = append(tgt.ScramUsers, snapshot.ScramUser{Name: "gone", Credentials: []snapshot.ScramCredential{{Mechanism: "SCRAM-SHA-512", Iterations: 4096}}})
	tgt.Sort()
	p := scramOnly(t, tgt, "")
	var ev events
	res, err := apply.Run(ctx, cl, p, tgt, apply.Options{}, &ev)
	if err != nil {
		t.Fatal(err)
	}
	r := ev.results()["scram-user:gone/SCRAM-SHA-512"]
	if res.Failed != 1 || r.Err == nil || !errors.Is(r.Err, kerr.ResourceNotFound) {
		t.Fatalf("result %+v, gone's %+v: want gone's delete failed with RESOURCE_NOT_FOUND", res, r)
	}
	if ok := ev.results()["scram-user:carol/SCRAM-SHA-256"]; ok.Err != nil {
		t.Errorf("carol's delete: %v", ok.Err)
	}
	if c := creds(scramTarget(t, adm)); !slices.Equal(c, []string{"alice/SCRAM-SHA-256"}) {
		t.Errorf("credentials after apply %v, want only alice's upsert", c)
	}
}

// Validate refuses an edited delete by name.
func TestApplyRefusesMalformedScramDelete(t *testing.T) {
	tgt := emptyTarget()
	tgt.ScramUsers = []snapshot.ScramUser{{Name: "carol", Credentials: []snapshot.ScramCredential{{Mechanism: "SCRAM-SHA-256", Iterations: 4096}}}}
	for name, edit := range map[string]func(c *plan.Change){
		"after-state": func(c *plan.Change) { c.After = &plan.State{Iterations: 1} },
		"no before":   func(c *plan.Change) { c.Before = nil },
		"mechanism": func(c *plan.Change) {
			c.Resource.Mechanism = "PLAIN"
			c.ID = plan.ChangeID(c.Kind, c.Resource)
		},
	} {
		t.Run(name, func(t *testing.T) {
			p := scramOnly(t, tgt, "")
			i := slices.IndexFunc(p.Changes, func(c plan.Change) bool { return c.Action == plan.ActionDelete })
			edit(&p.Changes[i])
			err := plan.Validate(p)
			if err == nil || !strings.Contains(err.Error(), p.Changes[i].ID) {
				t.Fatalf("Validate = %v, want an error naming %s", err, p.Changes[i].ID)
			}
		})
	}
}
