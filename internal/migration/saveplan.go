package migration

import (
	"fmt"

	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/planfile"
	"github.com/zkmigrate/zkmigrate/internal/plansign"
)

// SavePlan saves p to path (plan --out, audit revert --out): with file,
// the encoding already made for the audit trail (Recorder.PlanFile), else
// encoded now and signed with key (nil: unsigned). Each side without a
// cluster id, which apply --plan refuses, is warned about through h.Warn
// first (a revert plan's source is the audit trail, which has none).
func SavePlan(path string, p *plan.Plan, file *planfile.Encoded, key *plansign.Key, h Hooks) error {
	for _, side := range []struct{ name, id string }{{"source", p.Source.ClusterID}, {"target", p.Target.ClusterID}} {
		if side.id == "" && (side.name == "target" || p.Reverts == nil) {
			h.warn(fmt.Errorf("warning: the %s has no cluster id, so apply --plan will refuse %s; apply without --plan instead", side.name, path))
		}
	}
	var err error
	if file != nil {
		err = file.Save(path, p)
	} else {
		err = planfile.WriteSigned(path, p, key)
	}
	if err != nil {
		return fmt.Errorf("save %s: %w", path, err)
	}
	h.phase("save")
	return nil
}
