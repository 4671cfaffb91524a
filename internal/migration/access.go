package migration

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/zkmigrate/zkmigrate/internal/access"
	"github.com/zkmigrate/zkmigrate/internal/catalogue"
	"github.com/zkmigrate/zkmigrate/internal/kafkaconn"
	"github.com/zkmigrate/zkmigrate/internal/kread"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/principalmap"
	"github.com/zkmigrate/zkmigrate/internal/props"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// AccessRequest is what LoadAccess needs: both clusters and where each
// node's authorizer settings come from.
type AccessRequest struct {
	Source SourceFunc
	// BrokerConfigs are the source brokers' properties files; without
	// them the copies a source snapshot saved are used.
	BrokerConfigs []string
	// Target is the live target (its ACLs and each broker's settings as
	// DescribeConfigs returns them) or a saved snapshot (its ACLs).
	Target Target
	// TargetConfigs are properties files of the target's nodes (brokers
	// and controllers): they give the settings a live node hides, and
	// those of nodes that do not answer (dedicated controllers).
	TargetConfigs []string
	// PrincipalMap is a principal map file ("" none): source principal P
	// is compared with target principal map(P).
	PrincipalMap string
	// Planned, when set, proves the ACLs the plan built with these
	// options would leave on the target instead of today's.
	Planned *plan.Options
	Hooks
}

// AccessInputs are both sides as the proof sees them, with what they were
// read from.
type AccessInputs struct {
	Input  access.Input
	Source *snapshot.Snapshot
	// TargetACLs are the target's ACLs as read (before a plan).
	TargetACLs []snapshot.ACL
	// Plan is the plan whose result is proved (Planned), else nil.
	Plan *plan.Plan
	Map  *principalmap.Map
}

// LoadAccess reads the principal map, the settings files, the source and
// the target (its ACLs and, live, each broker's authorizer settings), in
// that order (a bad file stops it before anything is read), and builds
// both sides. A settings file that cannot be read is an error naming it.
func LoadAccess(ctx context.Context, r AccessRequest) (*AccessInputs, error) {
	out := &AccessInputs{}
	if r.PrincipalMap != "" {
		m, err := principalmap.Load(r.PrincipalMap)
		if err != nil {
			return nil, err
		}
		out.Map = m
		out.Input.Map = func(p string) (string, error) {
			t, _, err := m.Apply(p)
			return t, err
		}
		out.Input.MapName = m.Path() + " (" + m.Digest() + ")"
	}
	brokerFiles, err := loadProps(r.BrokerConfigs)
	if err != nil {
		return nil, err
	}
	targetFiles, err := loadProps(r.TargetConfigs)
	if err != nil {
		return nil, err
	}
	src, err := r.Source(ctx)
	if err != nil {
		return nil, err
	}
	r.phase("source")
	out.Source = src
	out.Input.Source = access.Side{Name: "source " + nameOf(src), ACLs: src.ACLs, Nodes: sourceNodes(src, brokerFiles)}

	tgt := access.Side{Name: "target"}
	var tgtSnap *snapshot.Snapshot
	if r.Target.SnapshotFile != "" {
		s, err := snapshot.Load(r.Target.SnapshotFile)
		if err != nil {
			return nil, err
		}
		tgtSnap = s
		tgt.Name += " " + nameOf(s)
		tgt.ACLs = s.ACLs
		for _, f := range targetFiles {
			tgt.Nodes = append(tgt.Nodes, access.NodeFromFile(f))
		}
	} else {
		conn, err := r.Target.Dial(ctx)
		if err != nil {
			return nil, err
		}
		defer conn.Close()
		r.progress("Reading target %s ...", strings.Join(conn.Bootstrap, ","))
		tgt.Name += " " + strings.Join(conn.Bootstrap, ",")
		if err := readLiveTarget(ctx, conn, targetFiles, &tgt); err != nil {
			return nil, err
		}
		tgtSnap = &snapshot.Snapshot{Format: snapshot.FormatVersion, Source: snapshot.SourceKafka, Address: strings.Join(conn.Bootstrap, ","), ACLs: tgt.ACLs}
	}
	r.phase("target")
	out.TargetACLs = tgt.ACLs
	if r.Planned != nil {
		opts := *r.Planned
		p := &plan.Plan{Format: plan.FormatVersion, Options: opts} // ACLs left out: the plan changes none
		if plansACLs(opts) {
			opts.Include, opts.Exclude = []plan.Kind{plan.KindACL}, nil
			// The plan maps the source's principals with the same map, so the
			// target it would leave names them as map(P).
			if p, err = BuildPlan(src, tgtSnap, nil, opts, nil, out.Map); err != nil {
				return nil, err
			}
		}
		out.Plan = p
		tgt.ACLs = plan.ACLsAfter(tgt.ACLs, p)
		tgt.Name += ", as the plan would leave it"
		r.phase("plan")
	}
	out.Input.Target = tgt
	return out, nil
}

// plansACLs reports whether a plan with these options changes ACLs at all
// (only its ACL part matters to the proof, so only that part is built).
func plansACLs(o plan.Options) bool {
	return !slices.Contains(o.Exclude, plan.KindACL) && (len(o.Include) == 0 || slices.Contains(o.Include, plan.KindACL))
}

func loadProps(paths []string) ([]*props.File, error) {
	var out []*props.File
	for _, p := range paths {
		f, err := props.Load(p)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

// nameOf names a snapshot's cluster without credentials.
func nameOf(s *snapshot.Snapshot) string {
	if s.Address != "" {
		return s.Source + " " + s.Address
	}
	return s.Source
}

// sourceNodes are the source brokers: the files given, else the copies the
// snapshot saved.
func sourceNodes(s *snapshot.Snapshot, files []*props.File) []access.Node {
	var out []access.Node
	for _, f := range files {
		out = append(out, access.NodeFromFile(f))
	}
	if len(out) == 0 {
		for _, sc := range s.StaticConfigs {
			out = append(out, access.NodeFromStatic(sc))
		}
	}
	return out
}

// readLiveTarget reads the target's ACLs and each broker's settings,
// merges the files given for those nodes, and adds the controllers the
// brokers name (controller.quorum.voters) that are not brokers: from their
// file, or as not known.
func readLiveTarget(ctx context.Context, conn *kafkaconn.Conn, files []*props.File, tgt *access.Side) error {
	acls, findings, err := kread.ReadACLs(ctx, conn)
	if err != nil {
		return err
	}
	tgt.ACLs = acls
	for _, f := range findings {
		if f.ID == catalogue.IDKReadACLUnknown {
			tgt.Gaps = append(tgt.Gaps, f.Message+" ("+f.Resource+")")
		}
	}
	live, err := kread.ReadNodeConfigs(ctx, conn, access.NodeKeys)
	if err != nil {
		return err
	}
	byID := map[string]*props.File{}
	var loose []*props.File
	for _, f := range files {
		if n := access.NodeFromFile(f); n.ID != "" {
			if byID[n.ID] != nil {
				return fmt.Errorf("%s and %s both configure node %s", byID[n.ID].Path, f.Path, n.ID)
			}
			byID[n.ID] = f
		} else {
			loose = append(loose, f)
		}
	}
	used := map[string]bool{}
	var voters []string
	for _, lc := range live {
		entries := map[string]access.LiveEntry{}
		for _, e := range lc.Entries {
			entries[e.Key] = access.LiveEntry{Value: e.Value, Source: e.Source}
		}
		n := access.NodeFromLive(lc.Node, entries)
		if e := lc.Get(access.KeyVoters); e != nil && e.Value != nil {
			for _, v := range access.Voters(*e.Value) {
				if !slices.Contains(voters, v) {
					voters = append(voters, v)
				}
			}
		}
		if f := byID[n.ID]; f != nil {
			used[n.ID] = true
			var fs []snapshot.Finding
			n, fs = access.Merge(n, access.NodeFromFile(f))
			tgt.Findings = append(tgt.Findings, fs...)
		}
		tgt.Nodes = append(tgt.Nodes, n)
	}
	for _, id := range voters {
		if used[id] || slices.ContainsFunc(tgt.Nodes, func(n access.Node) bool { return n.ID == id && n.Has(access.RoleController) }) {
			continue
		}
		if slices.ContainsFunc(tgt.Nodes, func(n access.Node) bool { return n.ID == id }) {
			continue // a broker that is also a voter answered for itself
		}
		if f := byID[id]; f != nil {
			used[id] = true
			tgt.Nodes = append(tgt.Nodes, access.NodeFromFile(f))
			continue
		}
		tgt.Nodes = append(tgt.Nodes, access.UnknownNode("controller "+id, id, access.RoleController))
	}
	for id, f := range byID {
		if !used[id] {
			tgt.Nodes = append(tgt.Nodes, access.NodeFromFile(f))
		}
	}
	for _, f := range loose {
		tgt.Nodes = append(tgt.Nodes, access.NodeFromFile(f))
	}
	slices.SortStableFunc(tgt.Nodes, func(a, b access.Node) int { return cmpID(a.ID, b.ID) })
	return nil
}

func cmpID(a, b string) int {
	x, errA := strconv.Atoi(a)
	y, errB := strconv.Atoi(b)
	if errA == nil && errB == nil {
		return x - y
	}
	return strings.Compare(a, b)
}

// AccessOutcome is access diff's: exit 3 unless the target is proved
// equivalent; the result is the verdict.
func AccessOutcome(r *access.Result) Outcome {
	if r.Verdict == access.Equivalent {
		return Outcome{r.Verdict, ExitOK}
	}
	return Outcome{r.Verdict, ExitPartial}
}

// AccessProof records a proof in the run: its findings (one
// ACCESS-DIFFERENCE per cause) and a note "access-proof" with the verdict,
// counts and digest (access.Summary as JSON).
func (r *Recorder) AccessProof(ctx context.Context, res *access.Result) {
	if !r.OK() {
		return
	}
	r.Findings(ctx, access.Findings(res))
	b, _ := json.Marshal(access.Summarize(res))
	r.Note(ctx, "access-proof", string(b))
}
