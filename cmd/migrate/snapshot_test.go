package main

import (
	"bytes"
	"context"
	"github.com/zkmigrate/zkmigrate/internal/testkit/testbed"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/render"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/zkread"
	"github.com/zkmigrate/zkmigrate/internal/zktree"
)

// handmadeSnapshot reads zkread's handmade fixture tree with its encoder
// secret, so encrypted passwords are decrypted in memory.
func handmadeSnapshot(t *testing.T) (*snapshot.Snapshot, []string) {
	t.Helper()
	dir := filepath.Join("..", "..", "internal", "zkread", "testdata")
	tree, err := zktree.Load(filepath.Join(dir, "handmade.json"))
	if err != nil {
		t.Fatal(err)
	}
	sec, err := os.ReadFile(filepath.Join(dir, "handmade.encoder-secret"))
	if err != nil {
		t.Fatal(err)
	}
	secret := strings.TrimSpace(string(sec))
	s, err := zkread.Read(context.Background(), tree, zkread.Options{Full: true, EncoderSecrets: []string{secret}})
	if err != nil {
		t.Fatal(err)
	}
	// Values planted in the fixture (see internal/zkread/fixture_test.go).
	secrets := []string{secret, "ks-pass-Ω-1", "jaas-pw-42", "plain-stored-pw-77", "Zml4ZWRzYWx0MTIz",
		"iNR/BxL/vWjVwJtlrSeLh27TDqdaTjACtFbDkaLsyCY=", "ML2o2oCkTRwiFNsPIJSYL6UFGIVJ6l91z/LR+Gv7Dq0="}
	for _, n := range tree.Nodes {
		for _, part := range strings.Split(string(n.Data), "encryptedPassword:")[1:] {
			secrets = append(secrets, part[:strings.IndexByte(part, ',')])
		}
	}
	return s, secrets
}

func TestSnapshotSummaryAndSecrets(t *testing.T) {
	s, secrets := handmadeSnapshot(t)
	known := 0
	for _, bc := range s.BrokerConfigs {
		for _, c := range bc.Configs {
			if c.Secret != nil && c.Secret.Known() {
				known++
			}
		}
	}
	if known < 2 {
		t.Fatalf("%d secrets resolved; the test would prove nothing", known)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "s.json")
	if err := snapshot.Save(file, s); err != nil {
		t.Fatal(err)
	}
	var summary bytes.Buffer
	if err := render.SnapshotSummary(&summary, s, ""); err != nil {
		t.Fatal(err)
	}
	code, jsonOut, stderr := runMigrate(t, "snapshot", "--snapshot", file, "-o", "json", "--out", filepath.Join(dir, "copy.json"))
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	saved := readFile(t, file)
	copied := readFile(t, filepath.Join(dir, "copy.json"))
	if !strings.Contains(saved, `"scram_users"`) || !strings.Contains(copied, `"scram_users"`) {
		t.Fatalf("saved snapshots do not read as JSON with SCRAM users: the secret check would prove nothing")
	}
	for name, out := range map[string]string{"summary": summary.String(), "json": jsonOut, "file": saved, "copy": copied} {
		for _, sec := range secrets {
			if strings.Contains(out, sec) {
				t.Errorf("%s output contains secret %q", name, sec)
			}
		}
	}
	for _, want := range []string{
		"Cluster id             Xk3pQ9m2Rj6bV1cT0wYzAa",
		"Topics                 5 (1 internal, 2 without topic id), 7 partitions, 1 reassigning",
		"Broker configs         3 entities, 3 sensitive (3 resolved in memory)",
		"SCRAM users            2 (credentials by reference)",
		"ACLs                   11 (9 literal, 2 prefixed)",
		"Findings: 10 errors, 4 warnings, 6 info",
		"error   znode-malformed          /brokers/topics/broken: partition key \"zero\" is not a partition number",
	} {
		if !strings.Contains(summary.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, summary.String())
		}
	}
}

func TestSnapshotCommandErrors(t *testing.T) {
	dir := t.TempDir()
	props := filepath.Join(dir, "server.properties")
	if err := os.WriteFile(props, []byte("broker.id=3\npassword.encoder.secret=enc-in-props\nlisteners.ssl.keystore.password=ks\nssl.keystore.password=kspw\nauthorizer.zookeeper.url=acl-zk:2181\nlog.dirs=/data\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s, _ := handmadeSnapshot(t)
	snap := filepath.Join(dir, "s.json")
	if err := snapshot.Save(snap, s); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		args   []string
		code   int
		stdout []string
		stderr string
	}{
		{name: "no source", args: []string{"snapshot"}, code: exitError, stderr: "migrate snapshot: give the source: --zookeeper"},
		{name: "both sources", args: []string{"snapshot", "--zookeeper", "h:2181", "--snapshot", snap}, code: exitError, stderr: "give one source: --zookeeper and --snapshot are mutually exclusive"},
		{name: "zookeeper and brokers", args: []string{"snapshot", "--zookeeper", "h:2181", "--source-bootstrap-server", "h:9092"}, code: exitError, stderr: "give one source: --zookeeper and --source-bootstrap-server are mutually exclusive"},
		{name: "brokers and snapshot", args: []string{"snapshot", "--source-bootstrap-server", "h:9092", "--snapshot", snap}, code: exitError, stderr: "give one source: --source-bootstrap-server and --snapshot are mutually exclusive"},
		{name: "source command config alone", args: []string{"snapshot", "--snapshot", snap, "--source-command-config", props}, code: exitError, stderr: "--source-command-config is for --source-bootstrap-server"},
		{name: "bad source command config", args: []string{"snapshot", "--source-bootstrap-server", "127.0.0.1:1", "--source-command-config", filepath.Join(dir, "none.properties")}, code: exitError, stderr: "--source-command-config: "},
		{name: "unreachable brokers name the source", args: []string{"snapshot", "--source-bootstrap-server", "127.0.0.1:1"}, code: exitError, stderr: "127.0.0.1:1"},
		{name: "unreachable names the hosts", args: []string{"snapshot", "--zookeeper", "127.0.0.1:1,127.0.0.1:2/kafka", "--zk-timeout", "1s"}, code: exitError,
			stderr: "migrate snapshot: zkconn: ZooKeeper at 127.0.0.1:1,127.0.0.1:2 refused the connection"},
		{name: "bad output", args: []string{"snapshot", "--snapshot", snap, "-o", "yaml"}, code: exitError, stderr: `-o "yaml"`},
		{name: "missing broker config", args: []string{"snapshot", "--snapshot", snap, "--broker-config", filepath.Join(dir, "nope.properties")}, code: exitError, stderr: "nope.properties"},
		{name: "broker config by reference", args: []string{"snapshot", "--snapshot", snap, "--broker-config", props, "-o", "json"}, code: exitOK,
			stdout: []string{`"file:` + props + `#ssl.keystore.password"`, `"file:` + props + `#password.encoder.secret"`, `"broker_id": "3"`, `"acl-store-elsewhere"`, `"encoder-secret-unused"`, `"value": "/data"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := runMigrate(t, c.args...)
			if code != c.code {
				t.Fatalf("exit %d, want %d; stderr %s", code, c.code, stderr)
			}
			if c.stderr != "" && (!strings.Contains(stderr, c.stderr) || strings.Count(stderr, "\n") != 1) {
				t.Errorf("stderr %q, want one line containing %q", stderr, c.stderr)
			}
			for _, w := range c.stdout {
				if !strings.Contains(stdout, w) {
					t.Errorf("stdout lacks %s", w)
				}
			}
			for _, secret := range []string{"enc-in-props", "kspw"} {
				if strings.Contains(stdout+stderr, secret) {
					t.Errorf("output contains %q", secret)
				}
			}
		})
	}
}

// TestSnapshotLive runs the command against the test bed: the encrypted
// password is resolved (counted) but never printed, and a missing chroot is
// a one-line error.
func TestSnapshotLive(t *testing.T) {
	addr := testbed.ZK(t)
	args := []string{"snapshot", "--zookeeper", addr}
	secretFile := os.Getenv("ZKM_TEST_ENCODER_SECRET_FILE")
	if secretFile != "" {
		args = append(args, "--password-encoder-secret-file", secretFile)
	}
	if p := os.Getenv("ZKM_TEST_SOURCE_SERVER_PROPS"); p != "" {
		args = append(args, "--broker-config", p)
	}
	code, stdout, stderr := runMigrate(t, args...)
	if code != exitOK || !strings.Contains(stdout, "ACLs   ") || secretFile != "" && !strings.Contains(stdout, "(1 resolved in memory)") {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	code, jsonOut, stderr := runMigrate(t, append(args, "-o", "json", "--full")...)
	if code != exitOK || strings.Contains(jsonOut, "kp-secret-1") || !strings.Contains(jsonOut, `"mode": "full"`) {
		t.Fatalf("json: exit %d, %s", code, stderr)
	}
	if secretFile != "" {
		b, _ := os.ReadFile(secretFile)
		if strings.Contains(jsonOut, strings.TrimSpace(string(b))) {
			t.Fatal("json contains the encoder secret")
		}
	}
	code, _, stderr = runMigrate(t, "snapshot", "--zookeeper", addr+"/zkmigrate-no-such-chroot")
	if code != exitError || !strings.Contains(stderr, "chroot /zkmigrate-no-such-chroot does not exist") {
		t.Fatalf("missing chroot: exit %d, %q", code, stderr)
	}
}
