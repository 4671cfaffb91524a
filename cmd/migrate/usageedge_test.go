package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// TestEdgeCaseUsageErrors: the edge cases of issue 30 item 5 each end the
// command with exit 1 and one line naming the flag (or file) at fault, and
// none records an audit run (the database is never created). Before, the
// target versions were accepted by plan, --zk-connections 0 and
// --zk-requests-in-flight 0 meant "the default" and -5 was a dial of 15 s,
// --zk-data-log-dir was blamed on --zk-data-dir, --zk-time 0001-01-01 read
// the newest state, sync without --yes off a terminal exited 0, and the
// rest were recorded as failed runs.
func TestEdgeCaseUsageErrors(t *testing.T) {
	dir := t.TempDir()
	src, _ := handmadeSnapshot(t)
	snap := filepath.Join(dir, "s.json")
	if err := snapshot.Save(snap, src); err != nil {
		t.Fatal(err)
	}
	offline := []string{"--snapshot", snap, "--target-snapshot", snap}
	zk := []string{"--zookeeper", "127.0.0.1:1", "--target-snapshot", snap}
	dataDir := filepath.Join("..", "..", "internal", "zkdisk", "testdata", "zk39")
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"plan target version 9.9", append([]string{"plan", "--target-version", "9.9"}, offline...), `--target-version "9.9": only Kafka 4.x`},
		{"plan target version empty", append([]string{"plan", "--target-version", ""}, offline...), `--target-version "": want a Kafka 4.x version`},
		{"plan target version 3.9", append([]string{"plan", "--target-version", "3.9"}, offline...), `--target-version "3.9": only Kafka 4.x`},
		{"plan target version banana", append([]string{"plan", "--target-version", "banana"}, offline...), `--target-version "banana": want a Kafka 4.x version`},
		{"apply target version banana", []string{"apply", "--target-version", "banana", "--snapshot", snap, "--bootstrap-server", "127.0.0.1:1"}, `--target-version "banana"`},
		{"check target version 9.9", []string{"check", "--snapshot", snap, "--target-version", "9.9"}, `--target-version "9.9": only Kafka 4.x`},
		{"check target version empty", []string{"check", "--snapshot", snap, "--target-version", ""}, `--target-version "": want a Kafka 4.x version`},
		{"check target version banana", []string{"check", "--snapshot", snap, "--target-version", "banana"}, `--target-version "banana"`},
		{"zk-connections 0", append([]string{"plan", "--zk-connections", "0"}, zk...), `--zk-connections "0": want 1 to 64`},
		{"zk-connections -5", append([]string{"plan", "--zk-connections", "-5"}, zk...), `--zk-connections "-5": want 1 to 64`},
		{"zk-requests-in-flight 0", append([]string{"plan", "--zk-requests-in-flight", "0"}, zk...), `--zk-requests-in-flight "0": want 1 to 4096`},
		{"zk-timeout -1s", append([]string{"plan", "--zk-timeout", "-1s"}, zk...), `--zk-timeout "-1s": want a positive duration`},
		{"zk-timeout 0s", append([]string{"snapshot", "--zk-timeout", "0s"}, zk[:2]...), `--zk-timeout "0s": want a positive duration`},
		{"bootstrap zk-timeout -1s", []string{"bootstrap", "--zookeeper", "127.0.0.1:1", "--zk-timeout", "-1s", "--metadata-dir", dir}, `--zk-timeout "-1s"`},
		{"zookeeper port 99999", []string{"plan", "--zookeeper", "127.0.0.1:99999", "--target-snapshot", snap}, `--zookeeper: connect string "127.0.0.1:99999": bad port`},
		{"command-config missing", []string{"plan", "--snapshot", snap, "--bootstrap-server", "127.0.0.1:1", "--command-config", "/nonexistent"}, "--command-config: properties file /nonexistent: no such file"},
		{"source-command-config missing", []string{"plan", "--source-bootstrap-server", "127.0.0.1:1", "--source-command-config", "/nonexistent", "--target-snapshot", snap}, "--source-command-config: properties file /nonexistent"},
		{"zk-data-log-dir missing", []string{"plan", "--zk-data-dir", dataDir, "--zk-data-log-dir", "/nonexistent", "--target-snapshot", snap}, "--zk-data-log-dir: /nonexistent: no such file"},
		{"bootstrap zk-data-log-dir missing", []string{"bootstrap", "--zk-data-dir", dataDir, "--zk-data-log-dir", "/nonexistent", "--metadata-dir", dir}, "--zk-data-log-dir: /nonexistent"},
		{"zk-data-dir missing", []string{"plan", "--zk-data-dir", "/nonexistent", "--target-snapshot", snap}, "--zk-data-dir: /nonexistent: no such file"},
		{"sync without --yes off a terminal", []string{"sync", "--zookeeper", "127.0.0.1:1", "--bootstrap-server", "127.0.0.1:2"}, "refusing to sync without confirmation: not a terminal; pass --yes"},
		{"version extra", []string{"version", "extra"}, `unexpected argument "extra"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "audit.db")
			args := tc.args
			if args[0] != "version" {
				args = append(args, "--audit-db", db)
			}
			code, out, errs := runMigrate(t, args...)
			lines := strings.Split(strings.TrimSpace(errs), "\n")
			if code != exitError || len(lines) != 1 || !strings.Contains(errs, tc.want) {
				t.Errorf("exit %d, stderr %q, stdout %.200q; want exit 1 and one line saying %q", code, errs, out, tc.want)
			}
			if _, err := os.Stat(db); err == nil {
				t.Errorf("the usage error was recorded as an audit run in %s", db)
			}
		})
	}
}

// TestZKTimeBeforeHistory: --zk-time before every transaction a data
// directory holds is the state before them, never the newest: Go's zero
// time (0001-01-01) used to mean "no time given" and read the newest.
func TestZKTimeBeforeHistory(t *testing.T) {
	for _, d := range []string{"zk34", "zk39", "datadir", "compressed"} {
		t.Run(d, func(t *testing.T) {
			dataDir := filepath.Join("..", "..", "internal", "zkdisk", "testdata", d)
			code, out, errs := runMigrate(t, "snapshot", "--zk-data-dir", dataDir, "--zk-time", "0001-01-01")
			lines := strings.Split(strings.TrimSpace(errs), "\n")
			if code != exitError || len(lines) != 1 || !strings.Contains(errs, "--zk-time") {
				t.Errorf("exit %d, stderr %q, stdout %.200q; want exit 1 and one line naming --zk-time", code, errs, out)
			}
		})
	}
}
