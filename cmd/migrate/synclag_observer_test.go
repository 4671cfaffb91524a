package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// lagObserver polls the target for the changes awaited.
type lagObserver struct {
	bed      *lagBed
	book     *lagBook
	requests atomic.Int64 // describe requests sent
	mu       sync.Mutex
	errors   int
	firstErr error
}

func (o *lagObserver) fail(err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.errors++
	if o.firstErr == nil {
		o.firstErr = err
	}
}

// run describes the awaited resources every period (the next describe
// starts at once when one took longer) until ctx ends.
func (o *lagObserver) run(ctx context.Context, every time.Duration) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		var wg sync.WaitGroup
		for _, f := range []func(context.Context){o.topics, o.configs, o.quotas, o.acls, o.scram} {
			wg.Add(1)
			go func() { defer wg.Done(); f(ctx) }()
		}
		wg.Wait()
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

func (o *lagObserver) topics(ctx context.Context) {
	creates, parts, deletes := o.book.awaited(lagCreate), o.book.awaited(lagPartitions), o.book.awaited(lagDelete)
	if len(creates)+len(parts)+len(deletes) == 0 {
		return
	}
	// A plain Metadata request: kadm's ListTopics answers from kgo's
	// metadata cache, up to seconds old.
	req := kmsg.NewPtrMetadataRequest()
	for _, n := range append(append(creates, parts...), deletes...) {
		rt := kmsg.NewMetadataRequestTopic()
		rt.Topic = kmsg.StringPtr(n)
		req.Topics = append(req.Topics, rt)
	}
	o.requests.Add(1)
	resp, err := req.RequestWith(ctx, o.bed.target.Client)
	at := time.Now()
	if err != nil {
		if ctx.Err() == nil {
			o.fail(err)
		}
		return
	}
	got := map[string]int64{}
	for _, t := range resp.Topics {
		if t.Topic != nil && t.ErrorCode == 0 {
			got[*t.Topic] = int64(len(t.Partitions))
		}
	}
	for kind, names := range map[string][]string{lagCreate: creates, lagPartitions: parts, lagDelete: deletes} {
		for _, n := range names {
			v, ok := got[n]
			o.book.observe(kind, n, lagState{Present: ok, Value: v}, at)
		}
	}
}

func (o *lagObserver) configs(ctx context.Context) {
	names := o.book.awaited(lagConfig)
	if len(names) == 0 {
		return
	}
	o.requests.Add(1)
	rcs, err := o.bed.target.Admin.DescribeTopicConfigs(ctx, names...)
	at := time.Now()
	if err != nil {
		if ctx.Err() == nil {
			o.fail(err)
		}
		return
	}
	for _, rc := range rcs {
		if rc.Err != nil {
			continue
		}
		for _, c := range rc.Configs {
			// Only the topic's own setting: the broker default is larger than any value written.
			if c.Key == "retention.ms" && c.Value != nil && c.Source == kmsg.ConfigSourceDynamicTopicConfig {
				v, _ := strconv.ParseInt(*c.Value, 10, 64)
				o.book.observe(lagConfig, rc.Name, lagState{Present: true, Value: v}, at)
			}
		}
	}
}

func (o *lagObserver) quotas(ctx context.Context) {
	users, clears := o.book.awaited(lagQuota), o.book.awaited(lagQuotaClear)
	if len(users)+len(clears) == 0 {
		return
	}
	o.requests.Add(1)
	qs, err := o.bed.target.Admin.DescribeClientQuotas(ctx, false, []kadm.DescribeClientQuotaComponent{{Type: "user", MatchType: 2}})
	at := time.Now()
	if err != nil {
		if ctx.Err() == nil {
			o.fail(err)
		}
		return
	}
	has := map[string]bool{}
	for _, q := range qs {
		if len(q.Entity) != 1 || q.Entity[0].Type != "user" || q.Entity[0].Name == nil {
			continue
		}
		for _, v := range q.Values {
			if v.Key == "producer_byte_rate" {
				has[*q.Entity[0].Name] = true
				o.book.observe(lagQuota, *q.Entity[0].Name, lagState{Present: true, Value: int64(v.Value)}, at)
			}
		}
	}
	for _, u := range clears {
		o.book.observe(lagQuotaClear, u, lagState{Present: has[u]}, at)
	}
}

// acls describes the benchmark principal's Read ACLs on topics in one
// request (DescribeAcls takes one filter; one request per awaited
// resource would cost the target more at 100 changes/s) and settles the
// awaited grants and revokes by what it lists.
func (o *lagObserver) acls(ctx context.Context) {
	grants, revokes := o.book.awaited(lagGrant), o.book.awaited(lagRevoke)
	if len(grants)+len(revokes) == 0 {
		return
	}
	o.requests.Add(1)
	res, err := o.bed.target.Admin.DescribeACLs(ctx, kadm.NewACLs().Topics().
		ResourcePatternType(kadm.ACLPatternLiteral).Allow(o.bed.principal).AllowHosts().Operations(kadm.OpRead))
	at := time.Now()
	if err == nil && len(res) != 1 {
		err = fmt.Errorf("DescribeAcls: %d results for one filter", len(res))
	}
	if err == nil {
		err = res[0].Err
	}
	if err != nil {
		if ctx.Err() == nil {
			o.fail(err)
		}
		return
	}
	has := map[string]bool{}
	for _, d := range res[0].Described {
		has[d.Name] = true
	}
	for kind, names := range map[string][]string{lagGrant: grants, lagRevoke: revokes} {
		for _, n := range names {
			o.book.observe(kind, n, lagState{Present: has[n]}, at)
		}
	}
}

func (o *lagObserver) scram(ctx context.Context) {
	for _, kind := range []string{lagSCRAM, lagSCRAMDelete} {
		users := o.book.awaited(kind)
		if len(users) == 0 {
			continue
		}
		o.requests.Add(1)
		ds, err := o.bed.target.Admin.DescribeUserSCRAMs(ctx, users...)
		at := time.Now()
		gone := errors.Is(err, kerr.ResourceNotFound) // none of them has a credential
		if err != nil && !gone {
			if ctx.Err() == nil {
				o.fail(err)
			}
			continue
		}
		if gone && kind == lagSCRAM {
			continue
		}
		for _, u := range users {
			d, ok := ds[u]
			o.book.observe(kind, u, lagState{Present: !gone && ok && d.Err == nil && len(d.CredInfos) > 0}, at)
		}
	}
}
