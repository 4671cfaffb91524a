package migration

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/plan"
)

// TestSavePlan: a side without a cluster id is warned about (apply --plan
// will refuse the file), a revert plan's source never; the file is saved.
func TestSavePlan(t *testing.T) {
	for _, tt := range []struct {
		name     string
		src, tgt string
		reverts  bool
		want     []string
	}{
		{"both ids", "src", "tgt", false, nil},
		{"no ids", "", "", false, []string{"source", "target"}},
		{"revert without a source id", "", "tgt", true, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := &plan.Plan{}
			p.Source.ClusterID, p.Target.ClusterID = tt.src, tt.tgt
			if tt.reverts {
				p.Reverts = &plan.Reverts{Run: 1}
			}
			path := filepath.Join(t.TempDir(), "plan.zst")
			var warned []string
			h := Hooks{Warn: func(err error) { warned = append(warned, err.Error()) }}
			if err := SavePlan(path, p, nil, nil, h); err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, side := range tt.want {
				want = append(want, "warning: the "+side+" has no cluster id, so apply --plan will refuse "+path+"; apply without --plan instead")
			}
			if !reflect.DeepEqual(warned, want) {
				t.Errorf("warned %q, want %q", warned, want)
			}
			if st, err := os.Stat(path); err != nil || st.Size() == 0 {
				t.Errorf("nothing saved at %s: %v", path, err)
			}
		})
	}
}
