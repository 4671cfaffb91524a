package zkread

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/catalogue"
	"github.com/zkmigrate/zkmigrate/internal/english"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/zktree"
)

// Source is what the reader reads: znode data with its stat, and a znode's
// children. Paths are absolute within the Kafka chroot. A missing znode is
// zktree.ErrNoNode and an unreadable one (ZooKeeper ACLs) zktree.ErrNoAuth;
// any other error aborts the read. There is deliberately no write method.
// *zktree.Tree implements it, and so does zkconn.Conn.
type Source interface {
	Get(path string) ([]byte, zktree.Stat, error)
	Children(path string) ([]string, error)
}

// ZxidSource is implemented by live sources that know the last zxid the
// server reported in a reply header (the server's last committed
// transaction when it answered).
type ZxidSource interface {
	LastZxid() int64
}

// InFlightHint is implemented by sources that know how many reads to keep
// in flight (0: no opinion).
type InFlightHint interface {
	InFlight() int
}

// WantedSource is implemented by sources that stand for only some of the
// cluster's entities (a change round's re-read): for a directory it wants
// names in, the reader reads those children instead of listing the
// directory, and a child that ZooKeeper lacks reads as absent (not as
// deleted during the read). A name that cannot be a znode's is skipped.
type WantedSource interface {
	// Wanted returns the children of dir to read and true, or false when
	// dir is to be listed.
	Wanted(dir string) ([]string, bool)
}

// Read modes recorded in snapshot.ReadInfo.Mode.
const (
	ModeMigration = "migration"
	ModeFull      = "full"
)

// DefaultWorkers is the default number of requests in flight.
const DefaultWorkers = 256

// Options tune a read.
type Options struct {
	// Full also reads partition state, old /consumers groups and counts the
	// notification queues (an audit read). Without it the reader reads what
	// a migration needs: the topic znode holds the assignment.
	Full bool
	// Workers bounds the reads in flight: when 0, the source's InFlight
	// hint if it has one, else DefaultWorkers.
	Workers int
	// EncoderSecrets are password.encoder.secret values to try, in order,
	// on encrypted broker passwords. They are never stored.
	EncoderSecrets []string
	// Address is recorded as Snapshot.Address (no credentials).
	Address string
	// Progress, when set, is called now and then with the number of znodes
	// read so far, possibly from several goroutines at once.
	Progress func(znodes int)
	// Now returns the current time (time.Now when nil); tests fix it.
	Now func() time.Time
}

// ErrNotKafka is returned when the root has none of Kafka's znodes.
var ErrNotKafka = errors.New("zkread: no Kafka metadata here (no /brokers, /config or /cluster/id); wrong chroot?")

// Read reads a whole cluster's metadata from src. Bad znodes become
// findings; only a lost connection, a cancelled context or a root without
// Kafka metadata is an error. The snapshot comes back sorted.
func Read(ctx context.Context, src Source, opt Options) (*snapshot.Snapshot, error) {
	if opt.Workers <= 0 {
		opt.Workers = DefaultWorkers
		if h, ok := src.(InFlightHint); ok && h.InFlight() > 0 {
			opt.Workers = h.InFlight()
		}
	}
	now := opt.Now
	if now == nil {
		now = time.Now
	}
	mode := ModeMigration
	if opt.Full {
		mode = ModeFull
	}
	r := &reader{
		ctx: ctx, src: src, opt: opt,
		s: &snapshot.Snapshot{Format: snapshot.FormatVersion, Source: snapshot.SourceZooKeeper, Address: opt.Address,
			Read: snapshot.ReadInfo{Mode: mode, Started: now().UTC().Format(time.RFC3339)}},
		topics:       map[string]*snapshot.Topic{},
		topicConfigs: map[string][]snapshot.Config{},
		states:       map[string]map[int32]*snapshot.PartitionState{},
		quotas:       map[string]*snapshot.Quota{},
		scram:        map[string]*snapshot.ScramUser{},
	}
	r.cond = sync.NewCond(&r.mu)

	if w, ok := src.(WantedSource); ok {
		r.listEarly(w)
	}
	// The first request fixes the start zxid: the reply header of a live
	// read carries the server's last zxid, so every znode whose mzxid is
	// higher changed after the read began.
	if _, _, err := src.Get("/"); err != nil && !errors.Is(err, zktree.ErrNoNode) && !errors.Is(err, zktree.ErrNoAuth) {
		return nil, err
	}
	if zs, ok := src.(ZxidSource); ok {
		r.startZxid = zs.LastZxid()
		r.s.Read.StartZxid = r.startZxid
	}
	// The root is listed beside the reads of every Kafka znode rather than
	// before them (one round trip less): a znode the root lacks the
	// children of reads as absent all the same. A root that cannot be
	// listed, or has none of Kafka's znodes, stops the read. Queued last,
	// the listing is taken first.
	r.schedule()
	r.spawn(func() {
		root, err := r.listing("/")
		switch {
		case errors.Is(err, zktree.ErrNoAuth):
			r.fail(errors.New("zkread: ZooKeeper ACLs deny listing the root; connect with --zk-auth as a digest superuser or as the brokers' identity"))
		case err != nil:
			r.fail(fmt.Errorf("zkread: list /: %w", err))
		case !slices.Contains(root, "brokers") && !slices.Contains(root, "config") && !slices.Contains(root, "cluster"):
			r.fail(ErrNotKafka)
		}
	})
	r.run()
	if r.fatal != nil {
		return nil, r.fatal
	}
	r.assemble()
	r.s.Read.Finished = now().UTC().Format(time.RFC3339)
	// Pre-sort the ACLs without building keys: Sort's comparator allocates
	// a joined key per comparison, and already sorted input costs it one
	// comparison per element.
	slices.SortFunc(r.s.ACLs, snapshot.CompareACLs)
	r.s.Sort()
	return r.s, nil
}

type reader struct {
	ctx context.Context
	src Source
	opt Options

	// work queue
	mu      sync.Mutex
	cond    *sync.Cond
	queue   []func()
	pending int
	fatal   error
	wg      sync.WaitGroup
	running bool // run has started workers
	workers int  // started, at most opt.Workers
	idle    int  // waiting for a task, not yet woken

	count atomic.Int64

	// early are listings made beside the read of / (wanted reads; see
	// listEarly); written before run, read-only after.
	early map[string]*earlyList

	// results, guarded by rmu
	rmu             sync.Mutex
	s               *snapshot.Snapshot
	startZxid       int64
	topics          map[string]*snapshot.Topic
	topicConfigs    map[string][]snapshot.Config
	states          map[string]map[int32]*snapshot.PartitionState
	quotas          map[string]*snapshot.Quota
	controller      *snapshot.Controller
	controllerEpoch *int32
	groups          []*snapshot.LegacyConsumerGroup
	scram           map[string]*snapshot.ScramUser
}

// spawn queues f; it never blocks, so callbacks may spawn more work. It
// wakes an idle worker, or starts one while fewer than opt.Workers run: a
// small read starts few goroutines, a large one fans out to opt.Workers.
func (r *reader) spawn(f func()) {
	r.mu.Lock()
	r.queue = append(r.queue, f)
	r.pending++
	wake, start := false, false
	switch {
	case r.idle > 0:
		r.idle--
		wake = true
	case r.running && r.workers < r.opt.Workers:
		r.workers++
		r.wg.Add(1) // the caller is a worker, so the group is not at zero
		start = true
	}
	r.mu.Unlock()
	if wake {
		r.cond.Signal()
	}
	if start {
		go r.work()
	}
}

func (r *reader) fail(err error) {
	r.mu.Lock()
	if r.fatal == nil {
		r.fatal = err
	}
	r.mu.Unlock()
	r.cond.Broadcast()
}

// run drains the queue with up to opt.Workers workers, newest task first
// (depth first keeps the queue short).
func (r *reader) run() {
	stop := context.AfterFunc(r.ctx, func() { r.fail(r.ctx.Err()) })
	defer stop()
	r.mu.Lock()
	r.running = true
	r.workers = min(r.opt.Workers, len(r.queue))
	r.wg.Add(r.workers)
	n := r.workers
	r.mu.Unlock()
	for range n {
		go r.work()
	}
	r.wg.Wait()
}

// work runs tasks until none is pending or the read failed.
func (r *reader) work() {
	defer r.wg.Done()
	for {
		r.mu.Lock()
		for len(r.queue) == 0 && r.pending > 0 && r.fatal == nil {
			r.idle++ // spawn takes it back when it wakes this one
			r.cond.Wait()
		}
		if r.pending == 0 || r.fatal != nil {
			r.mu.Unlock()
			r.cond.Broadcast()
			return
		}
		f := r.queue[len(r.queue)-1]
		r.queue[len(r.queue)-1] = nil
		r.queue = r.queue[:len(r.queue)-1]
		r.mu.Unlock()
		f()
		r.mu.Lock()
		r.pending--
		done := r.pending == 0
		r.mu.Unlock()
		if done {
			r.cond.Broadcast()
		}
	}
}

func (r *reader) tick() {
	n := r.count.Add(1)
	if r.opt.Progress != nil && n%500 == 0 {
		r.opt.Progress(int(n))
	}
}

// get reads path and hands its data to fn. listed says the path came from
// a children listing, so its absence means it was deleted during the read.
func (r *reader) get(path string, listed bool, fn func(data []byte, st zktree.Stat)) {
	r.spawn(func() {
		data, st, err := r.src.Get(path)
		switch {
		case err == nil:
		case errors.Is(err, zktree.ErrNoNode):
			if listed {
				r.rmu.Lock()
				r.s.Read.Changed = append(r.s.Read.Changed, path)
				r.rmu.Unlock()
			}
			return
		case errors.Is(err, zktree.ErrNoAuth):
			r.notReadable(path)
			return
		default:
			r.fail(fmt.Errorf("zkread: read %s: %w", path, err))
			return
		}
		r.tick()
		r.rmu.Lock()
		ri := &r.s.Read
		ri.Znodes++
		if st.Mzxid > 0 {
			if ri.ZxidMin == 0 || st.Mzxid < ri.ZxidMin {
				ri.ZxidMin = st.Mzxid
			}
			ri.ZxidMax = max(ri.ZxidMax, st.Mzxid)
		}
		if r.startZxid > 0 && st.Mzxid > r.startZxid {
			ri.Changed = append(ri.Changed, path)
		}
		r.rmu.Unlock()
		fn(data, st)
	})
}

// children hands fn the children of path: the source's wanted names
// (listed false) when it wants some, else a listing of path (listed
// true). counted says whether a listing counts as a znode read (false
// when the znode's data is read too).
func (r *reader) children(path string, counted bool, fn func(names []string, listed bool)) {
	if w, ok := r.src.(WantedSource); ok {
		if names, ok := w.Wanted(path); ok {
			names = slices.DeleteFunc(slices.Clone(names), func(n string) bool { return !znodeName(n) })
			r.spawn(func() { fn(names, false) })
			return
		}
	}
	r.list(path, counted, func(names []string) { fn(names, true) })
}

// list lists path and hands the names to fn; see children.
func (r *reader) list(path string, counted bool, fn func(names []string)) {
	r.spawn(func() {
		names, err := r.listing(path)
		switch {
		case err == nil:
		case errors.Is(err, zktree.ErrNoNode):
			return
		case errors.Is(err, zktree.ErrNoAuth):
			r.notReadable(path)
			return
		default:
			r.fail(fmt.Errorf("zkread: list %s: %w", path, err))
			return
		}
		if counted {
			r.tick()
			r.rmu.Lock()
			r.s.Read.Znodes++
			r.rmu.Unlock()
		}
		fn(names)
	})
}

// earlyList is a listing made beside the read of /.
type earlyList struct {
	done  chan struct{}
	names []string
	err   error
}

// listEarly starts, beside the read of / that fixes the start zxid, the
// listings a read of wanted names makes whatever it finds: the root, the
// brokers, the ACL roots and the wanted users' client quotas. Their
// children are read after it, so a read of a few entities takes two
// round trips instead of three. A listing has no zxid to compare with the
// start's; what it names is read, and compared, after the start.
func (r *reader) listEarly(w WantedSource) {
	paths := []string{"/", "/brokers/ids", "/kafka-acl-extended"}
	for _, root := range []string{"/kafka-acl", "/kafka-acl-extended/prefixed"} {
		if _, ok := w.Wanted(root); ok {
			paths = append(paths, root)
		}
	}
	if users, ok := w.Wanted("/config/users"); ok {
		for _, u := range users {
			if znodeName(u) {
				paths = append(paths, "/config/users/"+u+"/clients")
			}
		}
	}
	r.early = map[string]*earlyList{}
	for _, p := range paths {
		if r.early[p] != nil {
			continue
		}
		e := &earlyList{done: make(chan struct{})}
		r.early[p] = e
		go func() {
			defer close(e.done)
			e.names, e.err = r.src.Children(p)
		}()
	}
}

// listing lists path, or takes its early listing.
func (r *reader) listing(path string) ([]string, error) {
	if e := r.early[path]; e != nil {
		<-e.done
		return e.names, e.err
	}
	return r.src.Children(path)
}

// present calls fn when path exists (readable or not): for a wanted name
// whose znode a listing would have shown. It reads no more than that, as
// a listing does not.
func (r *reader) present(path string, fn func()) {
	r.spawn(func() {
		_, _, err := r.src.Get(path)
		switch {
		case err == nil, errors.Is(err, zktree.ErrNoAuth):
			fn()
		case errors.Is(err, zktree.ErrNoNode):
		default:
			r.fail(fmt.Errorf("zkread: read %s: %w", path, err))
		}
	})
}

// znodeName reports whether s can name a znode: one path element that
// ZooKeeper's PathUtils.validatePath accepts (no "/", not "." or "..", no
// control characters, surrogates, private-use or specials, which Java's
// UTF-16 makes of every character beyond U+FFFF; invalid UTF-8 decodes to
// U+FFFD, a special).
func znodeName(s string) bool {
	if s == "" || s == "." || s == ".." {
		return false
	}
	for _, c := range s {
		if c == '/' || c <= 0x1f || c >= 0x7f && c <= 0x9f || c >= 0xd800 && c <= 0xf8ff || c >= 0xfff0 {
			return false
		}
	}
	return true
}

func (r *reader) finding(id, severity, resource, msg, fix string) {
	r.rmu.Lock()
	r.s.Findings = append(r.s.Findings, snapshot.Finding{ID: id, Severity: severity, Resource: resource, Message: msg, Fix: fix})
	r.rmu.Unlock()
}

func (r *reader) notReadable(path string) {
	r.finding(catalogue.IDZnodeNotReadable, snapshot.SeverityError, path,
		"ZooKeeper ACLs deny reading this znode; what it holds is missing from the snapshot",
		"connect with --zk-auth as a digest superuser or as the brokers' own ZooKeeper identity")
}

// bad records a parse error: an unknown version is a warning (the value was
// kept), anything else makes the znode malformed (the value was dropped).
// It returns whether the value may be used.
func (r *reader) bad(path string, err error) bool {
	if err == nil {
		return true
	}
	var ve *VersionError
	if errors.As(err, &ve) {
		r.finding(catalogue.IDZnodeUnknownVersion, snapshot.SeverityWarning, path, strings.TrimPrefix(ve.Error(), "zkread: ")+"; read as the newest known version", "")
		return true
	}
	r.finding(catalogue.IDZnodeMalformed, snapshot.SeverityError, path, strings.TrimPrefix(err.Error(), "zkread: "), "")
	return false
}

// schedule queues the reads of every Kafka znode kind. It does not wait
// for the root's listing: a kind the root lacks reads as absent.
func (r *reader) schedule() {
	r.get("/cluster/id", false, func(d []byte, _ zktree.Stat) {
		id, err := ParseClusterID(d)
		if r.bad("/cluster/id", err) {
			r.rmu.Lock()
			r.s.ClusterID = id
			r.rmu.Unlock()
		}
	})
	r.get("/controller", false, func(d []byte, _ zktree.Stat) {
		c, err := ParseController(d)
		if r.bad("/controller", err) {
			r.rmu.Lock()
			r.controller = &c
			r.rmu.Unlock()
		}
	})
	r.get("/controller_epoch", false, func(d []byte, _ zktree.Stat) {
		e, err := ParseControllerEpoch(d)
		if r.bad("/controller_epoch", err) {
			r.rmu.Lock()
			r.controllerEpoch = &e
			r.rmu.Unlock()
		}
	})
	r.get("/migration", false, func(d []byte, _ zktree.Stat) {
		m, err := ParseMigration(d)
		if r.bad("/migration", err) {
			r.rmu.Lock()
			r.s.Migration = &m
			r.rmu.Unlock()
		}
	})
	r.get("/feature", false, func(d []byte, _ zktree.Stat) {
		f, err := ParseFeatures(d)
		if r.bad("/feature", err) {
			r.rmu.Lock()
			r.s.Features = f
			r.rmu.Unlock()
		}
	})
	r.get("/latest_producer_id_block", false, func(d []byte, _ zktree.Stat) {
		if len(d) == 0 {
			return // created empty at broker start, before the first block
		}
		b, err := ParseProducerIDBlock(d)
		if r.bad("/latest_producer_id_block", err) {
			r.rmu.Lock()
			r.s.ProducerIDBlock = &b
			r.rmu.Unlock()
		}
	})
	r.readBrokers()
	r.readTopics()
	r.readConfigs()
	r.readAdmin()
	r.readACLs("/kafka-acl", PatternLiteral)
	r.children("/kafka-acl-extended", true, func(names []string, _ bool) {
		for _, n := range names {
			p := "/kafka-acl-extended/" + n
			if n != "prefixed" {
				r.finding(catalogue.IDACLUnknownPatternType, snapshot.SeverityWarning, p, "Kafka stores only PREFIXED patterns under /kafka-acl-extended; this one is ignored", "")
				continue
			}
			r.readACLs(p, PatternPrefixed)
		}
	})
	r.children("/delegation_token/tokens", true, func(names []string, listed bool) {
		for _, n := range names {
			p := "/delegation_token/tokens/" + n
			r.get(p, listed, func(d []byte, _ zktree.Stat) {
				t, err := ParseDelegationToken(n, d)
				if r.bad(p, err) {
					r.rmu.Lock()
					r.s.DelegationTokens = append(r.s.DelegationTokens, t)
					r.rmu.Unlock()
				}
			})
		}
	})
	if r.opt.Full {
		r.readConsumers()
		for _, q := range []string{"/config/changes", "/isr_change_notification", "/log_dir_event_notification",
			"/kafka-acl-changes", "/kafka-acl-extended-changes", "/delegation_token/token_changes"} {
			r.list(q, true, func(names []string) {
				if len(names) > 0 {
					r.finding(catalogue.IDNotificationsPending, snapshot.SeverityInfo, q,
						english.N(len(names), "notification znode")+" not yet processed or expired", "")
				}
			})
		}
	}
}

func (r *reader) readBrokers() {
	r.children("/brokers/ids", true, func(names []string, listed bool) {
		for _, n := range names {
			p := "/brokers/ids/" + n
			id, err := strconv.ParseInt(n, 10, 32)
			if err != nil {
				r.finding(catalogue.IDZnodeMalformed, snapshot.SeverityError, p, "broker id is not an integer", "")
				continue
			}
			r.get(p, listed, func(d []byte, _ zktree.Stat) {
				b, err := ParseBroker(int32(id), d)
				if r.bad(p, err) {
					r.rmu.Lock()
					r.s.Brokers = append(r.s.Brokers, b)
					r.rmu.Unlock()
				}
			})
		}
	})
}

func (r *reader) readTopics() {
	r.children("/brokers/topics", true, func(names []string, listed bool) {
		for _, n := range names {
			p := "/brokers/topics/" + n
			r.get(p, listed, func(d []byte, _ zktree.Stat) {
				t, err := ParseTopic(n, d)
				if !r.bad(p, err) {
					return
				}
				r.rmu.Lock()
				r.topics[n] = &t
				r.rmu.Unlock()
				if r.opt.Full {
					for _, part := range t.Partitions {
						r.readState(n, part.ID)
					}
				}
			})
		}
	})
}

func (r *reader) readState(topic string, part int32) {
	p := fmt.Sprintf("/brokers/topics/%s/partitions/%d/state", topic, part)
	// A missing state is normal right after creation; not a finding.
	r.get(p, false, func(d []byte, st zktree.Stat) {
		s, err := ParsePartitionState(d, st.Version)
		if !r.bad(p, err) {
			return
		}
		r.rmu.Lock()
		m := r.states[topic]
		if m == nil {
			m = map[int32]*snapshot.PartitionState{}
			r.states[topic] = m
		}
		m[part] = &s
		r.rmu.Unlock()
	})
}

func (r *reader) readAdmin() {
	r.children("/admin/delete_topics", true, func(names []string, listed bool) {
		if listed {
			r.rmu.Lock()
			r.s.PendingDeletes = append(r.s.PendingDeletes, names...)
			r.rmu.Unlock()
			return
		}
		for _, n := range names {
			r.present("/admin/delete_topics/"+n, func() {
				r.rmu.Lock()
				r.s.PendingDeletes = append(r.s.PendingDeletes, n)
				r.rmu.Unlock()
			})
		}
	})
	r.get("/admin/reassign_partitions", false, func(d []byte, _ zktree.Stat) {
		a, err := ParseReassignPartitions(d)
		if r.bad("/admin/reassign_partitions", err) {
			r.rmu.Lock()
			r.s.LegacyReassignments = a
			r.rmu.Unlock()
		}
	})
	r.get("/admin/preferred_replica_election", false, func(d []byte, _ zktree.Stat) {
		a, err := ParsePartitionList(d)
		if r.bad("/admin/preferred_replica_election", err) {
			r.rmu.Lock()
			r.s.PreferredElections = a
			r.rmu.Unlock()
		}
	})
}

func (r *reader) readACLs(root, pattern string) {
	unknown := func(typ string) {
		r.finding(catalogue.IDACLUnknownResourceType, snapshot.SeverityWarning, root+"/"+typ, fmt.Sprintf("unknown ACL resource type %q; its ACLs are not read", typ), "")
	}
	r.children(root, true, func(types []string, listed bool) {
		if !listed {
			// The types wanted are known ones; a listing still reports the
			// unknown ones, as a read that lists them does.
			r.list(root, true, func(all []string) {
				for _, typ := range all {
					if _, ok := CanonicalResourceType(typ); !ok {
						unknown(typ)
					}
				}
			})
		}
		for _, typ := range types {
			dir := root + "/" + typ
			rt, ok := CanonicalResourceType(typ)
			if !ok {
				if listed {
					unknown(typ)
				}
				continue
			}
			r.children(dir, true, func(names []string, listed bool) {
				for _, n := range names {
					p := dir + "/" + n
					r.get(p, listed, func(d []byte, _ zktree.Stat) {
						acls, err := ParseACLs(rt, n, pattern, d)
						if r.bad(p, err) {
							r.rmu.Lock()
							r.s.ACLs = append(r.s.ACLs, acls...)
							r.rmu.Unlock()
						}
					})
				}
			})
		}
	})
}

func (r *reader) readConsumers() {
	r.children("/consumers", true, func(groups []string, _ bool) {
		for _, g := range groups {
			grp := &snapshot.LegacyConsumerGroup{Group: g}
			r.rmu.Lock()
			r.groups = append(r.groups, grp)
			r.rmu.Unlock()
			dir := "/consumers/" + g + "/offsets"
			r.list(dir, true, func(topics []string) {
				r.rmu.Lock()
				grp.Topics = slices.Sorted(slices.Values(topics))
				r.rmu.Unlock()
				for _, t := range topics {
					r.list(dir+"/"+t, true, func(parts []string) {
						r.rmu.Lock()
						grp.Offsets += len(parts)
						r.rmu.Unlock()
					})
				}
			})
		}
	})
}

// assemble joins topics with their configs and states and fills the
// controller.
func (r *reader) assemble() {
	for _, name := range slices.Sorted(maps.Keys(r.topics)) {
		t := r.topics[name]
		t.Configs = r.topicConfigs[name]
		for i := range t.Partitions {
			if st, ok := r.states[name][t.Partitions[i].ID]; ok {
				t.Partitions[i].State = st
			}
		}
		r.s.Topics = append(r.s.Topics, *t)
	}
	for _, name := range slices.Sorted(maps.Keys(r.topicConfigs)) {
		if _, ok := r.topics[name]; !ok {
			r.s.Findings = append(r.s.Findings, snapshot.Finding{ID: catalogue.IDTopicConfigOrphan, Severity: snapshot.SeverityWarning,
				Resource: "/config/topics/" + name, Message: "topic config without a topic assignment (/brokers/topics/" + name + "); Kafka ignores it",
				Fix: "delete the znode, or recreate the topic"})
		}
	}
	if r.controller != nil {
		c := *r.controller
		if r.controllerEpoch != nil {
			c.Epoch = *r.controllerEpoch
		}
		r.s.Controller = &c
	}
	for _, g := range r.groups {
		r.s.ConsumerGroups = append(r.s.ConsumerGroups, *g)
	}
	for _, k := range slices.Sorted(maps.Keys(r.scram)) {
		r.s.ScramUsers = append(r.s.ScramUsers, *r.scram[k])
	}
	for _, k := range slices.Sorted(maps.Keys(r.quotas)) {
		r.s.Quotas = append(r.s.Quotas, *r.quotas[k])
	}
	if n := len(r.s.Read.Changed); n > 0 {
		r.s.Findings = append(r.s.Findings, snapshot.Finding{ID: catalogue.IDReadNotConsistent, Severity: snapshot.SeverityWarning, Resource: "/",
			Message: english.N(n, "znode") + " changed while the snapshot was read (see read.changed)",
			Fix:     "read again when the cluster is quiet"})
	}
}
