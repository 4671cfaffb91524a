package main

import (
	"encoding/json"
	"runtime"
	"strings"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/buildinfo"
)

// TestVersion: text and JSON say the same build; the JSON carries the Go
// version and whether cgo was on; a stray argument is an error.
func TestVersion(t *testing.T) {
	code, out, errs := runMigrate(t, "version", "-o", "json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var info buildinfo.Info
	if err := json.Unmarshal([]byte(out), &info); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if info.Version != version || info.Go != runtime.Version() || !info.Cgo || info.Commit == "" || info.Date == "" {
		t.Errorf("version JSON %+v", info)
	}
	_, text, _ := runMigrate(t, "version")
	if want := "migrate " + version + " (commit " + info.Commit; !strings.HasPrefix(text, want) || !strings.Contains(text, runtime.Version()) {
		t.Errorf("version text %q, want it to start %q and name %s", text, want, runtime.Version())
	}
	if code, _, errs := runMigrate(t, "version", "extra"); code != exitError || !strings.Contains(errs, `unexpected argument "extra"`) {
		t.Errorf("version extra: exit %d, %q", code, errs)
	}
}
