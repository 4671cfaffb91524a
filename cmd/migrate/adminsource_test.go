package main

import (
	"strings"
	"testing"
)

// TestProtocolSourceUsage: --source-bootstrap-server is refused where it
// cannot work, with the flags named, before anything is read.
func TestProtocolSourceUsage(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"sync", "--zookeeper", "127.0.0.1:1", "--poll-every", "5s", "--bootstrap-server", "127.0.0.1:2"}, "migrate sync: --poll-every is for --source-bootstrap-server (a source without a change feed); --zookeeper is followed through its change feed, with --principal-map too"},
		{[]string{"sync", "--zookeeper", "127.0.0.1:1", "--principal-map", "map.properties", "--poll-every", "5s", "--bootstrap-server", "127.0.0.1:2"}, "migrate sync: --poll-every is for --source-bootstrap-server (a source without a change feed); --zookeeper is followed through its change feed, with --principal-map too"},
		{[]string{"sync", "--source-bootstrap-server", "127.0.0.1:1", "--poll-every", "500ms", "--bootstrap-server", "127.0.0.1:2"}, "migrate sync: --poll-every 500ms: want at least 1s"},
		{[]string{"sync", "--source-bootstrap-server", "127.0.0.1:1", "--zookeeper", "127.0.0.1:3", "--bootstrap-server", "127.0.0.1:2"}, "migrate sync: give one source: --zookeeper and --source-bootstrap-server are mutually exclusive"},
		{[]string{"check", "--zookeeper", "h:1", "--source-bootstrap-server", "h:2", "--snapshot", "s.json"}, "migrate check: give one source: --zookeeper and --source-bootstrap-server and --snapshot are mutually exclusive"},
		{[]string{"check", "--zk-data-dir", "d", "--source-bootstrap-server", "h:2"}, "migrate check: give one source: --zk-data-dir and --source-bootstrap-server are mutually exclusive"},
		{[]string{"plan", "--zookeeper", "h:1", "--source-bootstrap-server", "h:2", "--bootstrap-server", "h:3"}, "migrate plan: give one source: --zookeeper and --source-bootstrap-server are mutually exclusive"},
		{[]string{"snapshot", "--source-bootstrap-server", "h:2", "--zk-auth", "@zk-auth.txt"}, "migrate snapshot: --zk-auth is for --zookeeper; a source read through --source-bootstrap-server takes its credentials from --source-command-config"},
		{[]string{"snapshot", "--source-bootstrap-server", "h:2", "--zk-tls-config-file", "zk.properties"}, "migrate snapshot: --zk-tls-config-file is for --zookeeper"},
		{[]string{"apply", "--plan", "p.json", "--bootstrap-server", "h:3"}, "migrate apply: apply --plan p.json needs the source it was planned from (--zookeeper, --zk-data-dir, --source-bootstrap-server or --snapshot)"},
	} {
		t.Run(strings.Join(tt.args[:2], " "), func(t *testing.T) {
			code, out, errs := runMigrate(t, tt.args...)
			if code != exitError || out != "" || !strings.HasPrefix(errs, tt.want) || strings.Count(errs, "\n") != 1 {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 1 and one line starting %q", code, out, errs, tt.want)
			}
		})
	}
}
