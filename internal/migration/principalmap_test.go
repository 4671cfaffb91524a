package migration

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/catalogue"
	"github.com/zkmigrate/zkmigrate/internal/kafkaconn"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/planfile"
	"github.com/zkmigrate/zkmigrate/internal/principalmap"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

const engMap = "ssl.principal.mapping.rules=RULE:^CN=([^,]+),OU=eng$/$1/\n"

// mtlsSource is source() as an mTLS cluster left it: ACLs and a quota for
// certificate principals, one of them outside the map's rule, and a SCRAM
// user that the map makes collide with alice.
func mtlsSource() *snapshot.Snapshot {
	s := source()
	read := func(p string) snapshot.ACL {
		return snapshot.ACL{ResourceType: "Topic", ResourceName: "orders", PatternType: "LITERAL", Principal: p, Host: "*", Operation: "Read", Permission: "Allow"}
	}
	s.ACLs = []snapshot.ACL{read("User:CN=bob,OU=eng"), read("User:CN=x,O=other")}
	s.Quotas = []snapshot.Quota{{Entity: snapshot.QuotaEntity{{Type: snapshot.EntityUser, Name: "CN=bob,OU=eng"}}, Values: map[string]float64{"producer_byte_rate": 1024}}}
	s.ScramUsers = append(s.ScramUsers, snapshot.ScramUser{Name: "CN=alice,OU=eng", Credentials: []snapshot.ScramCredential{{Mechanism: "SCRAM-SHA-256", Iterations: 4096}}})
	s.Sort()
	return s
}

// TestComputePrincipalMap: with --principal-map the plan is built from the
// mapped source (ACLs and quotas for User:bob, the unmapped DN named, the
// SCRAM collision blocked), records the map's digest, and keeps the source
// as read (its digest, Planned.Source).
func TestComputePrincipalMap(t *testing.T) {
	dir := t.TempDir()
	tgtFile := writeSnapshot(t, dir, "target.json", target())
	mapFile := writeFile(t, dir, "map.properties", engMap)
	src := mtlsSource()
	var calls int
	pl, err := Compute(context.Background(), PlanRequest{Source: fixed(src, &calls), Target: Target{SnapshotFile: tgtFile},
		Options: plan.Options{Include: []plan.Kind{plan.KindACL, plan.KindQuota, plan.KindScramUser}}, PrincipalMapFile: mapFile})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range pl.Plan.Changes {
		ids = append(ids, c.ID)
	}
	want := []string{"quota:user=bob", "acl:Allow User:CN=x,O=other Read on Topic:LITERAL:orders from *", "acl:Allow User:bob Read on Topic:LITERAL:orders from *"}
	if !slices.Equal(ids, want) {
		t.Errorf("changes %q, want %q: the quota and ACL of User:bob, the unmapped DN's ACL unchanged", ids, want)
	}
	for _, id := range ids {
		if strings.Contains(id, "CN=bob") || strings.Contains(id, "CN=alice") {
			t.Errorf("change %s names a source principal the map renames", id)
		}
	}
	var collided, unmapped bool
	for _, b := range pl.Plan.Blockers {
		if b.ID == catalogue.IDBlockPrincipalMapClash && b.Kind == plan.KindScramUser && b.Resource == "User:alice" {
			collided = true
		}
		if b.Resource == "User:alice SCRAM-SHA-256" || b.Resource == "User:alice SCRAM-SHA-512" {
			t.Errorf("a colliding user is still planned: %+v", b)
		}
	}
	for _, f := range pl.Plan.Findings {
		unmapped = unmapped || f.ID == catalogue.IDPrincipalMapUnmapped && f.Resource == "User:CN=x,O=other"
	}
	if !collided || !unmapped {
		t.Errorf("blockers %+v, findings %+v: want the SCRAM collision blocked and User:CN=x,O=other unmapped", pl.Plan.Blockers, pl.Plan.Findings)
	}
	if pl.PrincipalMap == nil || pl.Plan.Options.PrincipalMap != pl.PrincipalMap.Digest() || !strings.HasPrefix(pl.Plan.Options.PrincipalMap, "sha256:") {
		t.Errorf("plan records map %q", pl.Plan.Options.PrincipalMap)
	}
	if pl.Source != src || pl.Plan.Source.Digest != snapshot.Digest(src) {
		t.Error("the planned source is not the source as read")
	}
	// Without the map nothing is renamed.
	plain := build(t, src, target(), plan.Options{Include: []plan.Kind{plan.KindQuota}})
	if len(plain.Changes) != 1 || plain.Changes[0].ID != "quota:user=CN=bob,OU=eng" || plain.Options.PrincipalMap != "" {
		t.Errorf("without a map: %+v", plain.Changes)
	}
	// A bad map stops Compute before anything is read.
	bad := writeFile(t, dir, "bad.properties", "ssl.principal.mapping.rules=RULE:^CN=(?=x)/$1/\n")
	if _, err := Compute(context.Background(), PlanRequest{Source: fixed(src, &calls), Target: Target{SnapshotFile: tgtFile}, PrincipalMapFile: bad}); err == nil || !strings.Contains(err.Error(), "bad.properties:1: ssl.principal.mapping.rules") || calls != 1 {
		t.Errorf("bad map: %v after %d reads", err, calls)
	}
}

// TestSavedPrincipalMap: apply --plan refuses, before reading anything, a
// plan made with a map when none or another is given, and a map given to a
// plan made without one; Justify rebuilds with the same map.
func TestSavedPrincipalMap(t *testing.T) {
	dir := t.TempDir()
	mapFile := writeFile(t, dir, "map.properties", engMap)
	otherFile := writeFile(t, dir, "other.properties", engMap+"zkmigrate.map=User:CN=x,O=other -> User:x\n")
	pm, err := LoadPrincipalMap(mapFile)
	if err != nil {
		t.Fatal(err)
	}
	other, _ := LoadPrincipalMap(otherFile)
	src, tgt := mtlsSource(), target()
	save := func(name string, pm *principalmap.Map) (*plan.Plan, string) {
		p, err := BuildPlan(src, tgt, nil, plan.Options{}, nil, pm)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name)
		if err := planfile.Write(path, p); err != nil {
			t.Fatal(err)
		}
		return p, path
	}
	mapped, mappedFile := save("mapped.plan", pm)
	_, plainFile := save("plain.plan", nil)
	for _, tt := range []struct {
		name, file, given string
		want              PrincipalMapError
	}{
		{"map not given again", mappedFile, "", PrincipalMapError{PlanFile: mappedFile, Planned: pm.Digest()}},
		{"another map", mappedFile, otherFile, PrincipalMapError{PlanFile: mappedFile, Planned: pm.Digest(), Given: otherFile, GivenDigest: other.Digest()}},
		{"a map for a plan made without", plainFile, mapFile, PrincipalMapError{PlanFile: plainFile, Given: mapFile, GivenDigest: pm.Digest()}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var calls int
			_, err := LoadSaved(context.Background(), SavedRequest{PlanFile: tt.file, PrincipalMapFile: tt.given, Source: fixed(src, &calls),
				Dial: func(context.Context) (*kafkaconn.Conn, error) { calls++; return nil, errors.New("dialled") }})
			var me *PrincipalMapError
			if !errors.As(err, &me) || *me != tt.want || calls != 0 {
				t.Fatalf("LoadSaved = %v after %d read(s), want %+v before any", err, calls, tt.want)
			}
		})
	}
	if _, err := Justify(mapped, src, tgt, nil, nil, "", pm); err != nil {
		t.Errorf("Justify with the plan's map: %v", err)
	}
	if _, err := Justify(mapped, src, tgt, nil, nil, "", nil); err == nil {
		t.Error("Justify without the plan's map passed")
	}
}
