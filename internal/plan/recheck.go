package plan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/zkmigrate/zkmigrate/internal/english"
	"github.com/zkmigrate/zkmigrate/internal/secret"
)

// UnjustifiedError refuses a saved plan whose changes the current source
// does not justify. Nothing was sent.
type UnjustifiedError struct {
	Changes []string // "<change id>: why"
	// By is what justifies the plan (nil: the current source).
	By *Justifier
}

func (e *UnjustifiedError) Error() string {
	n := len(e.Changes)
	more := ""
	if n > 5 {
		more = fmt.Sprintf(" (and %d more)", n-5)
	}
	by := e.By.orSource()
	return fmt.Sprintf("%s of the saved plan %s not what %s would plan: %s%s; nothing was sent; %s",
		english.N(n, "change"), english.Agree(n, "is", "are"), by.Name, strings.Join(e.Changes[:min(n, 5)], "; "), more, by.Again)
}

// Justifier names what justifies a saved plan, for RecheckChanges'
// refusals: the current source (a plan), or a run's audit record (a
// revert plan).
type Justifier struct {
	Name  string // "the current source"
	Plans string // how it is said to plan a change: "the source plans"
	Again string // what to do instead: "re-run plan and review it"
}

// BySource is the justifier of an ordinary saved plan.
var BySource = &Justifier{Name: "the current source", Plans: "the source plans", Again: "re-run plan and review it"}

func (j *Justifier) orSource() *Justifier {
	if j == nil {
		return BySource
	}
	return j
}

// Recheck decides whether a saved plan may be applied now. fresh is the plan
// that the source and target read now give with the saved plan's options
// (Build with saved.Options), target the target read now. It refuses:
//   - a plan that records no source or no target cluster id, or ids other
//     than those of the source and target read now;
//   - a change that fresh does not hold identically (same id, kind, action,
//     resource and after-state, secrets compared by reference), unless
//     the target already shows it done (then apply sends nothing for it).
//
// The before-states are not compared here: apply's staleness rule checks
// them against the target. Recheck is a pure function.
func Recheck(saved, fresh *Plan, target *Target) error {
	for _, side := range []struct {
		name       string
		saved, now Endpoint
		made       string
	}{
		{"source", saved.Source, fresh.Source, "made from"},
		{"target", saved.Target, fresh.Target, "made against"},
	} {
		switch {
		case side.saved.ClusterID == "":
			return fmt.Errorf("the plan records no %s cluster id, so it cannot be checked against the %s; re-run plan", side.name, side.name)
		case side.now.ClusterID == "":
			return fmt.Errorf("the %s %s reports no cluster id, so it cannot be the %s cluster %s the plan was made for", side.name, orUnnamed(side.now.Address), side.name, side.saved.ClusterID)
		case side.now.ClusterID != side.saved.ClusterID:
			return &EndpointError{Side: side.name, Msg: fmt.Sprintf("the plan was made for %s cluster %s, but the %s given now (%s) is cluster %s; give the %s the plan was %s",
				side.name, side.saved.ClusterID, side.name, orUnnamed(side.now.Address), side.now.ClusterID, side.name, side.made)}
		}
	}
	return RecheckChanges(saved, fresh, target, BySource)
}

// RecheckChanges is Recheck without the endpoints: every saved change must
// be in fresh identically (same id, kind, action, resource and after-state,
// secrets compared by reference) or already done on target, else an
// *UnjustifiedError names it, worded after by. A revert plan is checked
// this way against the revert built again from its run's audit record.
func RecheckChanges(saved, fresh *Plan, target *Target, by *Justifier) error {
	by = by.orSource()
	byID := make(map[string]*Change, len(fresh.Changes))
	for i := range fresh.Changes {
		byID[fresh.Changes[i].ID] = &fresh.Changes[i]
	}
	blocked := map[string]string{}
	for _, b := range fresh.Blockers {
		if b.Change != nil {
			blocked[b.Change.ID] = b.Reason
		}
	}
	var bad []string
	for i := range saved.Changes {
		c := &saved.Changes[i]
		if st, _ := target.Check(c); st == Done {
			continue
		}
		f, ok := byID[c.ID]
		switch {
		case !ok && blocked[c.ID] != "":
			bad = append(bad, c.ID+": blocked now: "+blocked[c.ID])
		case !ok:
			bad = append(bad, c.ID+": "+by.Name+" would not plan this change")
		default:
			if why := differs(c, f, by.Plans); why != "" {
				bad = append(bad, c.ID+": "+why)
			}
		}
	}
	if len(bad) > 0 {
		return &UnjustifiedError{Changes: bad, By: by}
	}
	return nil
}

// EndpointError refuses a saved plan made for another source or target
// cluster than the one given now. Side is "source" or "target"; a command
// names the options that choose it.
type EndpointError struct {
	Side string
	Msg  string
}

func (e *EndpointError) Error() string { return e.Msg }

func orUnnamed(addr string) string {
	if addr == "" {
		return "(no address)"
	}
	return addr
}

// differs says how a saved change differs from the one planned now
// (plans says who plans it), or "" when they are the same change.
func differs(saved, now *Change, plans string) string {
	switch {
	case saved.Kind != now.Kind:
		return fmt.Sprintf("kind %s, %s %s", saved.Kind, plans, now.Kind)
	case saved.Action != now.Action:
		return fmt.Sprintf("action %s, %s %s", saved.Action, plans, now.Action)
	case !sameJSON(saved.Resource, now.Resource):
		return "its resource is not the one " + plans
	case !sameJSON(saved.After, now.After):
		return fmt.Sprintf("after-state %s, %s %s", describe(saved.After), plans, describe(now.After))
	}
	return ""
}

// sameJSON compares two values by their JSON encodings (secrets by
// reference: a Secret encodes its reference only).
func sameJSON(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}

// Secrets indexes the secret values a plan built now holds in memory, by
// change and key, so that a saved plan's reference resolves only into the
// resource and key it was planned for: a SCRAM password only into that
// user's credential for that mechanism, a broker password only into the
// same broker's same key.
type Secrets struct {
	m map[[2]string]secret.Secret
}

// ScramKey is the key under which Secrets holds a SCRAM credential's
// password.
const ScramKey = ""

// SecretsOf indexes the secrets p's changes carry.
func SecretsOf(p *Plan) *Secrets {
	s := &Secrets{m: map[[2]string]secret.Secret{}}
	EachSecret(p, func(at SecretSite) {
		switch {
		case at.Blocked || !at.After:
		case at.Password != nil:
			s.m[[2]string{at.Change.ID, ScramKey}] = *at.Password
		case at.Config.Sensitive && at.Config.Secret != nil:
			s.m[[2]string{at.Change.ID, at.Config.Key}] = *at.Config.Secret
		}
	})
	return s
}

// Resolve returns the value of the secret ref for key (ScramKey for a
// SCRAM password) of the change changeID, when the plan built now holds
// that very reference there with its value.
func (s *Secrets) Resolve(changeID, key, ref string) (string, bool) {
	if s == nil {
		return "", false
	}
	sec, ok := s.m[[2]string{changeID, key}]
	if !ok || sec.Ref() != ref {
		return "", false
	}
	return sec.Reveal()
}

// Values returns every secret value held, for scrubbing them from records.
func (s *Secrets) Values() []string {
	if s == nil {
		return nil
	}
	var out []string
	for _, sec := range s.m {
		if v, ok := sec.Reveal(); ok && v != "" {
			out = append(out, v)
		}
	}
	return out
}
