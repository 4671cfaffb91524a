package render

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/buildinfo"
)

// TestViewFormats: each command's view has exactly the formats its -o
// lists, and refuses any other with an *OutputError naming them.
func TestViewFormats(t *testing.T) {
	formats := func(make func(Output) error) []Output {
		var got []Output
		for _, o := range []Output{Text, JSON, Markdown, CSV, "yaml"} {
			err := make(o)
			var oe *OutputError
			switch {
			case err == nil:
				got = append(got, o)
			case !errors.As(err, &oe) || oe.Output != o:
				t.Errorf("%s: %v, want an OutputError", o, err)
			}
		}
		return got
	}
	w := io.Discard
	for _, tt := range []struct {
		name string
		make func(Output) error
		want []Output
	}{
		{"version", func(o Output) error { _, err := VersionView(o, w); return err }, []Output{Text, JSON}},
		{"snapshot", func(o Output) error { _, err := SnapshotView(o, w); return err }, []Output{Text, JSON}},
		{"plan", func(o Output) error { _, err := PlanView(o, w, TextOptions{}); return err }, []Output{Text, JSON}},
		{"apply", func(o Output) error { _, err := NewApplyView(o, w, TextOptions{}, false, nil, false); return err }, []Output{Text, JSON}},
		{"sync", func(o Output) error { _, err := NewSyncView(o, w); return err }, []Output{Text, JSON}},
		{"check", func(o Output) error { _, err := CheckView(o, w, 0); return err }, []Output{Text, JSON, Markdown}},
		{"check --catalogue", func(o Output) error { _, err := CatalogueView(o, w); return err }, []Output{Text, JSON, Markdown}},
		{"policy test", func(o Output) error { _, err := PolicyTestView(o, w); return err }, []Output{Text, JSON}},
		{"bootstrap", func(o Output) error { _, err := BootstrapView(o, w); return err }, []Output{Text, JSON}},
		{"bootstrap --show", func(o Output) error { _, err := CheckpointView(o, w); return err }, []Output{Text, JSON}},
		{"audit log", func(o Output) error { _, err := AuditRunsView(o, w); return err }, []Output{Text, JSON}},
		{"audit show", func(o Output) error { _, err := AuditRunView(o, w); return err }, []Output{Text, JSON}},
		{"audit export", func(o Output) error { _, err := AuditExportView(o, w); return err }, []Output{JSON, CSV}},
		{"audit verify", func(o Output) error { _, err := AuditVerifyView(o, w); return err }, []Output{Text, JSON}},
		{"access diff", func(o Output) error { _, err := AccessView(o, w, 0); return err }, []Output{Text, JSON, Markdown}},
		{"access explain", func(o Output) error { _, err := ExplainView(o, w); return err }, []Output{Text, JSON}},
		{"access who", func(o Output) error { _, err := WhoView(o, w); return err }, []Output{Text, JSON}},
	} {
		if got := formats(tt.make); !slices.Equal(got, tt.want) {
			t.Errorf("%s: formats %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestViewWritesChosenFormat: a view made for one format writes that
// format, to the writer it was made with.
func TestViewWritesChosenFormat(t *testing.T) {
	info := buildinfo.Info{Version: "1.2.3", Commit: "abc", Date: "2026-01-01", Go: "go1.26"}
	for _, o := range []Output{Text, JSON} {
		var got, want bytes.Buffer
		v, err := VersionView(o, &got)
		if err != nil {
			t.Fatal(err)
		}
		if err := v(info); err != nil {
			t.Fatal(err)
		}
		if o == Text {
			_ = VersionText(&want, info)
		} else {
			_ = VersionJSON(&want, info)
		}
		if got.String() != want.String() {
			t.Errorf("%s: %q, want %q", o, got.String(), want.String())
		}
	}
}
