package migration

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/zkmigrate/zkmigrate/internal/access"
	"github.com/zkmigrate/zkmigrate/internal/audit"
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
		out.Input.Map, out.Input.MapName = mapInput(m)
	}
	brokerFiles, targetFiles, err := AccessSettings{r.BrokerConfigs, r.TargetConfigs}.load()
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
		acls, findings, err := kread.ReadACLs(ctx, conn)
		if err != nil {
			return nil, err
		}
		tgt.ACLs, tgt.Gaps = acls, aclGaps(findings)
		if tgt.Nodes, tgt.Findings, err = liveTargetNodes(ctx, conn, targetFiles); err != nil {
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

// CompareAccess loads both sides of r (LoadAccess) and proves them
// (access.Compare), the causes accept names accepted (each item an id or a
// comma list of them).
func CompareAccess(ctx context.Context, r AccessRequest, accept []string) (*access.Result, error) {
	in, err := LoadAccess(ctx, r)
	if err != nil {
		return nil, err
	}
	for _, a := range accept {
		for _, id := range strings.Split(a, ",") {
			if id = strings.TrimSpace(id); id != "" {
				in.Input.Accept = append(in.Input.Accept, id)
			}
		}
	}
	return access.Compare(in.Input)
}

// AccessSettings says where each node's authorizer settings come from:
// the source brokers' properties files (none: the copies a source snapshot
// holds) and the target nodes' (besides what live nodes return).
type AccessSettings struct {
	BrokerConfigs []string
	TargetConfigs []string
}

func (s AccessSettings) load() (broker, target []*props.File, err error) {
	if broker, err = loadProps(s.BrokerConfigs); err != nil {
		return nil, nil, err
	}
	if target, err = loadProps(s.TargetConfigs); err != nil {
		return nil, nil, err
	}
	return broker, target, nil
}

// mapInput is a principal map as the proof takes it.
func mapInput(m *principalmap.Map) (func(string) (string, error), string) {
	if m == nil {
		return nil, ""
	}
	return func(p string) (string, error) {
		t, _, err := m.Apply(p)
		return t, err
	}, m.Path() + " (" + m.Digest() + ")"
}

// aclGaps are the ACLs a reader could not represent: gaps of the proof.
func aclGaps(findings []snapshot.Finding) []string {
	var out []string
	for _, f := range findings {
		if f.ID == catalogue.IDKReadACLUnknown {
			out = append(out, f.Message+" ("+f.Resource+")")
		}
	}
	return out
}

// AccessSource is what a proof needs of the source: its ACLs (as read,
// before any principal map) and its saved broker configs.
type AccessSource struct {
	Name          string
	ACLs          []snapshot.ACL
	StaticConfigs []snapshot.StaticConfig
}

// AccessSourceOf keeps what a proof needs of a source snapshot.
func AccessSourceOf(s *snapshot.Snapshot) AccessSource {
	return AccessSource{Name: "source " + nameOf(s), ACLs: s.ACLs, StaticConfigs: s.StaticConfigs}
}

// ProvePlanned proves the target as pl's plan would leave it: the source's
// ACLs against the target's with the plan's ACL changes applied
// (plan.ACLsAfter; the plan names mapped principals when it was built with
// a principal map, and source principal P is compared with map(P)), each
// node's settings from the files and, with a live target, DescribeConfigs.
func ProvePlanned(ctx context.Context, pl *Planned, s AccessSettings) (*access.Result, error) {
	tgt := plan.ACLsAfter(pl.Target.ACLs, pl.Plan)
	return prove(ctx, AccessSourceOf(pl.Source), "target "+nameOf(pl.Target)+", as the plan would leave it", tgt, nil, pl.Conn, pl.PrincipalMap, s)
}

// ProveTarget proves the target as it is now (after an apply): its ACLs
// read again through conn.
func ProveTarget(ctx context.Context, src AccessSource, conn *kafkaconn.Conn, m *principalmap.Map, s AccessSettings) (*access.Result, error) {
	acls, findings, err := kread.ReadACLs(ctx, conn)
	if err != nil {
		return nil, err
	}
	return prove(ctx, src, "target "+strings.Join(conn.Bootstrap, ","), acls, aclGaps(findings), conn, m, s)
}

// ProveACLs proves a target whose ACLs were read already (a sync
// reconciliation's), each node's settings from conn and the files.
func ProveACLs(ctx context.Context, src AccessSource, tgtName string, tgtACLs []snapshot.ACL, conn *kafkaconn.Conn, m *principalmap.Map, s AccessSettings) (*access.Result, error) {
	return prove(ctx, src, tgtName, tgtACLs, nil, conn, m, s)
}

func prove(ctx context.Context, src AccessSource, tgtName string, tgtACLs []snapshot.ACL, gaps []string, conn *kafkaconn.Conn, m *principalmap.Map, s AccessSettings) (*access.Result, error) {
	brokerFiles, targetFiles, err := s.load()
	if err != nil {
		return nil, err
	}
	in := access.Input{Source: access.Side{Name: src.Name, ACLs: src.ACLs, Nodes: sourceNodes(&snapshot.Snapshot{StaticConfigs: src.StaticConfigs}, brokerFiles)},
		Target: access.Side{Name: tgtName, ACLs: tgtACLs, Gaps: gaps}}
	in.Map, in.MapName = mapInput(m)
	if conn != nil {
		if in.Target.Nodes, in.Target.Findings, err = liveTargetNodes(ctx, conn, targetFiles); err != nil {
			return nil, err
		}
	} else {
		for _, f := range targetFiles {
			in.Target.Nodes = append(in.Target.Nodes, access.NodeFromFile(f))
		}
	}
	return access.Compare(in)
}

// liveTargetNodes are the target's nodes: each broker's settings as
// DescribeConfigs returns them merged with the file given for it (same
// node.id), then the controllers the brokers name
// (controller.quorum.voters) that are not brokers, from their file or as
// not known, then the files no node matched.
func liveTargetNodes(ctx context.Context, conn *kafkaconn.Conn, files []*props.File) ([]access.Node, []snapshot.Finding, error) {
	live, err := kread.ReadNodeConfigs(ctx, conn, access.NodeKeys)
	if err != nil {
		return nil, nil, err
	}
	byID := map[string]*props.File{}
	var loose []*props.File
	for _, f := range files {
		if n := access.NodeFromFile(f); n.ID != "" {
			if byID[n.ID] != nil {
				return nil, nil, fmt.Errorf("%s and %s both configure node %s", byID[n.ID].Path, f.Path, n.ID)
			}
			byID[n.ID] = f
		} else {
			loose = append(loose, f)
		}
	}
	var nodes []access.Node
	var findings []snapshot.Finding
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
			findings = append(findings, fs...)
		}
		nodes = append(nodes, n)
	}
	for _, id := range voters {
		if used[id] || slices.ContainsFunc(nodes, func(n access.Node) bool { return n.ID == id }) {
			continue // a broker that is also a voter answered for itself
		}
		used[id] = true
		if f := byID[id]; f != nil {
			nodes = append(nodes, access.NodeFromFile(f))
			continue
		}
		nodes = append(nodes, access.UnknownNode("controller "+id, id, access.RoleController))
	}
	for id, f := range byID {
		if !used[id] {
			nodes = append(nodes, access.NodeFromFile(f))
		}
	}
	for _, f := range loose {
		nodes = append(nodes, access.NodeFromFile(f))
	}
	slices.SortStableFunc(nodes, func(a, b access.Node) int { return cmpID(a.ID, b.ID) })
	return nodes, findings, nil
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

// The things a proof is about, as the audit trail records them.
const (
	ProvedTarget  = "target"  // the target as read
	ProvedPlanned = "planned" // the target as the plan would leave it
)

// AccessProof records a proof in the run: its findings (one
// ACCESS-DIFFERENCE per cause) and the proof (what, verdict, counts,
// digest: audit.AccessProof).
func (r *Recorder) AccessProof(ctx context.Context, res *access.Result, what string) {
	if !r.OK() {
		return
	}
	r.Findings(ctx, access.Findings(res))
	sum := access.Summarize(res)
	_ = r.run.RecordAccessProof(ctx, audit.AccessProof{What: what, Verdict: sum.Verdict, Classes: sum.Classes, Differing: sum.Differing,
		Causes: int64(sum.Causes), NotProved: int64(sum.Gaps), Accepted: res.Accepted, Digest: sum.Digest})
}
