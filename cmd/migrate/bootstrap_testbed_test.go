package main

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/scram"

	"github.com/zkmigrate/zkmigrate/internal/kraftcheckpoint"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/props"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/testkit/testbed"
)

// login authenticates to addr as user with SCRAM (the mechanism given) and
// asks for the broker list: nil when Kafka accepted the password.
func login(addr, user, password, mechanism string) error {
	a := scram.Auth{User: user, Pass: password}
	var m sasl.Mechanism = a.AsSha256Mechanism()
	if mechanism == "SCRAM-SHA-512" {
		m = a.AsSha512Mechanism()
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.SASL(m), kgo.RetryTimeout(5*time.Second), kgo.RequestRetries(1))
	if err != nil {
		return err
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err = kadm.NewClient(cl).ListBrokers(ctx)
	return err
}

// tokenLogin authenticates with a delegation token (SCRAM-SHA-512,
// tokenauth=true) and asks for the broker list.
func tokenLogin(addr, tokenID, hmacB64 string) error {
	m := scram.Auth{User: tokenID, Pass: hmacB64, IsToken: true}.AsSha512Mechanism()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.SASL(m), kgo.RetryTimeout(5*time.Second), kgo.RequestRetries(1))
	if err != nil {
		return err
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err = kadm.NewClient(cl).ListBrokers(ctx)
	return err
}

// zkSnapshot reads the source through migrate snapshot -o json.
func zkSnapshot(t *testing.T, zk string) *snapshot.Snapshot {
	t.Helper()
	code, out, errs := runMigrate(t, "snapshot", "--zookeeper", zk, "-o", "json")
	if code != exitOK {
		t.Fatalf("snapshot: exit %d %s", code, errs)
	}
	var s snapshot.Snapshot
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	return &s
}

// checkSeededTopic checks that topic exists on addr with id, has
// partitions partitions each with a leader, and takes a record.
func checkSeededTopic(addr, topic, id string, partitions int) error {
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.SASL(scram.Auth{User: testbed.AdminUser, Pass: testbed.AdminPassword}.AsSha256Mechanism()))
	if err != nil {
		return err
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	adm := kadm.NewClient(cl)
	for {
		td, err := adm.ListTopics(ctx, topic)
		if err != nil {
			return err
		}
		d := td[topic]
		ready := d.Err == nil && len(d.Partitions) == partitions
		for _, p := range d.Partitions {
			ready = ready && p.Leader >= 0 && p.Err == nil
		}
		if ready {
			// Kafka (and ZooKeeper) spell a topic id in URL-safe base64;
			// kadm's String uses the standard alphabet: compare the bytes.
			if got := base64.RawURLEncoding.EncodeToString(d.ID[:]); got != strings.TrimRight(id, "=") {
				return fmt.Errorf("topic id %s, want the source's %s", got, id)
			}
			break
		}
		if ctx.Err() != nil {
			return fmt.Errorf("not ready within 30 s: %+v", d)
		}
		time.Sleep(500 * time.Millisecond)
	}
	return cl.ProduceSync(ctx, &kgo.Record{Topic: topic, Value: []byte("after bootstrap")}).FirstErr()
}

// TestBootstrapRealKafka41 is the whole path on real servers: a fresh
// Kafka 4.1 controller formatted by kafka-storage (admin from --add-scram)
// gets the legacy 3.9 cluster's SCRAM credentials from ZooKeeper; after its
// first start every legacy user logs in with the password the test bed set
// (the tool never had them: no --scram-credentials), SHA-256 and SHA-512,
// 4096 and 8192 iterations, names that need encoding; a wrong password is
// refused; admin still works; plan sees every SCRAM user of the source in
// sync, carol (whose password nobody has) included: no change, no reset; and
// bootstrapping the started controller again is refused. With
// --delegation-tokens the legacy token (owned by User:admin) is seeded and
// authenticates on the target, whose delegation.token.secret.key is the
// source's; a wrong HMAC is refused. With --topic-ids the topic payments
// (pinned to broker 1) is created with the source's topic id, its
// partitions get a leader and take a record, and plan does not create it
// again.
func TestBootstrapRealKafka41(t *testing.T) {
	zkAddr := testbed.ZK(t)
	credsFile := testbed.LegacyCredentialsFile(t)
	targetProps := testbed.TargetClientProps(t) // admin / admin-secret: also the fresh target's admin
	fresh := testbed.FormatFresh(t)
	var creds []demoCred
	b, err := os.ReadFile(credsFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &creds); err != nil {
		t.Fatal(err)
	}

	db := filepath.Join(t.TempDir(), "audit.db")
	code, out, errs := runMigrate(t, "bootstrap", "--zookeeper", zkAddr, "--metadata-dir", fresh.MetadataDir, "--delegation-tokens",
		"--topic-ids", "--topics", "^payments$", "--audit-db", db)
	if code != exitOK {
		t.Fatalf("bootstrap: exit %d\n%s%s", code, out, errs)
	}
	t.Logf("bootstrap:\n%s", out)
	cp := parseFile(t, filepath.Join(fresh.MetadataDir, kraftcheckpoint.FileName))
	_, exported, _ := runMigrate(t, "audit", "export", "1", "--audit-db", db, "-o", "json")
	var dbBytes []byte
	for _, suffix := range []string{"", "-wal"} {
		b, _ := os.ReadFile(db + suffix)
		dbBytes = append(dbBytes, b...)
	}
	if !strings.Contains(exported, "User:CN=foo,OU=bar SCRAM-SHA-256") || !strings.Contains(exported, "bootstrap-file") {
		t.Errorf("the audit does not name the seeded users and the file:\n%s", exported)
	}
	for _, k := range keyForms(cp.Scram()) {
		if len(k) >= 8 && (strings.Contains(out, k) || strings.Contains(errs, k) || strings.Contains(exported, k) || bytes.Contains(dbBytes, []byte(k))) {
			t.Fatal("bootstrap's output or audit trail holds a salt or key")
		}
	}

	// The legacy delegation token (its id from ZooKeeper, its HMAC from the
	// source's delegation.token.secret.key, as Kafka derives it).
	tokens := cp.Tokens()
	if len(tokens) != 1 || tokens[0].Owner != "User:admin" {
		t.Fatalf("seeded tokens: %+v, want the legacy token owned by User:admin", tokens)
	}
	srcProps, err := props.Load(testbed.SourceServerProps(t))
	if err != nil {
		t.Fatal(err)
	}
	var tokenSecret string
	for _, e := range srcProps.Entries {
		if e.Key == "delegation.token.secret.key" {
			tokenSecret = e.Value
		}
	}
	mac := hmac.New(sha512.New, []byte(tokenSecret))
	mac.Write([]byte(tokens[0].TokenID))
	tokenHMAC := base64.StdEncoding.EncodeToString(mac.Sum(nil))

	src := zkSnapshot(t, zkAddr)
	var srcID string
	for _, tp := range src.Topics {
		if tp.Name == "payments" {
			srcID = tp.ID
		}
	}
	if srcID == "" || len(cp.Topics()) != 1 {
		t.Fatalf("source id of payments %q, %d topics seeded", srcID, len(cp.Topics()))
	}

	testbed.StartFresh(t)
	// payments (pinned to broker 1 on the source) exists with the source's
	// topic id, every partition has a leader, and takes a record.
	if err := checkSeededTopic(fresh.Bootstrap, "payments", srcID, 3); err != nil {
		t.Errorf("payments on the bootstrapped target: %v", err)
	}
	if err := tokenLogin(fresh.Bootstrap, tokens[0].TokenID, tokenHMAC); err != nil {
		t.Errorf("the legacy delegation token on the bootstrapped target: %v", err)
	}
	if err := tokenLogin(fresh.Bootstrap, tokens[0].TokenID, base64.StdEncoding.EncodeToString([]byte("not-the-hmac"))); err == nil {
		t.Error("a wrong token HMAC was accepted")
	}
	for _, c := range creds {
		if err := login(fresh.Bootstrap, c.User, c.Password, c.Mechanism); err != nil {
			t.Errorf("%s %s with its original password: %v", c.User, c.Mechanism, err)
		}
		if err := login(fresh.Bootstrap, c.User, c.Password+"-wrong", c.Mechanism); err == nil {
			t.Errorf("%s %s: a wrong password was accepted", c.User, c.Mechanism)
		}
	}
	if err := login(fresh.Bootstrap, testbed.AdminUser, testbed.AdminPassword, "SCRAM-SHA-512"); err != nil {
		t.Errorf("admin (from --add-scram) SCRAM-SHA-512: %v", err)
	}

	// plan: every SCRAM user of the source is on the target, nothing to do.
	code, out, errs = runMigrate(t, "plan", "--zookeeper", zkAddr, "--bootstrap-server", fresh.Bootstrap, "--command-config", targetProps,
		"--include", "scram-user", "-o", "json", "--no-audit", "--scram-resets", filepath.Join(t.TempDir(), "resets.json"))
	var p plan.Plan
	if err := json.Unmarshal([]byte(out), &p); err != nil || code != exitOK {
		t.Fatalf("plan: exit %d, %v\n%s%s", code, err, out, errs)
	}
	if len(p.Changes) != 0 {
		t.Errorf("plan has %d SCRAM changes, want none: %+v", len(p.Changes), p.Changes)
	}
	for _, bl := range p.Blockers {
		if bl.ID == "scram-no-password" {
			t.Errorf("plan still asks for a password reset: %s", bl.Resource)
		}
	}

	// plan does not create payments again.
	code, out, errs = runMigrate(t, "plan", "--zookeeper", zkAddr, "--bootstrap-server", fresh.Bootstrap, "--command-config", targetProps,
		"--include", "topic", "--topics", "^payments$", "-o", "json", "--no-audit")
	var tp plan.Plan
	if err := json.Unmarshal([]byte(out), &tp); err != nil || code != exitOK || len(tp.Changes) != 0 {
		t.Errorf("plan --include topic for payments: exit %d, %v, %d changes\n%s", code, err, len(tp.Changes), errs)
	}

	// Too late now: the controller has started.
	before, _ := os.ReadFile(filepath.Join(fresh.MetadataDir, kraftcheckpoint.FileName))
	code, _, errs = runMigrate(t, "bootstrap", "--zookeeper", zkAddr, "--metadata-dir", fresh.MetadataDir, "--no-audit")
	after, _ := os.ReadFile(filepath.Join(fresh.MetadataDir, kraftcheckpoint.FileName))
	if code != exitError || !strings.Contains(errs, "this controller has started") || string(before) != string(after) {
		t.Errorf("bootstrap of the started controller: exit %d, %s", code, errs)
	}
}
