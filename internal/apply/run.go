package apply

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/zkmigrate/zkmigrate/internal/english"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/secret"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// Requester sends admin requests; *kgo.Client satisfies it. Sharded
// requests (configs) go to the brokers that own their resources.
type Requester interface {
	RequestSharded(ctx context.Context, req kmsg.Request) []kgo.ResponseShard
}

// SecretResolver finds a secret's value for plans loaded from a file (which
// never hold values). It is asked for one change's one key (plan.ScramKey
// for a SCRAM password) and the reference the plan holds there, so that a
// reference resolves only into the resource and key it was read from;
// *plan.Secrets is one.
type SecretResolver interface {
	Resolve(changeID, key, ref string) (string, bool)
}

// Options tune an apply.
type Options struct {
	ValidateOnly  bool          // send everything as a server-side dry run where the RPC has one
	NoPreflight   bool          // skip the validate-only request before each real one
	BatchSize     int           // resources per request (default 500)
	MaxInFlight   int           // concurrent requests within one kind (default 4)
	Rate          float64       // resources per second, 0 = unlimited
	Retries       int           // attempts for retriable errors (default 5)
	Backoff       time.Duration // first retry delay, doubled each time (default 250ms)
	TimeoutMillis int32         // server-side timeout for topic RPCs (default 30000)
	// ConcurrentKinds sends every kind at the same time, but for a change
	// to a resource that an earlier kind of its lane changes too (a
	// topic's partitions after its creation, its configs after both):
	// that one waits for the kinds before it. Off, every kind waits for
	// the one before. Sync's rounds use it: a round carries a few changes
	// of many kinds, and each kind's request waits for the controller.
	ConcurrentKinds bool
	Secrets         SecretResolver
	Now             func() time.Time
	// Halt, when set, is asked immediately before every request the run
	// would send (each validate-only preflight, each retry after its
	// backoff): once it answers an error, nothing more is sent. The
	// changes not sent are skipped (ReasonHalted) and named in
	// Result.Halted; a request already sent is answered as usual. Sync's
	// freeze is such a barrier.
	Halt func() error
}

func (o *Options) defaults() {
	if o.BatchSize <= 0 {
		o.BatchSize = 500
	}
	if o.MaxInFlight <= 0 {
		o.MaxInFlight = 4
	}
	if o.Retries <= 0 {
		o.Retries = 5
	}
	if o.Backoff <= 0 {
		o.Backoff = 250 * time.Millisecond
	}
	if o.TimeoutMillis <= 0 {
		o.TimeoutMillis = 30000
	}
	if o.Now == nil {
		o.Now = time.Now
	}
}

// Result sums up an apply.
type Result struct {
	Succeeded    int
	Failed       int
	Skipped      int
	NotValidated int // of Skipped: changes a validate-only run could not validate, so did not send
	Canceled     bool
	// Stopped says why the run stopped before sending everything, other
	// than an interruption: the target stopped answering (a request got no
	// answer even after the client's retries), so the rest was not sent.
	Stopped  error
	Failures []ResourceResult
	// Halted, when Options.Halt stopped the run, names the changes it did
	// not send.
	Halted *HaltedError
}

// HaltedError says that Options.Halt stopped a run before it sent
// Unsent (change ids, in the order they were held back).
type HaltedError struct {
	Cause  error
	Unsent []string
}

func (e *HaltedError) Error() string {
	n := len(e.Unsent)
	shown := strings.Join(e.Unsent[:min(n, 5)], ", ")
	if n > 5 {
		shown += fmt.Sprintf(" (and %d more)", n-5)
	}
	return fmt.Sprintf("stopped before sending %s (%v): %s", english.N(n, "change"), e.Cause, shown)
}

func (e *HaltedError) Unwrap() error { return e.Cause }

// maxRecordsPerRequest keeps a CreateTopics request under the KRaft
// controller's limit of 10,000 records per operation.
const maxRecordsPerRequest = 9000

// Run applies the plan's changes to the target. target is the target's
// state read just before, used for the staleness rule: changes already in
// their After state are skipped, and if any change is stale nothing is sent
// and a *plan.StaleError is returned. Per-resource failures do not stop the
// others; they are counted in the Result and reported as events.
func Run(ctx context.Context, cl Requester, p *plan.Plan, target *snapshot.Snapshot, o Options, obs Observer) (Result, error) {
	o.defaults()
	if obs == nil {
		obs = Observers{}
	}
	if err := plan.Validate(p); err != nil {
		return Result{}, err
	}
	if o.ValidateOnly {
		cl = DryRun(cl) // the one place a dry run is kept from writing
	}
	r := &runner{cl: cl, o: o, obs: &syncObserver{o: obs}}
	todo, done, err := plan.Triage(p, target)
	if err != nil {
		return Result{}, err
	}
	r.rpcs = make(map[*plan.Change]*rpc, len(todo))
	for _, c := range todo {
		if err := r.checkSecrets(c); err != nil {
			return Result{}, err
		}
		x, err := rpcFor(c)
		if err != nil { // plan.Validate refused it already (TestKindRegistry)
			return Result{}, fmt.Errorf("plan change %s: %v", c.ID, err)
		}
		r.rpcs[c] = x
	}
	var found map[string]*plan.State
	var ix *plan.Target // indexed only when a change deletes something
	if !o.ValidateOnly {
		for _, c := range todo {
			if c.Action != plan.ActionDelete {
				continue
			}
			if ix == nil {
				ix = plan.NewTarget(target)
			}
			if w := ix.Whole(c); w != nil {
				if found == nil {
					found = map[string]*plan.State{}
				}
				found[c.ID] = w
			}
		}
	}
	r.obs.Observe(RunStarted{Time: o.Now(), Plan: p, ValidateOnly: o.ValidateOnly, Total: len(todo), Found: found})
	for _, c := range done {
		r.skip(c, ReasonAlreadyApplied, "the target is already in the planned state")
	}
	if o.ConcurrentKinds {
		// Every kind at once, but for the changes that follow another
		// kind's change to the same resource in their lane (a topic's
		// partitions after its creation, say): those go afterwards, each
		// lane in order.
		now, after := byLaneOrder(todo)
		sendLanes(ctx, r, kindsApart(), now)
		sendLanes(ctx, r, kindLanes(), after)
	} else {
		sendLanes(ctx, r, [][]plan.Kind{plan.Kinds}, todo)
	}
	r.res.Canceled = ctx.Err() != nil
	finishErr := r.res.Stopped
	if len(r.unsent) > 0 {
		r.res.Halted = &HaltedError{Cause: r.halt, Unsent: r.unsent}
		if finishErr == nil {
			finishErr = r.res.Halted
		}
	}
	r.obs.Observe(RunFinished{Time: o.Now(), Succeeded: r.res.Succeeded, Failed: r.res.Failed, Skipped: r.res.Skipped, NotValidated: r.res.NotValidated,
		Canceled: r.res.Canceled, Err: finishErr})
	return r.res, nil
}

// sendLanes sends todo's changes lane by lane, the lanes at the same
// time, each lane's kinds one after another.
func sendLanes(ctx context.Context, r *runner, lanes [][]plan.Kind, todo []*plan.Change) {
	if len(todo) == 0 {
		return
	}
	var wg sync.WaitGroup
	for _, lane := range lanes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, k := range lane {
				r.sendKind(ctx, k, todo)
			}
		}()
	}
	wg.Wait()
}

// byLaneOrder splits todo into the changes that may go at once and those
// that must follow a change of an earlier kind of their lane (in
// plan.Kinds order) to the same resource.
func byLaneOrder(todo []*plan.Change) (now, after []*plan.Change) {
	type key struct{ lane, typ, name string }
	rank := map[plan.Kind]int{}
	for i, k := range plan.Kinds {
		rank[k] = i
	}
	first := map[key]int{} // the earliest kind (rank) changing each resource
	keyOf := func(c *plan.Change) (key, bool) {
		k := kindSpecs[c.Kind]
		if k == nil || k.lane == "" {
			return key{}, false
		}
		return key{k.lane, c.Resource.Type, c.Resource.Name}, true
	}
	for _, c := range todo {
		if k, ok := keyOf(c); ok {
			if r, seen := first[k]; !seen || rank[c.Kind] < r {
				first[k] = rank[c.Kind]
			}
		}
	}
	for _, c := range todo {
		if k, ok := keyOf(c); ok && first[k] < rank[c.Kind] {
			after = append(after, c)
			continue
		}
		now = append(now, c)
	}
	return now, after
}

// sendKind sends the changes of kind k among todo.
func (r *runner) sendKind(ctx context.Context, k plan.Kind, todo []*plan.Change) {
	var ofKind []*plan.Change
	for _, c := range todo {
		if c.Kind == k {
			ofKind = append(ofKind, c)
		}
	}
	if r.o.ValidateOnly {
		ofKind = slices.DeleteFunc(ofKind, func(c *plan.Change) bool {
			x := r.rpcs[c]
			if x.validateOnly {
				return false
			}
			r.mu.Lock()
			r.res.NotValidated++
			r.mu.Unlock()
			r.skip(c, ReasonNotValidated, "not validated: would send "+x.name)
			return true
		})
	}
	if len(ofKind) == 0 || r.halted(ctx, ofKind) {
		return
	}
	r.runKind(ctx, kindSpecs[k], ofKind)
}

type runner struct {
	cl   Requester
	o    Options
	obs  *syncObserver
	rpcs map[*plan.Change]*rpc // the RPC that carries each change to send

	mu      sync.Mutex
	res     Result
	batchNo int
	nextAt  time.Time // rate limiter
	halt    error     // what Options.Halt answered, once it did
	unsent  []string  // the changes held back by it
}

type syncObserver struct {
	mu sync.Mutex
	o  Observer
}

func (s *syncObserver) Observe(e Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.o.Observe(e)
}

func (r *runner) skip(c *plan.Change, reason SkipReason, detail string) {
	r.mu.Lock()
	r.res.Skipped++
	r.mu.Unlock()
	r.obs.Observe(ChangeSkipped{Change: c, Reason: reason, Detail: detail})
}

func (r *runner) checkSecrets(c *plan.Change) error {
	for _, s := range []*plan.State{c.After} {
		if s == nil {
			continue
		}
		if s.Password != nil {
			if _, ok := r.secret(c, plan.ScramKey, s.Password); !ok {
				return fmt.Errorf("the password for %s %s (%s) is not available: give --scram-credentials", c.Resource.Name, c.Resource.Mechanism, s.Password.Ref())
			}
		}
		for _, cf := range s.Configs {
			if cf.Sensitive && cf.Secret != nil {
				if _, ok := r.secret(c, cf.Key, cf.Secret); !ok {
					return fmt.Errorf("the value of sensitive config %s (%s) is not available: give --zookeeper and --password-encoder-secret-file", cf.Key, cf.Secret.Ref())
				}
			}
		}
	}
	return nil
}

func (r *runner) secret(c *plan.Change, key string, s *secret.Secret) (string, bool) {
	if v, ok := s.Reveal(); ok {
		return v, true
	}
	if r.o.Secrets != nil {
		return r.o.Secrets.Resolve(c.ID, key, s.Ref())
	}
	return "", false
}

// runKind sends all changes of one kind, in batches, a few at a time.
func (r *runner) runKind(ctx context.Context, k *kindSpec, cs []*plan.Change) {
	batches := r.batches(k, cs)
	sem := make(chan struct{}, r.o.MaxInFlight)
	var wg sync.WaitGroup
	for i, b := range batches {
		r.wait(ctx, len(b))
		sem <- struct{}{}
		if r.halted(ctx, slices.Concat(batches[i:]...)) {
			<-sem
			break
		}
		wg.Add(1)
		go func(b []*plan.Change) {
			defer func() { <-sem; wg.Done() }()
			// A batch in flight is finished even when the user interrupts:
			// its requests are not cut, but it does not wait to retry.
			r.runBatch(context.WithoutCancel(ctx), ctx, k, b)
		}(b)
	}
	wg.Wait()
}

// halted skips cs and reports true when the run must send nothing more:
// the user interrupted it, or the target stopped answering.
func (r *runner) halted(ctx context.Context, cs []*plan.Change) bool {
	r.mu.Lock()
	stopped := r.res.Stopped
	r.mu.Unlock()
	switch {
	case r.holdBack(cs):
	case ctx.Err() != nil:
		for _, c := range cs {
			r.skip(c, ReasonCanceled, "apply was interrupted before this change was sent")
		}
	case stopped != nil:
		for _, c := range cs {
			r.skip(c, ReasonNotSent, "not sent: "+stopped.Error())
		}
	default:
		return false
	}
	return true
}

// holdBack asks Options.Halt, and once it has answered an error skips cs
// (ReasonHalted, named in Result.Halted) and reports true: nothing more
// is sent.
func (r *runner) holdBack(cs []*plan.Change) bool {
	r.mu.Lock()
	err := r.halt
	r.mu.Unlock()
	if err == nil && r.o.Halt != nil {
		err = r.o.Halt()
	}
	if err == nil {
		return false
	}
	r.mu.Lock()
	if r.halt == nil {
		r.halt = err
	}
	for _, c := range cs {
		r.unsent = append(r.unsent, c.ID)
	}
	r.mu.Unlock()
	for _, c := range cs {
		r.skip(c, ReasonHalted, "not sent: "+err.Error())
	}
	return true
}

// wait applies the --rate limit.
func (r *runner) wait(ctx context.Context, n int) {
	if r.o.Rate <= 0 {
		return
	}
	r.mu.Lock()
	now := r.o.Now()
	at := r.nextAt
	if at.Before(now) {
		at = now
	}
	r.nextAt = at.Add(time.Duration(float64(n) / r.o.Rate * float64(time.Second)))
	r.mu.Unlock()
	if d := at.Sub(now); d > 0 {
		select {
		case <-time.After(d):
		case <-ctx.Done():
		}
	}
}

// batches splits one kind's changes into requests: by RPC and the kind's
// batch key (one broker per broker-config request), by size, by records
// (CreateTopics), and one change per user where the kind needs it (SCRAM).
func (r *runner) batches(k *kindSpec, cs []*plan.Change) [][]*plan.Change {
	groups := map[string][]*plan.Change{}
	var order []string
	for _, c := range cs {
		key := r.rpcs[c].name
		if k.batchKey != nil {
			key += "/" + k.batchKey(c)
		}
		if _, ok := groups[key]; !ok {
			order = append(order, key)
		}
		groups[key] = append(groups[key], c)
	}
	var out [][]*plan.Change
	for _, key := range order {
		var cur []*plan.Change
		records := 0
		users := map[string]bool{}
		flush := func() {
			if len(cur) > 0 {
				out = append(out, cur)
			}
			cur, records, users = nil, 0, map[string]bool{}
		}
		for _, c := range groups[key] {
			rec := 1
			if k.records != nil {
				rec = k.records(c)
			}
			if len(cur) >= r.o.BatchSize || records+rec > maxRecordsPerRequest || (k.onePerUser && users[c.Resource.Name]) {
				flush()
			}
			cur = append(cur, c)
			records += rec
			users[c.Resource.Name] = true
		}
		flush()
	}
	return out
}

// outcome is one resource's result in a response.
type outcome struct {
	code int16
	msg  string
}

// runBatch sends one batch: a validate-only preflight where the RPC has one,
// then the real request, retrying retriable failures with backoff. Each
// request is a batch of its own in the events (BatchSent.Batch); Attempt
// counts the real requests for these changes (1, then 2... for retries;
// the preflight is attempt 1 with ValidateOnly). Its requests go out under
// ctx; stop ends a wait to retry (the user's interrupt: the batch's
// answers stand, nothing more is sent).
func (r *runner) runBatch(ctx, stop context.Context, k *kindSpec, b []*plan.Change) {
	x := r.rpcs[b[0]]
	pending := b
	if !r.o.ValidateOnly && !r.o.NoPreflight && x.validateOnly {
		if r.holdBack(pending) {
			return
		}
		res, no := r.send(ctx, x, pending, true, 1)
		var ok []*plan.Change
		for i, c := range pending {
			if res[i].code != 0 {
				r.report(c, res[i], true, no)
				continue
			}
			ok = append(ok, c)
		}
		pending = ok
	}
	backoff := r.o.Backoff
	for attempt := 1; len(pending) > 0; attempt++ {
		if r.holdBack(pending) { // checked again after every backoff
			return
		}
		res, no := r.send(ctx, x, pending, r.o.ValidateOnly, attempt)
		var retry []*plan.Change
		var last []outcome // the answers of the changes to retry
		for i, c := range pending {
			o := res[i]
			if o.code != 0 && retriable(o.code) && attempt < r.o.Retries {
				retry, last = append(retry, c), append(last, o)
				continue
			}
			if attempt > 1 && o.code != 0 && k.alreadyDone != nil && k.alreadyDone(c, o.code) {
				o = outcome{} // an earlier attempt went through before its response was lost
			}
			r.report(c, o, r.o.ValidateOnly, no)
		}
		pending = retry
		if len(pending) > 0 && !sleep(stop, backoff) {
			// Stopped while waiting to try again: nothing more is sent,
			// and each change keeps the answer it got.
			for i, c := range pending {
				r.report(c, last[i], r.o.ValidateOnly, no)
			}
			return
		}
		backoff *= 2
	}
}

// sleep waits d, or until ctx is done: false then.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// unanswered reports whether a request failed because the target did not
// answer (a timeout, a connection that died) even after the client's own
// retries; a refused connection (a broker restarting) is not that.
func unanswered(err error) bool {
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	var op *net.OpError
	return kgo.IsRetryableBrokerErr(err) && !(errors.As(err, &op) && op.Op == "dial")
}

func retriable(code int16) bool {
	if code == requestFailed {
		return true // the broker may be restarting: try the request again
	}
	e := kerr.ErrorForCode(code)
	var ke *kerr.Error
	if errors.As(e, &ke) {
		return ke.Retriable || code == kerr.ThrottlingQuotaExceeded.Code || code == kerr.NotController.Code
	}
	return false
}

// Internal outcome codes: requestFailed when the whole request failed (no
// response; retried), noResult when a response left a resource out,
// refused when the dry-run guard kept the request from being sent,
// noAnswer when the target did not answer even after the client's own
// retries (not retried: the run stops).
const (
	requestFailed int16 = -2
	noResult      int16 = -3
	refused       int16 = -4
	noAnswer      int16 = -5
)

func (r *runner) report(c *plan.Change, o outcome, validate bool, batch int) {
	rr := ResourceResult{Change: c, Batch: batch, ValidateOnly: validate, ErrorCode: o.code, Message: o.msg}
	if o.code != 0 {
		if o.code == requestFailed || o.code == noResult || o.code == refused || o.code == noAnswer {
			rr.ErrorCode = -1
			rr.ErrorName = map[int16]string{requestFailed: "REQUEST_FAILED", noResult: "NO_RESULT", refused: "NOT_SENT", noAnswer: "NO_ANSWER"}[o.code]
			rr.Err = errors.New(o.msg)
		} else {
			e := kerr.ErrorForCode(o.code)
			rr.Err = e
			var ke *kerr.Error
			if errors.As(e, &ke) {
				rr.ErrorName = ke.Message
			}
			if rr.Message == "" {
				rr.Message = e.Error()
			}
		}
	}
	r.mu.Lock()
	if o.code == noAnswer && r.res.Stopped == nil {
		r.res.Stopped = errors.New(o.msg)
	}
	if rr.Err == nil {
		r.res.Succeeded++
	} else {
		r.res.Failed++
		r.res.Failures = append(r.res.Failures, rr)
	}
	r.mu.Unlock()
	r.obs.Observe(rr)
}

// send issues one request for the batch and maps the response to one
// outcome per change, in order. A request that fails as a whole gives every
// change the requestFailed outcome, which runBatch retries.
func (r *runner) send(ctx context.Context, x *rpc, b []*plan.Change, validate bool, attempt int) ([]outcome, int) {
	req, match := x.build(r, b, validate)
	r.mu.Lock()
	r.batchNo++
	no := r.batchNo
	r.mu.Unlock()
	broker := int32(-1)
	if k := kindSpecs[b[0].Kind]; k.broker != nil {
		broker = k.broker(b[0])
	}
	start := r.o.Now()
	r.obs.Observe(BatchSent{Batch: no, RPC: x.name, Version: -1, Broker: broker, ValidateOnly: validate, Changes: b, Time: start, Attempt: attempt})
	rctx, cancel := context.WithTimeout(ctx, time.Duration(r.o.TimeoutMillis+15000)*time.Millisecond)
	shards := r.cl.RequestSharded(rctx, req)
	cancel()
	dur := r.o.Now().Sub(start)
	// A change the response does not mention has failed: never assume success.
	out := make([]outcome, len(b))
	for i := range out {
		out[i] = outcome{code: noResult, msg: "the response did not mention this resource"}
	}
	var reqErr error
	got := 0
	host := ""
	for _, sh := range shards {
		if sh.Meta.NodeID >= 0 {
			broker = sh.Meta.NodeID
		}
		if sh.Meta.Host != "" {
			host = net.JoinHostPort(sh.Meta.Host, strconv.Itoa(int(sh.Meta.Port)))
		}
		if sh.Err != nil {
			reqErr = sh.Err
			continue
		}
		got++
		match(sh.Resp, out)
	}
	if got == 0 && reqErr == nil {
		reqErr = errors.New("no response")
	}
	if reqErr != nil && got == 0 {
		code, msg := requestFailed, reqErr.Error()
		if _, ok := reqErr.(*RefusedError); ok {
			code = refused
		} else if unanswered(reqErr) {
			code = noAnswer
			if host == "" {
				host = "the target"
			}
			msg = fmt.Sprintf("no answer from %s to %s: %v", host, x.name, reqErr)
		}
		for i := range out {
			out[i] = outcome{code: code, msg: msg}
		}
	}
	r.obs.Observe(BatchDone{Batch: no, RPC: x.name, Version: req.GetVersion(), Broker: broker, Duration: dur, Err: reqErr, Attempt: attempt})
	return out, no
}

func (r *runner) value(c *plan.Change, cf snapshot.Config) string {
	if cf.Sensitive && cf.Secret != nil {
		v, _ := r.secret(c, cf.Key, cf.Secret)
		return v
	}
	return cf.Value
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func ptr[T any](v T) *T { return &v }
