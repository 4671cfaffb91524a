// Package buildinfo says which build of migrate is running: its version,
// the commit it was built from (and whether the tree had uncommitted
// changes), when, and with which Go. The VCS facts come from what the Go
// toolchain stamps into the binary (runtime/debug.ReadBuildInfo); a
// release overrides any of them with -ldflags "-X".
package buildinfo

import (
	"runtime"
	"runtime/debug"
)

// Info describes one build.
type Info struct {
	Version string `json:"version"`
	Commit  string `json:"commit"`           // "unknown" when the binary carries none
	Dirty   bool   `json:"dirty"`            // built from a tree with uncommitted changes
	Date    string `json:"date"`             // the build date given at release, else the commit's time (RFC 3339); "unknown"
	Go      string `json:"go"`               // the Go toolchain, e.g. "go1.26.8"
	Cgo     bool   `json:"cgo"`              // built with cgo (the audit trail needs it)
	Module  string `json:"module,omitempty"` // the main module's path
}

// Read returns this binary's Info. version, commit and date, when not
// empty, win over what the toolchain stamped (release builds set them).
func Read(version, commit, date string) Info {
	info := Info{Version: version, Commit: commit, Date: date, Go: runtime.Version()}
	bi, ok := debug.ReadBuildInfo()
	if ok {
		info.Module = bi.Main.Path
		if info.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			info.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				if commit == "" {
					info.Commit = s.Value
				}
			case "vcs.modified":
				info.Dirty = s.Value == "true"
			case "vcs.time":
				if date == "" {
					info.Date = s.Value
				}
			case "CGO_ENABLED":
				info.Cgo = s.Value == "1"
			}
		}
	}
	for _, f := range []*string{&info.Version, &info.Commit, &info.Date} {
		if *f == "" {
			*f = "unknown"
		}
	}
	return info
}
