package main

import (
	"strings"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/access"
)

// The plan's access proof is on screen in the interactive review: every
// cause the operator did not accept is a line of the notes, escaped, and no
// proof means no notes.
func TestAccessNotes(t *testing.T) {
	if n := accessNotes(nil); n != nil {
		t.Fatalf("no proof: notes %q", n)
	}
	r := &access.Result{Verdict: access.Differences, Classes: 40, Differing: 7, Accepted: 2, Groups: []access.Group{
		{ID: "ACCESS-0000000001", Kind: "super-user", Cause: "User:ANONYMOUS is a super user on the target only", Classes: 5},
		{ID: "ACCESS-0000000002", Kind: "acl", Cause: "Group:* read \x1b[2J", Classes: 2, Accepted: true},
	}}
	notes := accessNotes(r)
	all := strings.Join(notes, "\n")
	for _, want := range []string{"Access: NOT equivalent", "[ACCESS-0000000001] User:ANONYMOUS is a super user on the target only"} {
		if !strings.Contains(all, want) {
			t.Errorf("notes lack %q:\n%s", want, all)
		}
	}
	if strings.Contains(all, "ACCESS-0000000002") || strings.Contains(all, "\x1b") {
		t.Errorf("notes show an accepted cause or a raw ESC:\n%q", all)
	}
	for _, n := range notes {
		if n == "" || strings.Contains(n, "\n") {
			t.Errorf("note %q: one non-empty line each", n)
		}
	}
}
