package zkconn

import (
	"slices"
	"testing"
)

// namedHosts hands out every server once per round, as written (no
// resolving), and says when a round without a connection ends.
func TestNamedHosts(t *testing.T) {
	in := []string{"zk1.example.com:2181", "zk2.example.com:2181", "zk3.example.com:2181"}
	h := &namedHosts{}
	if err := h.Init(in); err != nil || h.Len() != 3 {
		t.Fatalf("Init: %v, Len %d", err, h.Len())
	}
	var round []string
	for i := range 3 {
		s, retry := h.Next()
		if retry {
			t.Fatalf("retryStart on server %d of the first round", i+1)
		}
		round = append(round, s)
	}
	slices.Sort(round)
	if !slices.Equal(round, in) {
		t.Fatalf("first round %v, want each of %v once, by name", round, in)
	}
	if _, retry := h.Next(); !retry {
		t.Fatal("no retryStart after a round without a connection")
	}
	h.Connected() // connected to the 1st of the new round
	for i := range 2 {
		if _, retry := h.Next(); retry {
			t.Fatalf("retryStart %d server(s) after a connection", i+1)
		}
	}
	if _, retry := h.Next(); !retry {
		t.Fatal("no retryStart when the round came back to the connected server")
	}
}
