package migration

import (
	"fmt"

	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/principalmap"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// LoadPrincipalMap loads a principal map file (--principal-map); "" loads
// none (nil).
func LoadPrincipalMap(path string) (*principalmap.Map, error) {
	if path == "" {
		return nil, nil
	}
	return principalmap.Load(path)
}

// PrincipalMapError refuses a saved plan whose source was mapped with a
// principal map when that map is not given again (Given == ""), or when
// another one is, or a map given to a plan made without one.
type PrincipalMapError struct {
	PlanFile    string
	Planned     string // the digest the plan records ("" none)
	Given       string // the map file given now ("" none)
	GivenDigest string
}

func (e *PrincipalMapError) Error() string {
	switch {
	case e.Given == "":
		return fmt.Sprintf("%s was planned with a principal map (%s), and none was given to map the source with again", e.PlanFile, e.Planned)
	case e.Planned == "":
		return fmt.Sprintf("%s was planned without a principal map, and %s was given", e.PlanFile, e.Given)
	}
	return fmt.Sprintf("principal map %s (%s) is not the map %s was planned with (%s)", e.Given, e.GivenDigest, e.PlanFile, e.Planned)
}

// checkPrincipalMap refuses a saved plan and a map that do not belong
// together.
func checkPrincipalMap(planFile string, saved plan.Options, pm *principalmap.Map) error {
	given, path := "", ""
	if pm != nil {
		given, path = pm.Digest(), pm.Path()
	}
	if saved.PrincipalMap != given {
		return &PrincipalMapError{PlanFile: planFile, Planned: saved.PrincipalMap, Given: path, GivenDigest: given}
	}
	return nil
}

// MapSource is the source as a plan sees it with pm (nil: src itself): its
// principals mapped (principalmap.ApplySnapshot, whose findings travel in
// the mapped snapshot) and the map's collisions as blockers (BuildPlan's
// plan.Input.Blockers).
func MapSource(pm *principalmap.Map, src *snapshot.Snapshot) (*snapshot.Snapshot, []plan.Blocker) {
	if pm == nil {
		return src, nil
	}
	out, res := pm.ApplySnapshot(src)
	var blockers []plan.Blocker
	for _, c := range res.Collisions {
		kind := plan.KindQuota
		if c.Scram {
			kind = plan.KindScramUser
		}
		blockers = append(blockers, plan.Blocker{ID: c.Finding.ID, Kind: kind, Resource: c.Finding.Resource, Reason: c.Finding.Message, Fix: c.Finding.Fix})
	}
	return out, blockers
}

// MapForCheck is the source as check audits it with pm (nil: src itself):
// its principals mapped as a plan maps them, the map's collisions among
// its findings (check reports the map's findings as ACL-PRINCIPAL-MAP).
func MapForCheck(pm *principalmap.Map, src *snapshot.Snapshot) *snapshot.Snapshot {
	if pm == nil {
		return src
	}
	out, res := pm.ApplySnapshot(src)
	for _, c := range res.Collisions {
		out.Findings = append(out.Findings, c.Finding)
	}
	return out
}
