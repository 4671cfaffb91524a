package render

import "github.com/zkmigrate/zkmigrate/internal/english"

// N is english.N, kept for the command's own messages (cmd/migrate counts
// with render.N); new code counts with english.N.
func N(n int, noun string, plural ...string) string { return english.N(n, noun, plural...) }
