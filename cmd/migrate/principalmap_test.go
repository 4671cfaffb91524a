package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// --principal-map through the commands: plan renames the certificate
// principals and records the map; check reports what the map leaves
// unmapped; apply --plan refuses, naming the flag, a plan made with a map
// when it is not given again.
func TestPrincipalMapFlag(t *testing.T) {
	dir := t.TempDir()
	src := &snapshot.Snapshot{Format: snapshot.FormatVersion, Source: snapshot.SourceZooKeeper, ClusterID: "src", Brokers: []snapshot.Broker{{ID: 1}},
		ACLs: []snapshot.ACL{
			{ResourceType: "Topic", ResourceName: "orders", PatternType: "LITERAL", Principal: "User:CN=jakub,OU=eng", Host: "*", Operation: "Read", Permission: "Allow"},
			{ResourceType: "Topic", ResourceName: "orders", PatternType: "LITERAL", Principal: "User:CN=x,O=other", Host: "*", Operation: "Read", Permission: "Allow"},
		}}
	tgt := &snapshot.Snapshot{Format: snapshot.FormatVersion, Source: snapshot.SourceKafka, ClusterID: "tgt", Brokers: []snapshot.Broker{{ID: 1}}}
	srcFile, tgtFile := filepath.Join(dir, "src.json"), filepath.Join(dir, "tgt.json")
	for f, s := range map[string]*snapshot.Snapshot{srcFile: src, tgtFile: tgt} {
		if err := snapshot.Save(f, s); err != nil {
			t.Fatal(err)
		}
	}
	mapFile := filepath.Join(dir, "map.properties")
	if err := os.WriteFile(mapFile, []byte("ssl.principal.mapping.rules=RULE:^CN=([^,]+),OU=eng$/$1/\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	planFile := filepath.Join(dir, "plan.json")
	code, out, errs := runMigrate(t, "plan", "--snapshot", srcFile, "--target-snapshot", tgtFile, "--principal-map", mapFile, "--no-audit", "-o", "json", "--out", planFile)
	if code != exitPending {
		t.Fatalf("plan: exit %d, %s", code, errs)
	}
	var p struct {
		Options struct {
			PrincipalMap string `json:"principal_map"`
		}
		Changes  []struct{ ID string }
		Findings []struct{ ID, Resource string }
	}
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	ids := ""
	for _, c := range p.Changes {
		ids += c.ID + "\n"
	}
	if !strings.HasPrefix(p.Options.PrincipalMap, "sha256:") || !strings.Contains(ids, "Allow User:jakub Read") || strings.Contains(ids, "CN=jakub") ||
		len(p.Findings) != 1 || p.Findings[0].ID != "principal-map-unmapped" || p.Findings[0].Resource != "User:CN=x,O=other" {
		t.Errorf("plan: options %q, changes\n%s findings %+v", p.Options.PrincipalMap, ids, p.Findings)
	}

	code, out, _ = runMigrate(t, "check", "--snapshot", srcFile, "--principal-map", mapFile, "--no-audit", "--fail-on", "none")
	if code != 0 || !strings.Contains(out, "[principal-map-unmapped]") || !strings.Contains(out, "User:CN=x,O=other") {
		t.Errorf("check: exit %d\n%s", code, out)
	}

	code, _, errs = runMigrate(t, "apply", "--plan", planFile, "--snapshot", srcFile, "--bootstrap-server", "127.0.0.1:1", "--no-audit", "--yes")
	if code != exitError || !strings.Contains(errs, "give the same --principal-map") {
		t.Errorf("apply --plan without the map: exit %d, %s", code, errs)
	}
	code, _, errs = runMigrate(t, "plan", "--snapshot", srcFile, "--target-snapshot", tgtFile, "--principal-map", filepath.Join(dir, "none.properties"), "--no-audit")
	if code != exitError || !strings.Contains(errs, "none.properties") {
		t.Errorf("a missing map: exit %d, %s", code, errs)
	}
}
