package render

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/zkmigrate/zkmigrate/internal/buildinfo"
)

// VersionText is `migrate version`: one line, as tools print it.
func VersionText(w io.Writer, i buildinfo.Info) error {
	parts := []string{"commit " + short(i.Commit)}
	if i.Dirty {
		parts = append(parts, "dirty")
	}
	parts = append(parts, "built "+i.Date, i.Go)
	if !i.Cgo {
		parts = append(parts, "without cgo")
	}
	_, err := fmt.Fprintf(w, "migrate %s (%s)\n", i.Version, strings.Join(parts, ", "))
	return err
}

// VersionJSON is `migrate version -o json`.
func VersionJSON(w io.Writer, i buildinfo.Info) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(i)
}

func short(commit string) string {
	if len(commit) > 12 {
		return commit[:12]
	}
	return commit
}
