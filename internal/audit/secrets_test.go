package audit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zkmigrate/zkmigrate/internal/apply"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/secret"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

func TestSecretsNeverStored(t *testing.T) {
	ctx := context.Background()
	// Each value must never appear in the database or its WAL.
	const (
		scramPassword  = "Scr4m-alice-pw!"
		keystorePass   = "ks-Pa55word-77"
		jaasPassword   = "jaas-s3cret-pw"
		argPassword    = "cli-pw-0xDEADBEEF"
		zkAuthPassword = "zkdigest-pw-42"
		urlPassword    = "url-pw-9931"
		optionSecret   = "option-secret-x1"
		leakedValue    = "sensitive-value-in-plain-field"
		quotePassword  = `pw"with"quotes`
	)
	secrets := []string{scramPassword, keystorePass, jaasPassword, argPassword, zkAuthPassword, urlPassword, optionSecret, leakedValue, quotePassword}
	jaas := `org.apache.kafka.common.security.scram.ScramLoginModule required username="admin" password="` + jaasPassword + `";`

	s, path := openTest(t)
	r, err := s.BeginRun(ctx, RunInfo{
		Command: "apply",
		Args: []string{"--zookeeper", "zk1:2181", "--zk-auth", "digest:kafka:" + zkAuthPassword, "--password=" + argPassword,
			"--command-config-property", "sasl.jaas.config=" + jaas, "--bootstrap-server", "SASL_SSL://admin:" + urlPassword + "@b1:9093"},
		Target:  Endpoint{Kind: "kafka", Address: "SASL_SSL://admin:" + urlPassword + "@b1:9093", Principal: "User:admin"},
		Options: map[string]any{"ssl.truststore.password": optionSecret, "prune": true, "nested": map[string]any{"client_secret": optionSecret}},
	})
	if err != nil {
		t.Fatal(err)
	}
	pw := secret.New("scram-credentials:alice/SCRAM-SHA-256", scramPassword)
	ks := secret.New("zookeeper:/config/brokers/0#ssl.keystore.password", keystorePass)
	qp := secret.New("scram-credentials:bob/SCRAM-SHA-512", quotePassword)
	p := &plan.Plan{Fingerprint: "fp", Changes: []plan.Change{
		{ID: "scram-user:alice/SCRAM-SHA-256", Kind: plan.KindScramUser, Action: plan.ActionCreate,
			Resource: plan.Resource{Type: "user", Name: "alice", Mechanism: "SCRAM-SHA-256"},
			After:    &plan.State{Iterations: 8192, Password: &pw}},
		{ID: "scram-user:bob/SCRAM-SHA-512", Kind: plan.KindScramUser, Action: plan.ActionCreate,
			Resource: plan.Resource{Type: "user", Name: "bob", Mechanism: "SCRAM-SHA-512"},
			After:    &plan.State{Iterations: 4096, Password: &qp}},
		{ID: "broker-config:0", Kind: plan.KindBrokerConfig, Action: plan.ActionUpdate,
			Resource: plan.Resource{Type: "broker", Name: "0"},
			After: &plan.State{Configs: []snapshot.Config{
				{Key: "ssl.keystore.password", Sensitive: true, Secret: &ks},
				{Key: "listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config", Value: jaas},
				{Key: "some.custom.key", Sensitive: true, Value: leakedValue},
				{Key: "log.retention.ms", Value: "604800000"},
			}}},
	}, Findings: []snapshot.Finding{{ID: "jaas-inline", Severity: "warning", Resource: "server.properties:12",
		Message: "sasl.jaas.config has password=\"" + jaasPassword + "\" inline"}}}
	if err := r.RecordPlan(ctx, p); err != nil {
		t.Fatal(err)
	}
	o := r.Observer()
	o.Observe(apply.RunStarted{Plan: p, Total: 3})
	o.Observe(apply.BatchSent{Batch: 1, RPC: apply.RPCAlterUserScramCredRPC, Changes: []*plan.Change{&p.Changes[0], &p.Changes[1]}})
	o.Observe(apply.BatchDone{Batch: 1, RPC: apply.RPCAlterUserScramCredRPC})
	// A broker that echoes a value in its error message.
	o.Observe(apply.ResourceResult{Change: &p.Changes[0], ErrorCode: 42, ErrorName: "INVALID_REQUEST",
		Message: "bad password " + scramPassword, Err: errors.New("invalid " + scramPassword)})
	o.Observe(apply.ResourceResult{Change: &p.Changes[1]})
	o.Observe(apply.BatchSent{Batch: 2, RPC: apply.RPCIncrementalAlter, Changes: []*plan.Change{&p.Changes[2]}})
	o.Observe(apply.BatchDone{Batch: 2, RPC: apply.RPCIncrementalAlter, Err: errors.New("ssl.keystore.password=" + keystorePass + " rejected")})

	// Scan the database and its WAL while the run is open (rows are in the
	// WAL), and again after Finish and Close (checkpointed into the file).
	scan := func(when string) {
		t.Helper()
		var all []byte
		for _, f := range []string{path, path + "-wal"} {
			b, err := os.ReadFile(f)
			if err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
			all = append(all, b...)
		}
		// The plan JSON is stored zstd-compressed: search it decompressed
		// too, or a secret in it would hide from the scan.
		pj := storedPlanJSON(t, path)
		for _, present := range []string{"scram-credentials:alice/SCRAM-SHA-256", "log.retention.ms", "jaas-inline"} {
			if !bytes.Contains(pj, []byte(present)) {
				t.Errorf("%s: %q not found in the decompressed plan JSON: the scan would be hollow", when, present)
			}
		}
		all = append(all, pj...)
		// The scan must be able to see what was recorded.
		for _, present := range []string{"scram-credentials:alice/SCRAM-SHA-256", "log.retention.ms", "604800000", "INVALID_REQUEST", "zk1:2181"} {
			if !bytes.Contains(all, []byte(present)) {
				t.Errorf("%s: %q not found in the database: the scan would be hollow", when, present)
			}
		}
		for _, sec := range secrets {
			if bytes.Contains(all, []byte(sec)) {
				t.Errorf("%s: secret %q found in the database files", when, sec)
			}
		}
	}
	scan("during the run")
	if _, err := r.Finish(ctx, "partial", 3); err != nil {
		t.Fatal(err)
	}
	scan("after Finish")
	run, err := s.Run(ctx, r.ID())
	if err != nil {
		t.Fatal(err)
	}
	wantArgs := []string{"--zookeeper", "zk1:2181", "--zk-auth", "[redacted]", "--password=[redacted]",
		"--command-config-property", "sasl.jaas.config=[redacted]", "--bootstrap-server", "SASL_SSL://admin:[redacted]@b1:9093"}
	if diff := cmp.Diff(wantArgs, run.Args); diff != "" {
		t.Errorf("stored args mismatch (-want +got):\n%s", diff)
	}
	if res, err := s.Verify(ctx, ""); err != nil || !res.OK {
		t.Fatalf("Verify = %+v, %v", res, err)
	}
	s.Close()
	scan("after Close")
}

func TestRedactArgs(t *testing.T) {
	tests := []struct {
		name string
		in   []string
		want []string
	}{
		{"flag with value after", []string{"--password", "x1", "--topics", "a.*"}, []string{"--password", "[redacted]", "--topics", "a.*"}},
		{"flag=value", []string{"--sasl-secret=abc", "-o", "json"}, []string{"--sasl-secret=[redacted]", "-o", "json"}},
		{"single dash", []string{"-password", "pw"}, []string{"-password", "[redacted]"}},
		{"auth flag", []string{"--zk-auth", "digest:u:p"}, []string{"--zk-auth", "[redacted]"}},
		{"boolean flag followed by a flag", []string{"--resend-secrets", "--zookeeper", "zk:2181"}, []string{"--resend-secrets", "--zookeeper", "zk:2181"}},
		{"jaas flag", []string{"--jaas", `x required password="p";`}, []string{"--jaas", "[redacted]"}},
		{"sensitive k=v arg", []string{"ssl.key.password=k", "retention.ms=5"}, []string{"ssl.key.password=[redacted]", "retention.ms=5"}},
		{"k=v in a flag value", []string{"--config=sasl.jaas.config=abc"}, []string{"--config=sasl.jaas.config=[redacted]"}},
		{"url userinfo", []string{"--bootstrap-server", "SASL_SSL://u:p4ss@h:9093"}, []string{"--bootstrap-server", "SASL_SSL://u:[redacted]@h:9093"}},
		{"inline jaas text", []string{`--note`, `username="a" password="b c"`}, []string{"--note", `username="a" password="[redacted]"`}},
		{"trailing secret flag", []string{"--password"}, []string{"--password"}},
		{"plain", []string{"plan", "--out", "p.json"}, []string{"plan", "--out", "p.json"}},
		{"address then kerberos principal", []string{`{"a":"SASL_SSL://b1:9093","p":"User:kafka@REALM"}`}, []string{`{"a":"SASL_SSL://b1:9093","p":"User:kafka@REALM"}`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, RedactArgs(tt.in)); diff != "" {
				t.Errorf("RedactArgs(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

// TestScrubJSON checks that a JSON document is scrubbed string by string
// exactly as the whole text was (scrub), every secret redacted, and that
// the document stays JSON where scrub broke it.
func TestScrubJSON(t *testing.T) {
	var sc scrubber
	sc.add("known-s3cret-value", `pw"with"quotes`)
	values := []string{
		`org.apache.kafka.common.security.scram.ScramLoginModule required username="admin" password="jaas-pw";`,
		`client_secret=abc123 retention.ms=5`,
		`SASL_SSL://admin:url-pw@b1:9093`,
		`User:CN=app,OU=ops,O=example`,
		`echoed known-s3cret-value in a message`,
		`pw"with"quotes`,
		`ssl.truststore.password = "spaced pw" and token=t0k`,
		`retention.ms=604800000`,
		`plain text`,
		`trailing backslash password=x\`,
	}
	for i, a := range values {
		for _, b := range values {
			doc, err := json.Marshal(map[string]any{"a": a, "n": i, "list": []string{b, "x=y"}})
			if err != nil {
				t.Fatal(err)
			}
			want, got := sc.scrub(string(doc)), sc.scrubJSON(string(doc))
			if got != want {
				t.Errorf("scrubJSON(%s)\n = %s\nwant %s (scrub)", doc, got, want)
			}
			if !json.Valid([]byte(got)) {
				t.Errorf("scrubJSON(%s) = %s: not JSON", doc, got)
			}
		}
	}
	// A string ending in "token=": scrub took the next string for its
	// quoted value and broke the document.
	for _, tt := range []struct{ doc, want string }{
		{`{"a":"token=","b":"c"}`, `{"a":"token=","b":"c"}`},
		{`{"a":"x password=p1 y","b":"token="}`, `{"a":"x password=[redacted] y","b":"token="}`},
		// Unicode folds "ſ" to "s": the patterns match it.
		{`["xſecret=abc"]`, `["xſecret=[redacted]"]`},
	} {
		if got := sc.scrubJSON(tt.doc); got != tt.want {
			t.Errorf("scrubJSON(%s) = %s, want %s", tt.doc, got, tt.want)
		}
	}
}

// TestRecordPlanJSONIsJSON records a plan whose text ends a string with
// "token=" and reads the stored plan JSON back: it must decode.
func TestRecordPlanJSONIsJSON(t *testing.T) {
	ctx := context.Background()
	s, path := openTest(t)
	r, err := s.BeginRun(ctx, RunInfo{Command: "plan"})
	if err != nil {
		t.Fatal(err)
	}
	p := testPlan(2)
	p.Findings = append(p.Findings, snapshot.Finding{ID: "odd-config", Severity: "warning", Resource: "topic orders-00001",
		Message: "config value ends with token=", Fix: "check it"})
	if err := r.RecordPlan(ctx, p); err != nil {
		t.Fatal(err)
	}
	pj := storedPlanJSON(t, path)
	var got plan.Plan
	if err := json.Unmarshal(pj, &got); err != nil {
		t.Fatalf("stored plan JSON does not decode: %v\n%s", err, pj)
	}
	if n := len(got.Findings); n != 2 || got.Findings[1].Message != "config value ends with token=" || got.Findings[1].Fix != "check it" {
		t.Errorf("stored findings = %+v, want the two recorded", got.Findings)
	}
}

// storedPlanJSON reads every plans row's plan_json straight from the file
// and returns them decompressed, one after another.
func storedPlanJSON(t *testing.T, path string) []byte {
	t.Helper()
	rows, err := rawDB(t, path).Query(`SELECT plan_json FROM plans ORDER BY seq`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var all []byte
	for rows.Next() {
		var stored []byte
		if err := rows.Scan(&stored); err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(stored, planMagic) {
			t.Errorf("plan_json is not stored zstd-compressed: %.40q", stored)
		}
		pj, err := planJSONBytes(stored)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, pj...)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(all) == 0 {
		t.Fatal("no plan JSON stored: the scan would be hollow")
	}
	return all
}
