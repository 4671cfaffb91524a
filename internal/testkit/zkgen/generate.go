package zkgen

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
)

// Node is one znode to create. A nil Data is a parent Kafka would have
// created with null data (createRecursive).
type Node struct {
	Path string
	Data []byte
}

// Writer creates znodes. Generate calls Write concurrently, once per batch,
// from Options.Writers goroutines numbered 0..Writers-1; the batches of one
// worker arrive in order. A node's parent is either earlier in the same
// batch, in an earlier batch of the same worker, or in the skeleton, which
// worker 0 writes before any other batch starts.
type Writer interface {
	Write(ctx context.Context, worker int, nodes []Node) error
}

// Options tune how the tree is written; they never change what is written.
type Options struct {
	Writers int // parallel writers (connections); default 4
	Batch   int // znodes per Write (one ZooKeeper multi); default 500
	// Progress, if set, is called after each batch with the total written so
	// far. It may be called from several goroutines at once.
	Progress func(written int)
}

// Generate writes the cluster described by cfg through w and returns what
// it wrote. On error the tree may be partly written; /cluster/id, written
// last, is then missing.
func Generate(ctx context.Context, cfg Config, w Writer, opt Options) (Summary, error) {
	if err := cfg.Validate(); err != nil {
		return Summary{}, err
	}
	if opt.Writers < 1 {
		opt.Writers = 4
	}
	if opt.Batch < 1 {
		opt.Batch = 500
	}
	g := &gen{cfg: cfg, sum: Summary{Seed: cfg.Seed}}
	meta := g.rng(0)
	g.clusterID = newUUID(meta)
	g.controllerEpoch = 3 + meta.IntN(40)
	g.now = 1760000000000 + meta.Int64N(20000000000) // between Oct 2025 and mid 2026

	var written atomic.Int64
	report := func(n int) {
		if opt.Progress != nil {
			opt.Progress(int(written.Add(int64(n))))
		}
	}
	skel := g.skeleton()
	for b := range slices.Chunk(skel, opt.Batch) {
		if err := w.Write(ctx, 0, b); err != nil {
			return g.sum, err
		}
		report(len(b))
	}

	p := newPipeline(ctx, w, opt, report)
	err := g.body(p.unit)
	if err == nil {
		err = p.flush()
	}
	if perr := p.close(); perr != nil {
		err = perr
	}
	if err != nil {
		return g.sum, err
	}
	last := []Node{{"/cluster/id", clusterIDZNode(g.clusterID)}}
	g.count(last)
	if err := w.Write(ctx, 0, last); err != nil {
		return g.sum, err
	}
	report(1)
	return g.sum, nil
}

// gen holds the state of one generation run. Each section draws from its
// own random stream, so changing one count does not reshuffle the others.
type gen struct {
	cfg             Config
	sum             Summary
	clusterID       string
	controllerEpoch int
	now             int64
	topicNames      []string // regular topics, for ACL resource names
	userNames       []string // SCRAM users, for ACL principals
}

func (g *gen) rng(section uint64) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(g.cfg.Seed), 0x7a6b67656e000000|section))
}

func (g *gen) count(nodes []Node) { g.sum.Znodes += len(nodes) }

// skeleton is every node written before the parallel part: Kafka's
// persistent paths, the ACL type roots, brokers, controller and features.
func (g *gen) skeleton() []Node {
	rng := g.rng(1)
	var out []Node
	add := func(p string, d []byte) { out = append(out, Node{p, d}) }
	for _, p := range []string{"/consumers", "/brokers", "/brokers/ids", "/brokers/topics", "/brokers/seqid",
		"/config", "/config/changes", "/config/topics", "/config/clients", "/config/users", "/config/brokers",
		"/config/ips", "/admin", "/admin/delete_topics", "/isr_change_notification",
		"/log_dir_event_notification", "/cluster", "/kafka-acl", "/kafka-acl-extended",
		"/kafka-acl-extended/prefixed", "/kafka-acl-changes", "/kafka-acl-extended-changes"} {
		add(p, nil)
	}
	for _, t := range aclTypes {
		add("/kafka-acl/"+t, nil)
		add("/kafka-acl-extended/prefixed/"+t, nil)
	}
	add("/latest_producer_id_block", producerIDBlockZNode(1, int64(rng.IntN(5000))*1000))
	add("/controller_epoch", []byte(strconv.Itoa(g.controllerEpoch)))
	controller := 1 + rng.IntN(g.cfg.Brokers)
	add("/controller", controllerZNode(controller, g.now-rng.Int64N(86400000)))
	add("/feature", featureZNode())
	for id := 1; id <= g.cfg.Brokers; id++ {
		host := fmt.Sprintf("broker-%d.kafka.internal", id)
		b := brokerZNode{
			Features:    map[string]featureRange{"metadata.version": {1, metadataVersion}},
			ListenerMap: map[string]string{"PLAINTEXT": "PLAINTEXT", "SASL_SSL": "SASL_SSL"},
			Endpoints:   []string{fmt.Sprintf("PLAINTEXT://%s:9092", host), fmt.Sprintf("SASL_SSL://broker-%d.kafka.example.com:9094", id)},
			Rack:        fmt.Sprintf("eu-west-1%c", 'a'+byte((id-1)%3)),
			JMXPort:     9999,
			Port:        9092,
			Host:        &host,
			Timestamp:   strconv.FormatInt(g.now-rng.Int64N(30*86400000), 10),
			Version:     5,
		}
		add("/brokers/ids/"+strconv.Itoa(id), mustJSON(b))
		g.sum.Brokers++
	}
	g.count(out)
	return out
}

// body produces every other node, one self-contained unit at a time.
func (g *gen) body(emit func([]Node) error) error {
	for _, section := range []func(func([]Node) error) error{g.topics, g.brokerConfigs, g.quotasAndUsers, g.acls, g.extras} {
		if err := section(func(u []Node) error { g.count(u); return emit(u) }); err != nil {
			return err
		}
	}
	return nil
}

// pipeline packs units into batches and hands each batch to a worker. A
// unit larger than a batch goes, in order, to a single worker.
type pipeline struct {
	ctx    context.Context
	cancel context.CancelFunc
	size   int
	chans  []chan []Node
	cur    []Node
	bytes  int // data and path bytes in cur
	next   int
	wg     sync.WaitGroup
	mu     sync.Mutex
	err    error
}

func newPipeline(ctx context.Context, w Writer, opt Options, report func(int)) *pipeline {
	ctx, cancel := context.WithCancel(ctx)
	p := &pipeline{ctx: ctx, cancel: cancel, size: opt.Batch}
	for wk := range opt.Writers {
		ch := make(chan []Node, 2)
		p.chans = append(p.chans, ch)
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			for b := range ch {
				if err := w.Write(ctx, wk, b); err != nil {
					p.fail(err)
					return
				}
				report(len(b))
			}
		}()
	}
	return p
}

func (p *pipeline) fail(err error) {
	p.mu.Lock()
	if p.err == nil {
		p.err = err
	}
	p.mu.Unlock()
	p.cancel()
}

func (p *pipeline) send(wk int, b []Node) error {
	select {
	case p.chans[wk] <- b:
		return nil
	case <-p.ctx.Done():
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.err != nil {
			return p.err
		}
		return p.ctx.Err()
	}
}

// MaxBatchBytes caps the paths and data of one batch well below
// ZooKeeper's default jute.maxbuffer (1 MiB), which closes the connection
// of a client that sends a larger request.
const MaxBatchBytes = 512 << 10

func nodeBytes(nodes []Node) int {
	n := 0
	for _, x := range nodes {
		n += len(x.Path) + len(x.Data) + 32
	}
	return n
}

func (p *pipeline) unit(nodes []Node) error {
	size := nodeBytes(nodes)
	if len(p.cur) > 0 && (len(p.cur)+len(nodes) > p.size || p.bytes+size > MaxBatchBytes) {
		if err := p.flush(); err != nil {
			return err
		}
	}
	if len(nodes) > p.size || size > MaxBatchBytes {
		wk := p.next
		p.next = (p.next + 1) % len(p.chans)
		for len(nodes) > 0 {
			n, b := 0, 0
			for n < len(nodes) && n < p.size && (n == 0 || b+nodeBytes(nodes[n:n+1]) <= MaxBatchBytes) {
				b += nodeBytes(nodes[n : n+1])
				n++
			}
			if err := p.send(wk, nodes[:n:n]); err != nil {
				return err
			}
			nodes = nodes[n:]
		}
		return nil
	}
	p.cur = append(p.cur, nodes...)
	p.bytes += size
	return nil
}

func (p *pipeline) flush() error {
	if len(p.cur) == 0 {
		return nil
	}
	b := p.cur
	p.cur, p.bytes = make([]Node, 0, p.size), 0
	wk := p.next
	p.next = (p.next + 1) % len(p.chans)
	return p.send(wk, b)
}

func (p *pipeline) close() error {
	for _, ch := range p.chans {
		close(ch)
	}
	p.wg.Wait()
	p.cancel()
	return p.err
}
