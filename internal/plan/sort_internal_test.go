package plan

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestSortChanges: the in-place index sort gives the order a plain sort of
// the changes gives, for inputs sorted, reversed and shuffled.
func TestSortChanges(t *testing.T) {
	order := func(x, y Change) int {
		return cmp.Or(cmp.Compare(kindIndex(x.Kind), kindIndex(y.Kind)), cmp.Compare(actionOrder[x.Action], actionOrder[y.Action]), strings.Compare(x.ID, y.ID))
	}
	actions := []Action{ActionCreate, ActionUpdate, ActionDelete, ActionNoOp, "unknown"}
	kinds := append(slices.Clone(Kinds), "unknown-kind")
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 3, 10, 257, 5000} {
		var cs []Change
		for i := range n {
			k := kinds[rng.IntN(len(kinds))]
			cs = append(cs, Change{Kind: k, Action: actions[rng.IntN(len(actions))], ID: fmt.Sprintf("%s:%05d", k, rng.IntN(n+1)), Notes: []string{fmt.Sprint(i)}})
		}
		want := slices.Clone(cs)
		slices.SortStableFunc(want, order)
		for name, in := range map[string][]Change{"shuffled": cs, "sorted": slices.Clone(want), "reversed": reversed(want)} {
			got := sortChanges(slices.Clone(in))
			if len(got) != len(want) {
				t.Fatalf("n=%d %s: %d changes, want %d", n, name, len(got), len(want))
			}
			for i := range got {
				if order(got[i], want[i]) != 0 {
					t.Fatalf("n=%d %s: change %d is %s, want %s", n, name, i, got[i].ID, want[i].ID)
				}
			}
			seen := map[string]int{}
			for _, c := range got {
				seen[c.Notes[0]]++
			}
			if len(seen) != n {
				t.Fatalf("n=%d %s: %d distinct changes after sorting, want %d (lost or duplicated)", n, name, len(seen), n)
			}
		}
	}
}

func reversed(cs []Change) []Change {
	out := slices.Clone(cs)
	slices.Reverse(out)
	return out
}
