package tui

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// detailLines renders the detail pane for the row under the cursor.
func (r *reviewScreen) detailLines() []string {
	rw := r.current()
	if rw == nil {
		return nil
	}
	s := r.c.Styles
	switch rw.t {
	case rowGroup:
		g := &r.groups[rw.g]
		return []string{
			s.Group.Render(g.title) + fmt.Sprintf(": %d changes (%s)", len(g.items), r.actionCounts(g.actions)),
			fmt.Sprintf("selected %d of %d selectable", g.selected, g.selectable),
			"sent with " + strings.Join(g.rpcs, ", "),
			s.Subtle.Render("x or space includes/excludes the whole group"),
		}
	case rowSection:
		switch rw.g {
		case -1:
			return []string{"Blockers are wanted changes the tool will not or cannot make;", "each names the reason and the fix. They are never applied."}
		case -2:
			return []string{"Findings are facts worth knowing before the migration."}
		}
		return []string{"Policy notes are not verdicts on one change (for example legacy", "policy classes, which the target's controllers enforce)."}
	case rowNote:
		return r.wrap("[policy] " + r.p.PolicyNotes[rw.i])
	case rowBlocker:
		b := &r.p.Blockers[rw.i]
		out := []string{s.Blocked.Render("✗ blocker "+b.ID) + " · " + string(b.Kind) + " " + b.Resource}
		out = append(out, r.wrap("reason: "+b.Reason)...)
		if b.Fix != "" {
			out = append(out, r.wrap("fix: "+b.Fix)...)
		}
		if b.Change != nil {
			out = append(out, "blocked change:")
			out = append(out, changeDetail(s, b.Change)...)
		}
		return out
	case rowFinding:
		f := &r.p.Findings[rw.i]
		out := []string{severityMark(f.Severity) + " " + f.ID + " · " + f.Resource}
		out = append(out, r.wrap(f.Message)...)
		if f.Fix != "" {
			out = append(out, r.wrap("fix: "+f.Fix)...)
		}
		return out
	}
	it := &r.items[rw.i]
	c := it.ch
	st := s.action(c.Action)
	out := []string{st.Render(actionSymbol(c.Action)+" "+string(c.Action)+" "+string(c.Kind)+" "+displayName(c)) +
		s.Subtle.Render(" · "+rpcOf(c)+" · id "+c.ID)}
	switch {
	case !it.selectable:
		for _, l := range r.wrap("[!] not selectable: " + it.reason) {
			out = append(out, s.Blocked.Render(l))
		}
	case it.selected:
		out = append(out, "[x] selected (space excludes)")
	default:
		out = append(out, s.Subtle.Render("[ ] excluded (space includes)"))
	}
	if v := c.Verdict; v != nil && v.Allowed {
		out = append(out, s.Subtle.Render("policy: allowed"+ruleSuffix(v.Rule)))
	}
	out = append(out, changeDetail(s, c)...)
	for _, n := range c.Notes {
		for _, l := range r.wrap("note: " + n) {
			out = append(out, s.Subtle.Render(l))
		}
	}
	return out
}

func ruleSuffix(rule string) string {
	if rule == "" {
		return ""
	}
	return " by rule " + rule
}

// changeDetail is the before → after of one change. Secrets show their
// reference only (Secret's String); Reveal is never called.
func changeDetail(s Styles, c *plan.Change) []string {
	b, a := c.Before, c.After
	if b == nil {
		b = &plan.State{}
	}
	if a == nil {
		a = &plan.State{}
	}
	var out []string
	switch c.Kind {
	case plan.KindTopic:
		st := a
		if c.Action == plan.ActionDelete {
			st = b
		}
		out = append(out, fmt.Sprintf("partitions %d · replication factor %d", st.Partitions, st.ReplicationFactor))
		if len(st.Assignment) == 0 && c.Action != plan.ActionDelete {
			out = append(out, s.Subtle.Render("replicas placed by the target"))
		}
		out = append(out, assignmentLines(s, nil, st.Assignment, 0)...)
		for _, cf := range st.Configs {
			out = append(out, fmt.Sprintf("  %s = %s", cf.Key, configValue(cf)))
		}
	case plan.KindPartitions:
		out = append(out, fmt.Sprintf("partitions %d → %d", b.Partitions, a.Partitions))
		out = append(out, assignmentLines(s, nil, a.Assignment, b.Partitions)...)
	case plan.KindReassignment:
		out = append(out, "replica assignment (before → after):")
		out = append(out, assignmentLines(s, b.Assignment, a.Assignment, 0)...)
	case plan.KindTopicConfig, plan.KindBrokerConfig:
		out = append(out, configDiff(s, b.Configs, a.Configs)...)
	case plan.KindQuota:
		out = append(out, "entity "+entityString(c.Resource.Entity, c.Resource.Name))
		out = append(out, quotaDiff(s, b.Quota, a.Quota)...)
	case plan.KindACL:
		if x := c.Resource.ACL; x != nil {
			out = append(out,
				fmt.Sprintf("%s %s %s on %s %s (%s) from host %s", x.Permission, x.Principal, x.Operation,
					x.ResourceType, x.ResourceName, x.PatternType, x.Host),
				fmt.Sprintf("present: %s → %s", yesNo(b.Present), yesNo(a.Present)))
		} else {
			out = append(out, "acl "+c.Resource.Name)
		}
	case plan.KindScramUser:
		out = append(out, "user User:"+c.Resource.Name+" · mechanism "+c.Resource.Mechanism)
		out = append(out, fmt.Sprintf("iterations %s → %s", iter(b.Iterations), iter(a.Iterations)))
		if a.Password != nil {
			out = append(out, "password "+a.Password.String()+s.Subtle.Render(" (reference only, never shown)"))
		}
	}
	return out
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func iter(n int32) string {
	if n == 0 {
		return "-"
	}
	return strconv.Itoa(int(n))
}

func entityString(e snapshot.QuotaEntity, name string) string {
	if len(e) == 0 {
		return name
	}
	parts := make([]string, 0, len(e))
	for _, c := range e {
		n := c.Name
		if c.Default {
			n = "<default>"
		}
		parts = append(parts, c.Type+"="+n)
	}
	return strings.Join(parts, ",")
}

func replicas(r []int32) string {
	if r == nil {
		return "-"
	}
	p := make([]string, len(r))
	for i, x := range r {
		p[i] = strconv.Itoa(int(x))
	}
	return "[" + strings.Join(p, " ") + "]"
}

// assignmentLines lists partition replica sets, before → after when both
// are given; first is the id of the first partition in after.
func assignmentLines(s Styles, before, after [][]int32, first int32) []string {
	n := max(len(before), len(after))
	out := make([]string, 0, n)
	for i := 0; i < n; i++ {
		var b, a []int32
		if i < len(before) {
			b = before[i]
		}
		if i < len(after) {
			a = after[i]
		}
		if before == nil {
			out = append(out, fmt.Sprintf("  p%d %s", int32(i)+first, replicas(a)))
			continue
		}
		line := fmt.Sprintf("p%-3d %-12s → %s", i, replicas(b), replicas(a))
		if fmt.Sprint(a) != fmt.Sprint(b) {
			out = append(out, s.Update.Render("~ "+line))
		} else {
			out = append(out, "  "+line)
		}
	}
	return out
}

// configValue shows a config value, or the secret's reference for a
// sensitive one.
func configValue(c snapshot.Config) string {
	if c.Secret != nil {
		return c.Secret.String()
	}
	if c.Sensitive {
		return "<sensitive>"
	}
	return c.Value
}

// configKeys lists the keys a config change touches, marked + ~ -.
func configKeys(c *plan.Change) []string {
	var b, a []snapshot.Config
	if c.Before != nil {
		b = c.Before.Configs
	}
	if c.After != nil {
		a = c.After.Configs
	}
	var out []string
	for _, d := range diffConfigs(b, a) {
		out = append(out, d.mark+d.key)
	}
	return out
}

type cfgDiff struct {
	mark, key, before, after string
}

func diffConfigs(before, after []snapshot.Config) []cfgDiff {
	bm := map[string]snapshot.Config{}
	am := map[string]snapshot.Config{}
	var keys []string
	for _, c := range before {
		bm[c.Key] = c
		keys = append(keys, c.Key)
	}
	for _, c := range after {
		if _, ok := bm[c.Key]; !ok {
			keys = append(keys, c.Key)
		}
		am[c.Key] = c
	}
	sort.Strings(keys)
	out := make([]cfgDiff, 0, len(keys))
	for _, k := range keys {
		bc, inB := bm[k]
		ac, inA := am[k]
		d := cfgDiff{key: k, before: "(unset)", after: "(unset)"}
		if inB {
			d.before = configValue(bc)
		}
		if inA {
			d.after = configValue(ac)
		}
		switch {
		case inB && !inA:
			d.mark = "-"
		case !inB && inA:
			d.mark = "+"
		case d.before != d.after || ac.Secret != nil:
			d.mark = "~"
		default:
			d.mark = "="
		}
		out = append(out, d)
	}
	return out
}

func configDiff(s Styles, before, after []snapshot.Config) []string {
	ds := diffConfigs(before, after)
	kw, bw := 3, 6
	for _, d := range ds {
		kw = max(kw, len(d.key))
		bw = max(bw, len(d.before))
	}
	kw, bw = min(kw, 40), min(bw, 24)
	out := []string{s.Subtle.Render(fmt.Sprintf("  %s %s   %s", fit("key", kw), fit("before", bw), "after"))}
	for _, d := range ds {
		st := s.NoOp
		switch d.mark {
		case "+":
			st = s.Create
		case "-":
			st = s.Delete
		case "~":
			st = s.Update
		}
		out = append(out, st.Render(fmt.Sprintf("%s %s %s → %s", d.mark, fit(d.key, kw), fit(d.before, bw), d.after)))
	}
	return out
}

func quotaKeys(c *plan.Change) []string {
	var b, a map[string]float64
	if c.Before != nil {
		b = c.Before.Quota
	}
	if c.After != nil {
		a = c.After.Quota
	}
	return sortedKeys(b, a)
}

func sortedKeys(b, a map[string]float64) []string {
	seen := map[string]bool{}
	var keys []string
	for _, m := range []map[string]float64{b, a} {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	sort.Strings(keys)
	return keys
}

func quotaDiff(s Styles, b, a map[string]float64) []string {
	var out []string
	for _, k := range sortedKeys(b, a) {
		bv, inB := b[k]
		av, inA := a[k]
		bs, as := "(unset)", "(unset)"
		if inB {
			bs = strconv.FormatFloat(bv, 'f', -1, 64)
		}
		if inA {
			as = strconv.FormatFloat(av, 'f', -1, 64)
		}
		mark, st := "~", s.Update
		switch {
		case !inB:
			mark, st = "+", s.Create
		case !inA:
			mark, st = "-", s.Delete
		case bv == av:
			mark, st = "=", s.NoOp
		}
		out = append(out, st.Render(fmt.Sprintf("%s %-28s %s → %s", mark, k, bs, as)))
	}
	return out
}

// wrap word-wraps prose (reasons, messages, notes) to the screen width;
// tables and titles are truncated instead.
func (r *reviewScreen) wrap(text string) []string {
	return wrapLines([]string{text}, r.c.Width)
}
