package apply

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
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
	Secrets       SecretResolver
	Now           func() time.Time
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
}

// StaleError refuses a plan whose resources are in neither their planned
// before- nor after-state on the target. Nothing was sent.
type StaleError struct {
	Resources []string // "kind resource: observed state"
}

func (e *StaleError) Error() string {
	n := len(e.Resources)
	shown := e.Resources[:min(n, 5)]
	more := ""
	if n > 5 {
		more = fmt.Sprintf(" (and %d more)", n-5)
	}
	return fmt.Sprintf("plan is stale for %d resource(s): %s%s; re-run plan", n, strings.Join(shown, "; "), more)
}

// Stale returns a *StaleError naming the changes of p whose resources are
// on target in neither their before- nor their after-state, or nil. Run
// refuses such a plan; apply --plan checks it first, so that a stale plan
// is reported as stale before the source is asked to justify it.
func Stale(p *plan.Plan, target *snapshot.Snapshot) error {
	var stale []string
	ix := plan.NewTarget(target)
	for i := range p.Changes {
		c := &p.Changes[i]
		if st, observed := ix.Check(c); st == plan.Stale {
			stale = append(stale, fmt.Sprintf("%s %s: found %s", c.Kind, c.Resource.Name, observed))
		}
	}
	if len(stale) > 0 {
		return &StaleError{Resources: stale}
	}
	return nil
}

// rpcOf is the RPC each kind and action must use.
func rpcOf(c *plan.Change) string {
	switch c.Kind {
	case plan.KindTopic:
		if c.Action == plan.ActionDelete {
			return plan.RPCDeleteTopics
		}
		return plan.RPCCreateTopics
	case plan.KindPartitions:
		return plan.RPCCreatePartitions
	case plan.KindReassignment:
		return plan.RPCAlterReassignments
	case plan.KindTopicConfig, plan.KindBrokerConfig:
		return plan.RPCIncrementalAlter
	case plan.KindQuota:
		return plan.RPCAlterClientQuotas
	case plan.KindACL:
		if c.Action == plan.ActionDelete {
			return plan.RPCDeleteACLs
		}
		return plan.RPCCreateACLs
	case plan.KindScramUser:
		return plan.RPCAlterUserScramCredRPC
	}
	return ""
}

// Validate checks that a plan (possibly read from a file someone edited)
// is one apply can carry out: known kinds and RPCs, and the states each
// needs. The error names the first bad change.
func Validate(p *plan.Plan) error {
	for i := range p.Changes {
		c := &p.Changes[i]
		bad := func(why string) error { return fmt.Errorf("plan change %d (%s): %s", i+1, c.ID, why) }
		want := rpcOf(c)
		switch {
		case want == "":
			return bad(fmt.Sprintf("unknown kind %q", c.Kind))
		case c.RPC != want:
			return bad(fmt.Sprintf("RPC %q does not carry a %s %s (want %s)", c.RPC, c.Kind, c.Action, want))
		case c.Action != plan.ActionDelete && c.After == nil:
			return bad("no after-state")
		case (c.Kind == plan.KindTopicConfig || c.Kind == plan.KindBrokerConfig || c.Kind == plan.KindQuota || c.Kind == plan.KindPartitions) && c.Before == nil:
			return bad("no before-state")
		case c.Kind == plan.KindACL && c.Resource.ACL == nil:
			return bad("no ACL")
		case c.Kind == plan.KindQuota && len(c.Resource.Entity) == 0:
			return bad("no quota entity")
		case c.Kind == plan.KindScramUser && (c.After.Password == nil || c.Resource.Mechanism == ""):
			return bad("no password reference or mechanism")
		}
		if why := validResource(c); why != "" {
			return bad(why)
		}
		if why := validStates(c); why != "" {
			return bad(why)
		}
		if why := validSecrets(c); why != "" {
			return bad(why)
		}
	}
	return nil
}

// resourceTypes is the resource type each kind changes.
var resourceTypes = map[plan.Kind]string{
	plan.KindTopic: "topic", plan.KindPartitions: "topic", plan.KindReassignment: "topic", plan.KindTopicConfig: "topic",
	plan.KindBrokerConfig: "broker", plan.KindQuota: "quota", plan.KindACL: "acl", plan.KindScramUser: "user",
}

// validResource checks that a change names its resource consistently and
// that it is not a Kafka-internal topic, which the tool never creates,
// alters or deletes.
func validResource(c *plan.Change) string {
	r := c.Resource
	switch {
	case r.Type != resourceTypes[c.Kind]:
		return fmt.Sprintf("resource type %q is not what a %s change touches (%s)", r.Type, c.Kind, resourceTypes[c.Kind])
	case r.Type == "topic" && snapshot.IsInternalTopic(r.Name):
		return fmt.Sprintf("%s is a Kafka-internal topic, which is never created, altered or deleted", r.Name)
	case (r.Type == "topic" || r.Type == "user") && r.Name == "":
		return "no resource name"
	case c.ID != plan.ChangeID(c.Kind, r):
		return fmt.Sprintf("the id does not name the change's resource (want %s)", plan.ChangeID(c.Kind, r))
	}
	return ""
}

// validStates checks the numbers of a change's states: no negative counts
// or broker ids, and a partitions change that adds partitions.
func validStates(c *plan.Change) string {
	for _, st := range []*plan.State{c.Before, c.After} {
		if st == nil {
			continue
		}
		switch {
		case st.Partitions < 0:
			return fmt.Sprintf("negative partition count %d", st.Partitions)
		case st.ReplicationFactor < 0 || st.ReplicationFactor > math.MaxInt16:
			return fmt.Sprintf("replication factor %d out of range", st.ReplicationFactor)
		case st.Iterations < 0:
			return fmt.Sprintf("negative iterations %d", st.Iterations)
		}
		for _, rs := range st.Assignment {
			for _, r := range rs {
				if r < 0 {
					return fmt.Sprintf("negative broker id %d in an assignment", r)
				}
			}
		}
	}
	if c.Kind == plan.KindPartitions && c.After.Partitions <= c.Before.Partitions {
		return fmt.Sprintf("a partitions change from %d to %d partitions adds none", c.Before.Partitions, c.After.Partitions)
	}
	return ""
}

// validSecrets checks that every secret reference in a change's after-state
// is one the tool writes for that resource and key: a SCRAM credential's
// for that user and mechanism only, a config's for that config key only
// (and a topic's for that topic), never a SCRAM reference in a config. The
// reference is resolved again from the inputs of this run (see
// SecretResolver); this refuses an edited plan early, by name.
func validSecrets(c *plan.Change) string {
	if c.After == nil {
		return ""
	}
	if pw := c.After.Password; pw != nil {
		if c.Kind != plan.KindScramUser {
			return "a password in a " + string(c.Kind) + " change"
		}
		if want := "scram-credentials:" + c.Resource.Name + "/" + c.Resource.Mechanism; pw.Ref() != want {
			return fmt.Sprintf("password reference %q is not this credential's (%s)", pw.Ref(), want)
		}
	}
	for _, cf := range c.After.Configs {
		switch {
		case cf.Secret == nil && !cf.Sensitive:
			continue
		case cf.Secret == nil || !cf.Sensitive:
			return fmt.Sprintf("config %s: a secret reference needs sensitive=true and sensitive=true needs a secret reference", cf.Key)
		case cf.Value != "":
			return fmt.Sprintf("config %s: a sensitive config holds no value", cf.Key)
		}
		ref := cf.Secret.Ref()
		switch {
		case strings.HasPrefix(ref, "scram-credentials:"):
			return fmt.Sprintf("config %s refers to a SCRAM credential (%s)", cf.Key, ref)
		case !strings.HasSuffix(ref, "#"+cf.Key):
			return fmt.Sprintf("config %s refers to another key's secret (%s)", cf.Key, ref)
		case c.Resource.Type == "topic" && !strings.HasSuffix(ref, "/"+c.Resource.Name+"#"+cf.Key):
			return fmt.Sprintf("config %s of topic %s refers to a secret of another resource (%s)", cf.Key, c.Resource.Name, ref)
		case c.Resource.Type == "broker" && !strings.Contains(ref, "/config/brokers/") && !strings.Contains(ref, "broker/"):
			return fmt.Sprintf("config %s of broker %s refers to a secret that is not a broker config (%s)", cf.Key, c.Resource.Name, ref)
		}
	}
	return ""
}

// maxRecordsPerRequest keeps a CreateTopics request under the KRaft
// controller's limit of 10,000 records per operation.
const maxRecordsPerRequest = 9000

// Run applies the plan's changes to the target. target is the target's
// state read just before, used for the staleness rule: changes already in
// their After state are skipped, and if any change is stale nothing is sent
// and a *StaleError is returned. Per-resource failures do not stop the
// others; they are counted in the Result and reported as events.
func Run(ctx context.Context, cl Requester, p *plan.Plan, target *snapshot.Snapshot, o Options, obs Observer) (Result, error) {
	o.defaults()
	if obs == nil {
		obs = Observers{}
	}
	if err := Validate(p); err != nil {
		return Result{}, err
	}
	if o.ValidateOnly {
		cl = DryRun(cl) // the one place a dry run is kept from writing
	}
	r := &runner{cl: cl, o: o, obs: &syncObserver{o: obs}}
	var todo []*plan.Change
	var done []*plan.Change
	var stale []string
	ix := plan.NewTarget(target)
	for i := range p.Changes {
		c := &p.Changes[i]
		switch st, observed := ix.Check(c); st {
		case plan.Pending:
			todo = append(todo, c)
		case plan.Done:
			done = append(done, c)
		default:
			stale = append(stale, fmt.Sprintf("%s %s: found %s", c.Kind, c.Resource.Name, observed))
		}
	}
	if len(stale) > 0 {
		return Result{}, &StaleError{Resources: stale}
	}
	for _, c := range todo {
		if err := r.checkSecrets(c); err != nil {
			return Result{}, err
		}
	}
	r.obs.Observe(RunStarted{Time: o.Now(), Plan: p, ValidateOnly: o.ValidateOnly, Total: len(todo)})
	for _, c := range done {
		r.skip(c, "already-applied", "the target is already in the planned state")
	}
	for _, k := range plan.Kinds {
		var ofKind []*plan.Change
		for _, c := range todo {
			if c.Kind == k {
				ofKind = append(ofKind, c)
			}
		}
		if o.ValidateOnly {
			ofKind = slices.DeleteFunc(ofKind, func(c *plan.Change) bool {
				if hasValidateOnly(c.RPC) {
					return false
				}
				r.mu.Lock()
				r.res.NotValidated++
				r.mu.Unlock()
				r.skip(c, ReasonNotValidated, "not validated: would send "+c.RPC)
				return true
			})
		}
		if len(ofKind) == 0 {
			continue
		}
		if r.halted(ctx, ofKind) {
			continue
		}
		r.runKind(ctx, ofKind)
	}
	r.res.Canceled = ctx.Err() != nil
	r.obs.Observe(RunFinished{Time: o.Now(), Succeeded: r.res.Succeeded, Failed: r.res.Failed, Skipped: r.res.Skipped, NotValidated: r.res.NotValidated,
		Canceled: r.res.Canceled, Err: r.res.Stopped})
	return r.res, nil
}

type runner struct {
	cl  Requester
	o   Options
	obs *syncObserver

	mu      sync.Mutex
	res     Result
	batchNo int
	nextAt  time.Time // rate limiter
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

func (r *runner) skip(c *plan.Change, reason, detail string) {
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
func (r *runner) runKind(ctx context.Context, cs []*plan.Change) {
	batches := r.batches(cs)
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
			// A batch in flight is finished even when the user interrupts.
			r.runBatch(context.WithoutCancel(ctx), b)
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
	case ctx.Err() != nil:
		for _, c := range cs {
			r.skip(c, "canceled", "apply was interrupted before this change was sent")
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

// batches splits one kind's changes into requests: by RPC, by size, by
// records for CreateTopics, one broker per broker-config request, and one
// change per user per SCRAM request.
func (r *runner) batches(cs []*plan.Change) [][]*plan.Change {
	groups := map[string][]*plan.Change{}
	var order []string
	for _, c := range cs {
		key := c.RPC
		if c.Kind == plan.KindBrokerConfig {
			key += "/" + c.Resource.Name
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
			if c.Kind == plan.KindTopic && c.After != nil {
				rec += int(c.After.Partitions) + len(c.After.Configs)
			}
			if len(cur) >= r.o.BatchSize || records+rec > maxRecordsPerRequest || (c.Kind == plan.KindScramUser && users[c.Resource.Name]) {
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
// then the real request, retrying retriable failures with backoff.
func (r *runner) runBatch(ctx context.Context, b []*plan.Change) {
	pending := b
	if !r.o.ValidateOnly && !r.o.NoPreflight && hasValidateOnly(b[0].RPC) {
		res := r.send(ctx, pending, true)
		var ok []*plan.Change
		for i, c := range pending {
			if res[i].code != 0 {
				r.report(c, res[i], true)
				continue
			}
			ok = append(ok, c)
		}
		pending = ok
	}
	backoff := r.o.Backoff
	for attempt := 1; len(pending) > 0; attempt++ {
		res := r.send(ctx, pending, r.o.ValidateOnly)
		var retry []*plan.Change
		for i, c := range pending {
			o := res[i]
			if o.code != 0 && retriable(o.code) && attempt < r.o.Retries {
				retry = append(retry, c)
				continue
			}
			if attempt > 1 && alreadyDone(c, o.code) {
				o = outcome{} // an earlier attempt went through before its response was lost
			}
			r.report(c, o, r.o.ValidateOnly)
		}
		pending = retry
		if len(pending) > 0 {
			time.Sleep(backoff)
			backoff *= 2
		}
	}
}

// alreadyDone recognises the error a retried create gets when its first
// attempt succeeded but the response was lost.
func alreadyDone(c *plan.Change, code int16) bool {
	switch code {
	case kerr.TopicAlreadyExists.Code:
		return c.Kind == plan.KindTopic && c.Action == plan.ActionCreate
	case kerr.UnknownTopicOrPartition.Code:
		return c.Kind == plan.KindTopic && c.Action == plan.ActionDelete
	}
	return false
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

func (r *runner) report(c *plan.Change, o outcome, validate bool) {
	rr := ResourceResult{Change: c, ValidateOnly: validate, ErrorCode: o.code, Message: o.msg}
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

func hasValidateOnly(rpc string) bool {
	switch rpc {
	case plan.RPCCreateTopics, plan.RPCCreatePartitions, plan.RPCIncrementalAlter, plan.RPCAlterClientQuotas:
		return true
	}
	return false
}

// send issues one request for the batch and maps the response to one
// outcome per change, in order. A request that fails as a whole gives every
// change the requestFailed outcome, which runBatch retries.
func (r *runner) send(ctx context.Context, b []*plan.Change, validate bool) []outcome {
	req, match := r.build(b, validate)
	r.mu.Lock()
	r.batchNo++
	no := r.batchNo
	r.mu.Unlock()
	broker := int32(-1)
	if b[0].Kind == plan.KindBrokerConfig && b[0].Resource.Name != "" {
		fmt.Sscan(b[0].Resource.Name, &broker)
	}
	start := r.o.Now()
	r.obs.Observe(BatchSent{Batch: no, RPC: b[0].RPC, Version: -1, Broker: broker, ValidateOnly: validate, Changes: b, Time: start})
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
			msg = fmt.Sprintf("no answer from %s to %s: %v", host, b[0].RPC, reqErr)
		}
		for i := range out {
			out[i] = outcome{code: code, msg: msg}
		}
	}
	r.obs.Observe(BatchDone{Batch: no, RPC: b[0].RPC, Version: req.GetVersion(), Broker: broker, Duration: dur, Err: reqErr})
	return out
}

// build makes the request for a batch and a function that reads the
// response into per-change outcomes.
func (r *runner) build(b []*plan.Change, validate bool) (kmsg.Request, func(kmsg.Response, []outcome)) {
	byName := func(names []string) map[string]int {
		m := make(map[string]int, len(names))
		for i, n := range names {
			m[n] = i
		}
		return m
	}
	names := make([]string, len(b))
	for i, c := range b {
		names[i] = c.Resource.Name
	}
	idx := byName(names)
	set := func(out []outcome, name string, code int16, msg *string) {
		if i, ok := idx[name]; ok {
			out[i] = outcome{code: code, msg: deref(msg)}
		}
	}
	switch b[0].RPC {
	case plan.RPCCreateTopics:
		req := kmsg.NewPtrCreateTopicsRequest()
		req.TimeoutMillis, req.ValidateOnly = r.o.TimeoutMillis, validate
		for _, c := range b {
			t := kmsg.NewCreateTopicsRequestTopic()
			t.Topic = c.Resource.Name
			t.NumPartitions, t.ReplicationFactor = c.After.Partitions, int16(c.After.ReplicationFactor)
			if c.After.Assignment != nil {
				t.NumPartitions, t.ReplicationFactor = -1, -1
				for p, rs := range c.After.Assignment {
					a := kmsg.NewCreateTopicsRequestTopicReplicaAssignment()
					a.Partition, a.Replicas = int32(p), rs
					t.ReplicaAssignment = append(t.ReplicaAssignment, a)
				}
			}
			for _, cf := range c.After.Configs {
				tc := kmsg.NewCreateTopicsRequestTopicConfig()
				tc.Name = cf.Key
				v := r.value(c, cf)
				tc.Value = &v
				t.Configs = append(t.Configs, tc)
			}
			req.Topics = append(req.Topics, t)
		}
		return req, func(resp kmsg.Response, out []outcome) {
			for _, t := range resp.(*kmsg.CreateTopicsResponse).Topics {
				set(out, t.Topic, t.ErrorCode, t.ErrorMessage)
			}
		}
	case plan.RPCDeleteTopics:
		req := kmsg.NewPtrDeleteTopicsRequest()
		req.TimeoutMillis = r.o.TimeoutMillis
		for _, c := range b {
			t := kmsg.NewDeleteTopicsRequestTopic()
			name := c.Resource.Name
			t.Topic = &name
			req.Topics = append(req.Topics, t)
			req.TopicNames = append(req.TopicNames, name)
		}
		return req, func(resp kmsg.Response, out []outcome) {
			for _, t := range resp.(*kmsg.DeleteTopicsResponse).Topics {
				set(out, deref(t.Topic), t.ErrorCode, t.ErrorMessage)
			}
		}
	case plan.RPCCreatePartitions:
		req := kmsg.NewPtrCreatePartitionsRequest()
		req.TimeoutMillis, req.ValidateOnly = r.o.TimeoutMillis, validate
		for _, c := range b {
			t := kmsg.NewCreatePartitionsRequestTopic()
			t.Topic, t.Count = c.Resource.Name, c.After.Partitions
			for _, rs := range c.After.Assignment {
				a := kmsg.NewCreatePartitionsRequestTopicAssignment()
				a.Replicas = rs
				t.Assignment = append(t.Assignment, a)
			}
			req.Topics = append(req.Topics, t)
		}
		return req, func(resp kmsg.Response, out []outcome) {
			for _, t := range resp.(*kmsg.CreatePartitionsResponse).Topics {
				set(out, t.Topic, t.ErrorCode, t.ErrorMessage)
			}
		}
	case plan.RPCAlterReassignments:
		req := kmsg.NewPtrAlterPartitionAssignmentsRequest()
		req.TimeoutMillis = r.o.TimeoutMillis
		for _, c := range b {
			t := kmsg.NewAlterPartitionAssignmentsRequestTopic()
			t.Topic = c.Resource.Name
			for p, rs := range c.After.Assignment {
				pp := kmsg.NewAlterPartitionAssignmentsRequestTopicPartition()
				pp.Partition, pp.Replicas = int32(p), rs
				t.Partitions = append(t.Partitions, pp)
			}
			req.Topics = append(req.Topics, t)
		}
		return req, func(resp kmsg.Response, out []outcome) {
			rr := resp.(*kmsg.AlterPartitionAssignmentsResponse)
			if rr.ErrorCode != 0 {
				for i := range out {
					out[i] = outcome{code: rr.ErrorCode, msg: deref(rr.ErrorMessage)}
				}
				return
			}
			for _, t := range rr.Topics {
				for _, p := range t.Partitions {
					if p.ErrorCode != 0 {
						set(out, t.Topic, p.ErrorCode, ptr(fmt.Sprintf("partition %d: %s", p.Partition, deref(p.ErrorMessage))))
					}
				}
			}
		}
	case plan.RPCIncrementalAlter:
		req := kmsg.NewPtrIncrementalAlterConfigsRequest()
		req.ValidateOnly = validate
		for _, c := range b {
			res := kmsg.NewIncrementalAlterConfigsRequestResource()
			res.ResourceType = kmsg.ConfigResourceTypeTopic
			if c.Kind == plan.KindBrokerConfig {
				res.ResourceType = kmsg.ConfigResourceTypeBroker
			}
			res.ResourceName = c.Resource.Name
			for _, cf := range c.After.Configs {
				e := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
				e.Name, e.Op = cf.Key, kmsg.IncrementalAlterConfigOpSet
				v := r.value(c, cf)
				e.Value = &v
				res.Configs = append(res.Configs, e)
			}
			for _, cf := range c.Before.Configs {
				if !slices.ContainsFunc(c.After.Configs, func(a snapshot.Config) bool { return a.Key == cf.Key }) {
					e := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
					e.Name, e.Op = cf.Key, kmsg.IncrementalAlterConfigOpDelete
					res.Configs = append(res.Configs, e)
				}
			}
			req.Resources = append(req.Resources, res)
		}
		return req, func(resp kmsg.Response, out []outcome) {
			for _, res := range resp.(*kmsg.IncrementalAlterConfigsResponse).Resources {
				set(out, res.ResourceName, res.ErrorCode, res.ErrorMessage)
			}
		}
	case plan.RPCAlterClientQuotas:
		req := kmsg.NewPtrAlterClientQuotasRequest()
		req.ValidateOnly = validate
		for _, c := range b {
			e := kmsg.NewAlterClientQuotasRequestEntry()
			e.Entity = quotaEntity(c.Resource.Entity)
			for k, v := range c.After.Quota {
				op := kmsg.NewAlterClientQuotasRequestEntryOp()
				op.Key, op.Value = k, v
				e.Ops = append(e.Ops, op)
			}
			for k := range c.Before.Quota {
				if _, ok := c.After.Quota[k]; !ok {
					op := kmsg.NewAlterClientQuotasRequestEntryOp()
					op.Key, op.Remove = k, true
					e.Ops = append(e.Ops, op)
				}
			}
			slices.SortFunc(e.Ops, func(a, b kmsg.AlterClientQuotasRequestEntryOp) int { return strings.Compare(a.Key, b.Key) })
			req.Entries = append(req.Entries, e)
		}
		return req, func(resp kmsg.Response, out []outcome) {
			for _, e := range resp.(*kmsg.AlterClientQuotasResponse).Entries {
				var ent snapshot.QuotaEntity
				for _, c := range e.Entity {
					ent = append(ent, snapshot.EntityComponent{Type: c.Type, Name: deref(c.Name), Default: c.Name == nil})
				}
				slices.SortStableFunc(ent, func(a, b snapshot.EntityComponent) int { return entityOrder(a.Type) - entityOrder(b.Type) })
				set(out, ent.String(), e.ErrorCode, e.ErrorMessage)
			}
		}
	case plan.RPCCreateACLs:
		req := kmsg.NewPtrCreateACLsRequest()
		for _, c := range b {
			req.Creations = append(req.Creations, aclCreation(c.Resource.ACL))
		}
		return req, func(resp kmsg.Response, out []outcome) {
			for i, res := range resp.(*kmsg.CreateACLsResponse).Results {
				if i < len(out) {
					out[i] = outcome{code: res.ErrorCode, msg: deref(res.ErrorMessage)}
				}
			}
		}
	case plan.RPCDeleteACLs:
		req := kmsg.NewPtrDeleteACLsRequest()
		for _, c := range b {
			req.Filters = append(req.Filters, aclFilter(c.Resource.ACL))
		}
		return req, func(resp kmsg.Response, out []outcome) {
			for i, res := range resp.(*kmsg.DeleteACLsResponse).Results {
				if i < len(out) {
					out[i] = outcome{code: res.ErrorCode, msg: deref(res.ErrorMessage)}
				}
			}
		}
	case plan.RPCAlterUserScramCredRPC:
		req := kmsg.NewPtrAlterUserSCRAMCredentialsRequest()
		for _, c := range b {
			pw, _ := r.secret(c, plan.ScramKey, c.After.Password)
			req.Upsertions = append(req.Upsertions, scramUpsertion(c.Resource.Name, c.Resource.Mechanism, c.After.Iterations, pw))
		}
		return req, func(resp kmsg.Response, out []outcome) {
			for _, res := range resp.(*kmsg.AlterUserSCRAMCredentialsResponse).Results {
				set(out, res.User, res.ErrorCode, res.ErrorMessage)
			}
		}
	}
	panic("apply: unknown RPC " + b[0].RPC) // unreachable: Run validates the plan first
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
