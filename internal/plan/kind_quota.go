package plan

import (
	"maps"
	"slices"
	"strconv"

	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// quota: client quotas of one entity, only the keys that differ.
// KindQuota is a change to a client quota entity's values.
const KindQuota Kind = "quota"

var quotaSpec = &spec{
	kind: KindQuota,
	valid: func(c *Change) string {
		if why := needsBefore(c); why != "" {
			return why
		}
		if len(c.Resource.Entity) == 0 {
			return "no quota entity"
		}
		return ""
	},
	resource: "quota",
	build:    func(b *builder) error { b.quotas(); return nil },
	observe: func(ix *Target, c *Change) *State {
		keys := map[string]bool{}
		for _, s := range []*State{c.Before, c.After} {
			if s != nil {
				for k := range s.Quota {
					keys[k] = true
				}
			}
		}
		out := map[string]float64{}
		for k, v := range ix.quotas[c.Resource.Name] {
			if keys[k] {
				out[k] = v
			}
		}
		return &State{Quota: out}
	},
	equal: func(obs, ref *State) bool {
		var a, b map[string]float64
		if obs != nil {
			a = obs.Quota
		}
		if ref != nil {
			b = ref.Quota
		}
		return maps.Equal(a, b) || (len(a) == 0 && len(b) == 0)
	},
	fields: func(c *Change) []Field {
		b, a := orEmpty(c.Before).Quota, orEmpty(c.After).Quota
		keys := slices.Sorted(maps.Keys(b))
		for k := range a {
			if _, ok := b[k]; !ok {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		out := make([]Field, len(keys))
		num := func(m map[string]float64, k string) *string {
			if v, ok := m[k]; ok {
				return strp(strconv.FormatFloat(v, 'f', -1, 64))
			}
			return nil
		}
		for i, k := range keys {
			out[i] = field(k, num(b, k), num(a, k))
		}
		return out
	},
	label:  nameLabel,
	invert: invertSwap,
}

func (b *builder) quotaWanted(e snapshot.QuotaEntity) bool {
	if b.principalRe == nil {
		return true
	}
	for _, c := range e {
		if c.Type == snapshot.EntityUser && !c.Default {
			return b.wantPrincipal("User:" + c.Name)
		}
	}
	return true
}

func (b *builder) quotas() {
	have := map[string]snapshot.Quota{}
	for _, q := range b.in.Target.Quotas {
		have[q.Entity.String()] = q
	}
	seen := map[string]bool{}
	for _, q := range b.in.Source.Quotas {
		key := q.Entity.String()
		seen[key] = true
		if !b.quotaWanted(q.Entity) || len(q.Values) == 0 {
			continue
		}
		h := have[key]
		before, after := map[string]float64{}, map[string]float64{}
		for k, v := range q.Values {
			if hv, ok := h.Values[k]; ok && hv == v {
				continue
			} else if ok {
				before[k] = hv
			}
			after[k] = v
		}
		if b.in.Options.Prune {
			for k, hv := range h.Values {
				if _, ok := q.Values[k]; !ok {
					before[k] = hv
				}
			}
		}
		if len(after) == 0 && len(before) == 0 {
			continue
		}
		action := ActionUpdate
		if len(h.Values) == 0 {
			action = ActionCreate
		}
		b.add(Change{Kind: KindQuota, Action: action, Resource: Resource{Type: "quota", Name: key, Entity: q.Entity},
			Before: &State{Quota: before}, After: &State{Quota: after}})
	}
	if b.in.Options.Prune {
		for _, q := range b.in.Target.Quotas {
			key := q.Entity.String()
			if seen[key] || len(q.Values) == 0 || !b.quotaWanted(q.Entity) {
				continue
			}
			b.add(Change{Kind: KindQuota, Action: ActionDelete, Resource: Resource{Type: "quota", Name: key, Entity: q.Entity},
				Before: &State{Quota: q.Values}, After: &State{Quota: map[string]float64{}}})
		}
	}
}
