package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/zkmigrate/zkmigrate/internal/kafkaconn"
	"github.com/zkmigrate/zkmigrate/internal/testkit/testbed"
)

// lagWriter makes the changes through the source's admin API.
type lagWriter struct {
	bed  *lagBed
	book *lagBook

	cfgTopics, partTopics, quotaUsers []string
	revokes                           []string // ACL resources holding Read (revoked) and Describe (kept)
	perKind                           int

	mu        sync.Mutex
	busy      map[string]bool // a pool resource with a change in flight
	parts     map[string]int  // partition count of each partition-pool topic
	next      map[string]int  // per kind: the next new name / pool position
	created   []string        // topics created, for the cleanup
	granted   []string        // ACL resources granted on, for the cleanup
	scram     []string        // SCRAM users upserted, for the cleanup
	scheduled int
	skipped   int

	// kinds is the round-robin of change kinds (lagKinds, or
	// lagBalancedKinds for the balanced soak).
	kinds    []string
	balanced bool
	// live are, per adding kind (create, grant, SCRAM upsert), the changes
	// whose resource is still there for its undoing kind to remove;
	// quotaSet the quota users whose last set has no clear yet.
	live       map[string][]*lagOp
	quotaSet   map[string]*lagOp
	unscrammed int // SCRAM users deleted
}

func newLagWriter(bed *lagBed, perKind int) *lagWriter {
	w := &lagWriter{bed: bed, book: newLagBook(), perKind: perKind, busy: map[string]bool{}, parts: map[string]int{}, next: map[string]int{},
		kinds: lagKinds, live: map[string][]*lagOp{}, quotaSet: map[string]*lagOp{}}
	pool := min(perKind, 50)
	for i := 0; i < pool; i++ {
		w.cfgTopics = append(w.cfgTopics, fmt.Sprintf("%s-cfg-%03d", bed.prefix, i))
		w.partTopics = append(w.partTopics, fmt.Sprintf("%s-part-%03d", bed.prefix, i))
		w.parts[w.partTopics[i]] = 1
	}
	for i := 0; i < min(perKind, 20); i++ {
		w.quotaUsers = append(w.quotaUsers, fmt.Sprintf("%s-q%03d", bed.prefix, i))
	}
	for i := 0; i < perKind; i++ {
		w.revokes = append(w.revokes, fmt.Sprintf("%s-rev-%05d", bed.prefix, i))
	}
	return w
}

// balance makes w the balanced soak's writer: its revokes take back its
// own grants (the revoke pool prepare made is left as it is).
func (w *lagWriter) balance() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.kinds, w.balanced = lagBalancedKinds, true
}

// prepare creates the pools on the source before sync starts, so its
// initial round copies them: the config and partition topics, and the
// revoke pool's ACLs.
func (w *lagWriter) prepare(ctx context.Context) error {
	topics := append(append([]string{}, w.cfgTopics...), w.partTopics...)
	res, err := w.bed.source.Admin.CreateTopics(ctx, 1, 1, nil, topics...)
	if err != nil {
		return err
	}
	if err := res.Error(); err != nil {
		return err
	}
	acl := kadm.NewACLs().Topics(w.revokes...).ResourcePatternType(kadm.ACLPatternLiteral).Allow(w.bed.principal).AllowHosts().Operations(kadm.OpRead, kadm.OpDescribe)
	ar, err := w.bed.source.Admin.CreateACLs(ctx, acl)
	if err != nil {
		return err
	}
	for _, r := range ar {
		if r.Err != nil {
			return fmt.Errorf("ACL on %s: %w", r.Name, r.Err)
		}
	}
	return nil
}

func (w *lagWriter) scramUser(i int) string { return fmt.Sprintf("%s-s%05d", w.bed.prefix, i) }
func (w *lagWriter) scramPassword(i int) string {
	return fmt.Sprintf("lag-bench-%d-%s", i, w.bed.prefix)
}

// writeCredentials writes the --scram-credentials file for every SCRAM
// user the writer may upsert (sync carries a SCRAM user only with its
// password).
func (w *lagWriter) writeCredentials(path string) error {
	type cred struct {
		User       string `json:"user"`
		Mechanism  string `json:"mechanism"`
		Password   string `json:"password"`
		Iterations int    `json:"iterations"`
	}
	var cs []cred
	for i := 0; i < w.perKind; i++ {
		cs = append(cs, cred{w.scramUser(i), "SCRAM-SHA-256", w.scramPassword(i), 4096})
	}
	data, err := json.Marshal(cs)
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o600)
}

// targetACLs counts the benchmark principal's ACLs on the target.
func (w *lagWriter) targetACLs(ctx context.Context) (int, error) {
	res, err := w.bed.target.Admin.DescribeACLs(ctx, kadm.NewACLs().Topics().ResourcePatternType(kadm.ACLPatternLiteral).Allow(w.bed.principal).AllowHosts().Operations(kadm.OpAny))
	if err != nil {
		return 0, err
	}
	n := 0
	for _, r := range res {
		if r.Err != nil {
			return 0, r.Err
		}
		n += len(r.Described)
	}
	return n, nil
}

// run issues spec.Rate changes a second for spec.For, each in its own
// goroutine on a connection of its own (a tick finding every connection
// busy is skipped and counted), then waits for the calls still in flight.
func (w *lagWriter) run(ctx context.Context, spec lagSpec) {
	tick := time.NewTicker(time.Second / time.Duration(spec.Rate))
	defer tick.Stop()
	end := time.Now().Add(spec.For)
	free := make(chan *kadm.Client, len(w.bed.writers))
	for _, c := range w.bed.writers {
		free <- c
	}
	var wg sync.WaitGroup
	for i := 0; time.Now().Before(end); i++ {
		<-tick.C
		w.scheduled++
		kind := w.kinds[i%len(w.kinds)]
		op := w.pick(kind, i)
		if op == nil {
			w.skipped++
			continue
		}
		var adm *kadm.Client
		select {
		case adm = <-free:
		default:
			w.release(op)
			w.skipped++
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { free <- adm }()
			w.do(ctx, adm, op)
		}()
	}
	wg.Wait()
}

// pick chooses the resource and wanted value of change n of kind, nil when
// every pool resource of kind is busy or a new-name kind is used up.
func (w *lagWriter) pick(kind string, n int) *lagOp {
	w.mu.Lock()
	defer w.mu.Unlock()
	p := w.bed.prefix
	op := &lagOp{N: n, Kind: kind}
	fromPool := func(pool []string) bool {
		for range pool {
			r := pool[w.next[kind]%len(pool)]
			w.next[kind]++
			if !w.busy[r] {
				w.busy[r] = true
				op.Resource = r
				return true
			}
		}
		return false
	}
	newName := func(format string) bool {
		i := w.next[kind]
		w.next[kind]++
		op.Resource = fmt.Sprintf(format, p, i)
		return true
	}
	// undo takes the oldest change of kind from whose resource the target
	// showed and no change is in flight on.
	undo := func(from string) bool {
		for j, added := range w.live[from] {
			if !w.busy[added.Resource] && w.book.visible(added) {
				w.live[from] = slices.Delete(w.live[from], j, j+1)
				w.busy[added.Resource] = true
				op.Resource = added.Resource
				return true
			}
		}
		return false
	}
	var ok bool
	switch kind {
	case lagDelete:
		ok = undo(lagCreate)
		op.Entities = []string{"topic " + op.Resource, "pending-deletion " + op.Resource}
	case lagSCRAMDelete:
		ok = undo(lagSCRAM)
		op.Entities = []string{"config users/" + op.Resource}
	case lagQuotaClear:
		for _, u := range w.quotaUsers {
			if set := w.quotaSet[u]; set != nil && !w.busy[u] && w.book.visible(set) {
				delete(w.quotaSet, u)
				w.busy[u], op.Resource, ok = true, u, true
				break
			}
		}
		op.Entities = []string{"config users/" + op.Resource}
	case lagCreate:
		ok = newName("%s-new-%05d")
		op.Entities = []string{"topic " + op.Resource}
		w.created = append(w.created, op.Resource)
	case lagConfig:
		ok = fromPool(w.cfgTopics)
		op.Want, op.Entities = 3600000+int64(n), []string{"topic " + op.Resource, "config topics/" + op.Resource}
	case lagGrant:
		ok = newName("%s-grant-%05d")
		w.granted = append(w.granted, op.Resource)
		op.Entities = []string{"acl Topic:LITERAL:" + op.Resource}
	case lagRevoke:
		if w.balanced {
			ok = undo(lagGrant)
		} else if i := w.next[kind]; i < len(w.revokes) {
			w.next[kind]++
			op.Resource, ok = w.revokes[i], true
		}
		op.Entities = []string{"acl Topic:LITERAL:" + op.Resource}
	case lagQuota:
		ok = fromPool(w.quotaUsers)
		op.Want, op.Entities = 1000000+int64(n), []string{"config users/" + op.Resource}
	case lagPartitions:
		ok = fromPool(w.partTopics)
		if ok {
			w.parts[op.Resource]++
			op.Want = int64(w.parts[op.Resource])
		}
		op.Entities = []string{"topic " + op.Resource}
	case lagSCRAM:
		if i := w.next[kind]; i < w.perKind {
			ok = newName("%s-s%05d")
			w.scram = append(w.scram, op.Resource)
		}
		op.Entities = []string{"config users/" + op.Resource}
	}
	if !ok {
		return nil
	}
	return op
}

func (w *lagWriter) release(op *lagOp) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.busy, op.Resource)
	if op.Kind == lagPartitions && (op.Err != nil || op.Issued.IsZero()) {
		w.parts[op.Resource]-- // not increased after all
	}
}

// do makes one change, then reads its ZooKeeper time.
func (w *lagWriter) do(ctx context.Context, adm *kadm.Client, op *lagOp) {
	op.Issued = time.Now()
	if op.Kind != lagSCRAMDelete {
		// Not awaited: a plan never deletes a SCRAM user, even with
		// --prune, so the target keeps it.
		w.book.add(op)
	}
	var err error
	switch op.Kind {
	case lagDelete:
		var r kadm.DeleteTopicResponses
		r, err = adm.DeleteTopics(ctx, op.Resource)
		if err == nil {
			err = r[op.Resource].Err
		}
	case lagQuotaClear:
		user := op.Resource
		var r kadm.AlteredClientQuotas
		r, err = adm.AlterClientQuotas(ctx, []kadm.AlterClientQuotaEntry{{Entity: kadm.ClientQuotaEntity{{Type: "user", Name: &user}},
			Ops: []kadm.AlterClientQuotaOp{{Key: "producer_byte_rate", Remove: true}}}})
		if err == nil {
			for _, q := range r {
				err = errorsJoin(err, q.Err)
			}
		}
	case lagSCRAMDelete:
		var r kadm.AlteredUserSCRAMs
		r, err = adm.AlterUserSCRAMs(ctx, []kadm.DeleteSCRAM{{User: op.Resource, Mechanism: kadm.ScramSha256}}, nil)
		err = errorsJoin(err, r.Error())
	case lagCreate:
		var r kadm.CreateTopicResponse
		r, err = adm.CreateTopic(ctx, 1, 1, nil, op.Resource)
		err = errorsJoin(err, r.Err)
	case lagConfig:
		v := strconv.FormatInt(op.Want, 10)
		var r kadm.AlterConfigsResponses
		r, err = adm.AlterTopicConfigs(ctx, []kadm.AlterConfig{{Name: "retention.ms", Value: &v}}, op.Resource)
		if err == nil {
			err = r[0].Err
		}
	case lagGrant, lagRevoke:
		acl := kadm.NewACLs().Topics(op.Resource).ResourcePatternType(kadm.ACLPatternLiteral).Allow(w.bed.principal).AllowHosts().Operations(kadm.OpRead)
		if op.Kind == lagGrant {
			var r kadm.CreateACLsResults
			if r, err = adm.CreateACLs(ctx, acl); err == nil {
				err = r[0].Err
			}
		} else {
			var r kadm.DeleteACLsResults
			if r, err = adm.DeleteACLs(ctx, acl); err == nil {
				err = r[0].Err
				if err == nil && len(r[0].Deleted) != 1 {
					err = fmt.Errorf("deleted %d ACLs, want 1", len(r[0].Deleted))
				}
			}
		}
	case lagQuota:
		user := op.Resource
		var r kadm.AlteredClientQuotas
		r, err = adm.AlterClientQuotas(ctx, []kadm.AlterClientQuotaEntry{{Entity: kadm.ClientQuotaEntity{{Type: "user", Name: &user}},
			Ops: []kadm.AlterClientQuotaOp{{Key: "producer_byte_rate", Value: float64(op.Want)}}}})
		if err == nil {
			for _, q := range r {
				err = errorsJoin(err, q.Err)
			}
		}
	case lagPartitions:
		var r kadm.CreatePartitionsResponses
		r, err = adm.UpdatePartitions(ctx, int(op.Want), op.Resource)
		err = errorsJoin(err, r.Error())
	case lagSCRAM:
		i, _ := strconv.Atoi(strings.TrimPrefix(op.Resource, w.bed.prefix+"-s"))
		var r kadm.AlteredUserSCRAMs
		r, err = adm.AlterUserSCRAMs(ctx, nil, []kadm.UpsertSCRAM{{User: op.Resource, Mechanism: kadm.ScramSha256, Iterations: 4096, Password: w.scramPassword(i)}})
		err = errorsJoin(err, r.Error())
	}
	op.Returned = time.Now()
	if (op.Kind == lagCreate || op.Kind == lagPartitions || op.Kind == lagDelete) && errors.Is(err, kerr.RequestTimedOut) {
		err = nil // with a timeout of 0: in ZooKeeper, not yet spread over the 3.9 brokers
	}
	if err != nil {
		op.Err = err
		w.book.drop(op)
	} else {
		if w.bed.direct {
			op.Written, op.WrittenFrom = op.Issued, "admin call"
		} else {
			op.Written, op.WrittenFrom = w.zkTime(op)
		}
		w.added(op)
		if op.Kind == lagSCRAMDelete {
			w.mu.Lock()
			w.unscrammed++
			w.mu.Unlock()
		}
	}
	w.release(op)
}

// added keeps a change the balanced writer will undo later.
func (w *lagWriter) added(op *lagOp) {
	if !w.balanced {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	switch op.Kind {
	case lagCreate, lagGrant, lagSCRAM:
		w.live[op.Kind] = append(w.live[op.Kind], op)
	case lagQuota:
		w.quotaSet[op.Resource] = op
	}
}

// zkTime reads when ZooKeeper took op's write: the znode's ctime (a
// create or a grant) or mtime, if its data still shows the change; else
// the admin call's return.
func (w *lagWriter) zkTime(op *lagOp) (time.Time, string) {
	var path, stamp string
	var shows func([]byte) bool
	cfgHas := func(key string, want int64) func([]byte) bool {
		return func(data []byte) bool {
			var z struct{ Config map[string]string }
			if json.Unmarshal(data, &z) != nil {
				return false
			}
			v, err := strconv.ParseFloat(z.Config[key], 64)
			return err == nil && int64(v) == want
		}
	}
	aclHasRead := func(data []byte) bool {
		var z struct {
			ACLs []struct{ Principal, Operation string }
		}
		if json.Unmarshal(data, &z) != nil {
			return false
		}
		for _, a := range z.ACLs {
			if a.Principal == w.bed.principal && a.Operation == "Read" {
				return true
			}
		}
		return false
	}
	switch op.Kind {
	case lagCreate:
		path, stamp, shows = "/brokers/topics/"+op.Resource, "ctime", func([]byte) bool { return true }
	case lagPartitions:
		path, stamp = "/brokers/topics/"+op.Resource, "mtime"
		shows = func(data []byte) bool {
			var z struct{ Partitions map[string][]int32 }
			return json.Unmarshal(data, &z) == nil && int64(len(z.Partitions)) == op.Want
		}
	case lagConfig:
		path, stamp, shows = "/config/topics/"+op.Resource, "mtime", cfgHas("retention.ms", op.Want)
	case lagQuota:
		path, stamp, shows = "/config/users/"+op.Resource, "mtime", cfgHas("producer_byte_rate", op.Want)
	case lagSCRAM:
		path, stamp = "/config/users/"+op.Resource, "mtime"
		shows = func(data []byte) bool { return strings.Contains(string(data), "SCRAM-SHA-256") }
	case lagGrant:
		path, stamp, shows = "/kafka-acl/Topic/"+op.Resource, "ctime", aclHasRead
	case lagRevoke:
		path, stamp, shows = "/kafka-acl/Topic/"+op.Resource, "mtime", func(d []byte) bool { return !aclHasRead(d) }
	case lagQuotaClear:
		path, stamp = "/config/users/"+op.Resource, "mtime"
		shows = func(data []byte) bool { return !strings.Contains(string(data), "producer_byte_rate") }
	case lagSCRAMDelete:
		path, stamp = "/config/users/"+op.Resource, "mtime"
		shows = func(data []byte) bool { return !strings.Contains(string(data), "SCRAM-SHA-256") }
	case lagDelete: // the znode goes once the controller has deleted the partitions
		return op.Returned, "admin return"
	}
	data, st, err := w.bed.zk.Get(path)
	if err != nil || !shows(data) {
		return op.Returned, "admin return"
	}
	ms := st.Mtime
	if stamp == "ctime" {
		ms = st.Ctime
	}
	return time.UnixMilli(ms), stamp
}

// cleanup removes what the run made, on both clusters (sync has stopped).
func (w *lagWriter) cleanup(b *testing.B) {
	w.mu.Lock()
	topics := append(append(append([]string{}, w.created...), w.cfgTopics...), w.partTopics...)
	scram := append([]string{}, w.scram...)
	acls := append(append([]string{}, w.granted...), w.revokes...)
	w.mu.Unlock()
	bound := 3 * syncBound
	for _, c := range []*kafkaconn.Conn{w.bed.source, w.bed.target} {
		deleteUntilGone(b, c, bound, topics)
		// By name: a filter of any name timed out on a 3.9 broker holding a few thousand ACL resources.
		testbed.DeleteACLs(b, c.Admin, kadm.NewACLs().Topics(acls...).ResourcePatternType(kadm.ACLPatternLiteral).Allow(w.bed.principal).AllowHosts().Operations(kadm.OpAny))
		for _, u := range w.quotaUsers {
			user := u
			_, err := c.Admin.AlterClientQuotas(context.Background(), []kadm.AlterClientQuotaEntry{{Entity: kadm.ClientQuotaEntity{{Type: "user", Name: &user}},
				Ops: []kadm.AlterClientQuotaOp{{Key: "producer_byte_rate", Remove: true}}}})
			testbed.Check(b, "removing the quota of "+u, err)
		}
		var del []kadm.DeleteSCRAM
		for _, u := range scram {
			del = append(del, kadm.DeleteSCRAM{User: u, Mechanism: kadm.ScramSha256})
		}
		if len(del) > 0 {
			res, err := c.Admin.AlterUserSCRAMs(context.Background(), del, nil)
			if err == nil {
				for _, r := range res {
					if r.Err != nil && !errors.Is(r.Err, kerr.ResourceNotFound) {
						err = r.Err
					}
				}
			}
			testbed.Check(b, "deleting the SCRAM users", err)
		}
	}
}

// deleteUntilGone deletes topics until none is listed (at most bound),
// asking again for those still there: a 3.9 broker refuses to delete a
// topic its controller has not yet taken in, which a create answered
// at once (timeout 0) may be.
func deleteUntilGone(b *testing.B, c *kafkaconn.Conn, bound time.Duration, topics []string) {
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	for {
		req := kmsg.NewPtrMetadataRequest()
		for _, t := range topics {
			rt := kmsg.NewMetadataRequestTopic()
			rt.Topic = kmsg.StringPtr(t)
			req.Topics = append(req.Topics, rt)
		}
		var left []string
		resp, err := req.RequestWith(ctx, c.Client)
		if err == nil {
			for _, t := range resp.Topics {
				if t.Topic != nil && t.ErrorCode == 0 {
					left = append(left, *t.Topic)
				}
			}
			if len(left) == 0 {
				return
			}
			_, err = c.Admin.DeleteTopics(ctx, left...)
		}
		select {
		case <-ctx.Done():
			b.Errorf("cleanup: %d topic(s) still listed after %s (last error %v): %v", len(left), bound, err, left[:min(len(left), 10)])
			return
		case <-time.After(time.Second):
		}
	}
}
