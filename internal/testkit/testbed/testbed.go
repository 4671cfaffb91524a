// Package testbed gives tests the addresses and files of the real test bed
// started by testbed/testbed.sh (make test does it): a ZooKeeper server, two
// Kafka 3.9 brokers in ZooKeeper mode (the source, ids 1 and 2) and a
// two-node Kafka 4.1 KRaft cluster (the target, nodes 1 and 2), all on
// 127.0.0.1.
//
// Each helper reads an environment variable (testbed.sh env prints them). When
// it is unset the test is skipped, unless the environment variable CI is set:
// then it fails, because CI always starts the servers.
package testbed

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Environment variables the helpers read.
const (
	EnvZK               = "ZKM_TEST_ZK"                // ZooKeeper host:port of the source cluster
	EnvSourceBootstrap  = "ZKM_TEST_SOURCE_BOOTSTRAP"  // Kafka 3.9 broker 1, SASL_PLAINTEXT + SCRAM-SHA-256
	EnvTargetBootstrap  = "ZKM_TEST_TARGET_BOOTSTRAP"  // Kafka 4.1 KRaft node 1 (controller + broker), SASL_PLAINTEXT + SCRAM-SHA-256
	EnvTarget1Bootstrap = "ZKM_TEST_TARGET1_BOOTSTRAP" // Kafka 4.1 KRaft node 2 (broker)
	EnvDir              = "ZKM_TESTBED_DIR"            // the test bed's state dir (client properties, secrets file, logs)
	EnvZKDataDir        = "ZKM_TEST_ZK_DATA_DIR"       // the source ZooKeeper's dataDir (its snapshots and transaction logs)
	EnvLib39            = "ZKM_TEST_LIB39"             // the Kafka 3.9.1 jars (testbed.sh fetch)
	EnvLib41            = "ZKM_TEST_LIB41"             // the Kafka 4.1.1 jars
)

// The test bed's super user on both clusters. Test values only.
const (
	AdminUser     = "admin"
	AdminPassword = "admin-secret"
)

// get returns the variable's value, or skips (fails under CI) when it is unset.
func get(t testing.TB, name string) string {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is not set, but CI is: CI must start the test bed (make test)", name)
		}
		t.Skipf("%s not set; start the test bed: make testbed-up testbed-legacy && eval \"$(testbed/testbed.sh env)\"", name)
	}
	return v
}

// file returns a file in the state dir, or skips (fails under CI) when the
// dir is unset or the file does not exist.
func file(t testing.TB, name, hint string) string {
	t.Helper()
	p := filepath.Join(Dir(t), name)
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("testbed: %s is missing (%s)", p, hint)
		}
		t.Skipf("testbed: %s is missing (%s)", p, hint)
	}
	return p
}

// ZK returns the source cluster's ZooKeeper address, host:port.
func ZK(t testing.TB) string { t.Helper(); return get(t, EnvZK) }

// ZKDataDir returns the source ZooKeeper's dataDir, read offline by tests
// of the --zk-data-dir source (never written).
func ZKDataDir(t testing.TB) string { t.Helper(); return get(t, EnvZKDataDir) }

// SourceBootstrap returns the address of the Kafka 3.9 source's broker 1.
func SourceBootstrap(t testing.TB) string { t.Helper(); return get(t, EnvSourceBootstrap) }

// TargetBootstrap returns the address of the Kafka 4.1 target's node 1.
func TargetBootstrap(t testing.TB) string { t.Helper(); return get(t, EnvTargetBootstrap) }

// Target1Bootstrap returns the address of the Kafka 4.1 target's node 2.
func Target1Bootstrap(t testing.TB) string { t.Helper(); return get(t, EnvTarget1Bootstrap) }

// Lib39 returns the directory of the Kafka 3.9.1 jars (kafka_2.13 with
// its runtime classpath: AclAuthorizer, ZooKeeper, StandardAuthorizer
// 3.9.1), for tests that run Kafka's own classes in a JVM.
func Lib39(t testing.TB) string { t.Helper(); return get(t, EnvLib39) }

// Lib41 returns the directory of the Kafka 4.1.1 jars.
func Lib41(t testing.TB) string { t.Helper(); return get(t, EnvLib41) }

// Dir returns the test bed's state dir.
func Dir(t testing.TB) string { t.Helper(); return get(t, EnvDir) }

// SourceClientProps returns the path of the client properties file (SCRAM as
// AdminUser) for the source cluster, as Kafka's --command-config reads it.
func SourceClientProps(t testing.TB) string {
	t.Helper()
	return file(t, "source-client.properties", "testbed.sh start writes it")
}

// TargetClientProps returns the path of the client properties file for the target.
func TargetClientProps(t testing.TB) string {
	t.Helper()
	return file(t, "target-client.properties", "testbed.sh start writes it")
}

// SourceServerProps returns the path of the source broker's server.properties.
func SourceServerProps(t testing.TB) string {
	t.Helper()
	return file(t, filepath.Join("conf", "source.properties"), "testbed.sh start source writes it")
}

// TargetServerProps returns the path of the target's node 1's
// server.properties (controller and broker: its super.users and
// allow.everyone.if.no.acl.found are both roles').
func TargetServerProps(t testing.TB) string {
	t.Helper()
	return file(t, filepath.Join("conf", "target.properties"), "testbed.sh start target writes it")
}

// EncoderSecretFile returns the path of the file holding the source broker's
// password.encoder.secret.
func EncoderSecretFile(t testing.TB) string {
	t.Helper()
	return file(t, "encoder.secret", "testbed.sh start writes it")
}

// LegacyCredentialsFile returns the path of the SCRAM credentials file written
// with the legacy state: [{"user","mechanism","password","iterations"}], the
// format of --scram-credentials. User carol is deliberately not in it.
func LegacyCredentialsFile(t testing.TB) string {
	t.Helper()
	return file(t, "scram-credentials.json", "testbed.sh legacy writes it")
}

// Script returns the path of testbed/testbed.sh in this repository.
func Script() string {
	_, self, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(self), "..", "..", "..", "testbed", "testbed.sh")
}

// run calls testbed.sh on the state dir the tests were given.
func run(t testing.TB, args ...string) {
	t.Helper()
	dir := Dir(t)
	cmd := exec.Command("bash", append([]string{Script()}, args...)...)
	cmd.Env = append(os.Environ(), "TESTBED_DIR="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("testbed.sh %v: %v\n%s", args, err, out)
	}
	t.Logf("testbed.sh %v:\n%s", args, out)
}

// KillTarget kills the target's node 1 (the controller) with SIGKILL (a crash, for fault tests).
// The target is started again when the test ends (if the test has not done
// so), so later tests find it running.
func KillTarget(t testing.TB) {
	t.Helper()
	run(t, "kill", "target")
	t.Cleanup(func() { run(t, "start", "target") })
}

// StartTarget starts the target's nodes on their existing data and waits until they
// is ready. It does nothing if the node is running.
func StartTarget(t testing.TB) { t.Helper(); run(t, "start", "target") }

// RestartTarget stops the target's node 1 with SIGTERM, starts it again on the
// same data and waits until it is ready.
func RestartTarget(t testing.TB) { t.Helper(); run(t, "restart", "target") }

// RestartZK kills the shared ZooKeeper (SIGKILL: only it, the 3.9 brokers
// keep running) and starts it again on the same data (znodes and sessions
// kept: the brokers reconnect), and waits until it answers. Every client
// of it sees its connection drop. ("testbed.sh restart zk" would stop the
// brokers too: they need ZooKeeper to shut down.)
func RestartZK(t testing.TB) {
	t.Helper()
	t.Cleanup(func() { run(t, "start", "zk") }) // a no-op when it is running
	run(t, "kill", "zk")
	run(t, "start", "zk")
}

// ResetTarget replaces the target cluster with an empty one (new cluster id,
// only AdminUser) and waits until it is ready. Other packages' tests share the
// target, so use it only where a test needs the target empty.
func ResetTarget(t testing.TB) { t.Helper(); run(t, "reset", "target") }

// Fresh is the fresh target: a single-node Kafka 4.1 KRaft cluster
// (controller and broker, SASL_PLAINTEXT + SCRAM like the target) on its
// own ports, formatted with only AdminUser and never started.
type Fresh struct {
	MetadataDir string // the metadata log dir: meta.properties, bootstrap.checkpoint
	Bootstrap   string // host:port of its SASL_PLAINTEXT listener
}

// FormatFresh stops the fresh target if it runs, wipes it and formats it
// with a new cluster id (testbed.sh fresh-target format). It is stopped
// again when the test ends.
func FormatFresh(t testing.TB) Fresh {
	t.Helper()
	out := runOut(t, "fresh-target", "format")
	var f Fresh
	for _, line := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(line, "metadata_dir="); ok {
			f.MetadataDir = v
		}
		if v, ok := strings.CutPrefix(line, "bootstrap="); ok {
			f.Bootstrap = v
		}
	}
	if f.MetadataDir == "" || f.Bootstrap == "" {
		t.Fatalf("testbed.sh fresh-target format printed no metadata_dir and bootstrap:\n%s", out)
	}
	t.Cleanup(func() { run(t, "fresh-target", "stop") })
	return f
}

// StartFresh starts the fresh target on its data and waits until it is
// ready.
func StartFresh(t testing.TB) { t.Helper(); run(t, "fresh-target", "start") }

// runOut is run returning testbed.sh's standard output.
func runOut(t testing.TB, args ...string) string {
	t.Helper()
	dir := Dir(t)
	cmd := exec.Command("bash", append([]string{Script()}, args...)...)
	cmd.Env = append(os.Environ(), "TESTBED_DIR="+dir)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("testbed.sh %v: %v\n%s%s", args, err, out, stderr.String())
	}
	t.Logf("testbed.sh %v:\n%s", args, stderr.String())
	return string(out)
}

// OldReleases names the old Kafka releases whose legacy state testbed.sh
// old writes, each with the release's own tools in its own chroot of the
// test ZooKeeper (/kafka011 ...), oldest first: 0.11.0.3, 1.1.1, 2.4.1, 2.8.2.
var OldReleases = []string{"kafka011", "kafka11", "kafka24", "kafka28"}

// OldSource is the legacy state one old release wrote (its brokers are
// stopped afterwards: only ZooKeeper holds it).
type OldSource struct {
	Name          string // "kafka28"
	ZK            string // host:port/chroot
	ServerProps   string // broker 1's server.properties
	Credentials   string // the known SCRAM passwords, the format of --scram-credentials (carol's is left out)
	EncoderSecret string // the file holding password.encoder.secret; "" for 0.11 (no dynamic broker passwords)
}

// Old returns the legacy state of an old release, or skips (fails under
// CI) when testbed.sh old has not written it.
func Old(t testing.TB, name string) OldSource {
	t.Helper()
	dir := filepath.Join("old", name)
	file(t, filepath.Join(dir, "done"), "testbed.sh old "+name+" writes it")
	o := OldSource{Name: name, ZK: ZK(t) + "/" + name, ServerProps: file(t, filepath.Join(dir, "server.properties"), "testbed.sh old writes it"),
		Credentials: file(t, filepath.Join(dir, "scram-credentials.json"), "testbed.sh old writes it")}
	if name != "kafka011" {
		o.EncoderSecret = file(t, filepath.Join(dir, "encoder.secret"), "testbed.sh old writes it")
	}
	return o
}

// SourceArgs are the migrate flags that read it.
func (o OldSource) SourceArgs() []string {
	args := []string{"--zookeeper", o.ZK, "--broker-config", o.ServerProps}
	if o.EncoderSecret != "" {
		args = append(args, "--password-encoder-secret-file", o.EncoderSecret)
	}
	return args
}
