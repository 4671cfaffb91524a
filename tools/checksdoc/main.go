// Command gen writes docs/checks.md from the check catalogue:
//
//	go run ./tools/checksdoc            # writes docs/checks.md
//	go run ./tools/checksdoc -o FILE    # writes FILE ("-" for stdout)
//
// internal/render's TestDocsChecksCurrent fails when the checked-in file differs.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"

	"github.com/zkmigrate/zkmigrate/internal/render"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

func main() {
	out := flag.String("o", "docs/checks.md", "output file, - for stdout")
	flag.Parse()
	var buf bytes.Buffer
	if err := render.CatalogueMarkdown(&buf); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	if *out == "-" {
		os.Stdout.Write(buf.Bytes())
		return
	}
	if err := snapshot.WriteFileAtomic(*out, buf.Bytes(), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
