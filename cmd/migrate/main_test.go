package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// runMigrate runs the CLI in-process, as a user would, and returns the exit
// code and both streams.
func runMigrate(t testing.TB, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, strings.NewReader(""), &out, &errb, false)
	return code, out.String(), errb.String()
}
