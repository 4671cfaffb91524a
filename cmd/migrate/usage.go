package main

import (
	"embed"
)

// The commands' help texts (the part of --help above the flags: usage
// lines, what the command does, exit codes) are documents, kept in
// usage/*.txt; testdata/help holds every --help as the user sees it.
//
//go:embed usage/*.txt
var usageFiles embed.FS

// usageText is the help text usage/name.txt.
func usageText(name string) string {
	b, err := usageFiles.ReadFile("usage/" + name + ".txt")
	if err != nil {
		panic("usage text " + name + ": " + err.Error()) // a file left out of the build
	}
	return string(b)
}
