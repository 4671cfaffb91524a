package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestSyncFlagErrors: sync's flag errors stop it with exit 1 and a message
// naming the flag, before anything is dialled (the addresses below would
// hang or fail differently if they were).
func TestSyncFlagErrors(t *testing.T) {
	base := []string{"sync", "--zookeeper", "127.0.0.1:1", "--bootstrap-server", "127.0.0.1:1"}
	cases := []struct {
		name string
		args []string
		tty  bool
		want string
	}{
		{"interactive without a terminal", []string{"--interactive"}, false, "--interactive needs a terminal"},
		{"exit-on-change without freeze", []string{"--exit-on-change"}, true, "--exit-on-change needs --freeze"},
		{"short reconcile", []string{"--reconcile-every", "10ms"}, true, "--reconcile-every 10ms"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(context.Background(), append(base, tc.args...), strings.NewReader(""), &out, &errb, tc.tty)
			if code != exitError || !strings.Contains(errb.String(), tc.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, errb.String(), exitError, tc.want)
			}
		})
	}
}
