package apply_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/zkmigrate/zkmigrate/internal/apply"
)

// recorder is a Requester that records what reaches it.
type recorder struct{ sent []kmsg.Key }

func (r *recorder) RequestSharded(_ context.Context, req kmsg.Request) []kgo.ResponseShard {
	r.sent = append(r.sent, kmsg.Key(req.Key()))
	return []kgo.ResponseShard{{Req: req, Resp: req.ResponseKind()}}
}

func TestDryRunGuard(t *testing.T) {
	ct, ctv := kmsg.NewPtrCreateTopicsRequest(), kmsg.NewPtrCreateTopicsRequest()
	ctv.ValidateOnly = true
	cp, cpv := kmsg.NewPtrCreatePartitionsRequest(), kmsg.NewPtrCreatePartitionsRequest()
	cpv.ValidateOnly = true
	ia, iav := kmsg.NewPtrIncrementalAlterConfigsRequest(), kmsg.NewPtrIncrementalAlterConfigsRequest()
	iav.ValidateOnly = true
	aq, aqv := kmsg.NewPtrAlterClientQuotasRequest(), kmsg.NewPtrAlterClientQuotasRequest()
	aqv.ValidateOnly = true
	for _, tc := range []struct {
		name string
		req  kmsg.Request
		sent bool
	}{
		{"CreateTopics without validate_only", ct, false},
		{"CreateTopics with validate_only", ctv, true},
		{"CreatePartitions without validate_only", cp, false},
		{"CreatePartitions with validate_only", cpv, true},
		{"IncrementalAlterConfigs without validate_only", ia, false},
		{"IncrementalAlterConfigs with validate_only", iav, true},
		{"AlterClientQuotas without validate_only", aq, false},
		{"AlterClientQuotas with validate_only", aqv, true},
		{"CreateAcls", kmsg.NewPtrCreateACLsRequest(), false},
		{"DeleteAcls", kmsg.NewPtrDeleteACLsRequest(), false},
		{"DeleteTopics", kmsg.NewPtrDeleteTopicsRequest(), false},
		{"AlterPartitionAssignments", kmsg.NewPtrAlterPartitionAssignmentsRequest(), false},
		{"AlterUserScramCredentials", kmsg.NewPtrAlterUserSCRAMCredentialsRequest(), false},
		{"AlterConfigs (not used by apply)", kmsg.NewPtrAlterConfigsRequest(), false},
		{"DeleteRecords (not used by apply)", kmsg.NewPtrDeleteRecordsRequest(), false},
		{"Metadata", kmsg.NewPtrMetadataRequest(), true},
		{"DescribeConfigs", kmsg.NewPtrDescribeConfigsRequest(), true},
		{"DescribeAcls", kmsg.NewPtrDescribeACLsRequest(), true},
		{"ApiVersions", kmsg.NewPtrApiVersionsRequest(), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var inner recorder
			shards := apply.DryRun(&inner).RequestSharded(context.Background(), tc.req)
			if got := len(inner.sent) == 1; got != tc.sent {
				t.Fatalf("sent=%v, want %v", got, tc.sent)
			}
			var refused *apply.RefusedError
			if isRefused := len(shards) == 1 && errors.As(shards[0].Err, &refused); isRefused == tc.sent {
				t.Errorf("shards %+v: refused=%v, want %v", shards, isRefused, !tc.sent)
			}
		})
	}
}

// A validate-only Run sends only the four validatable RPCs, each with
// validate_only, and reports every other change as not validated.
func TestApplyValidateOnlySendsOnlyValidatable(t *testing.T) {
	_, cl, _ := cluster(t)
	p := build(t, emptyTarget())
	var sent []kmsg.Request
	spy := spyRequester{cl: cl, sent: &sent}
	var ev events
	res, err := apply.Run(context.Background(), spy, p, emptyTarget(), apply.Options{ValidateOnly: true}, &ev)
	if err != nil {
		t.Fatal(err)
	}
	for _, req := range sent {
		if !apply.Allowed(req) {
			t.Errorf("validate-only sent %s without validate_only", kmsg.Key(req.Key()).Name())
		}
	}
	notValidated := 0
	for _, e := range ev.es {
		if s, ok := e.(apply.ChangeSkipped); ok && s.Reason == apply.ReasonNotValidated {
			notValidated++
			rpc, err := apply.RPCOf(s.Change)
			if err != nil || s.Detail != "not validated: would send "+rpc {
				t.Errorf("%s: detail %q", s.Change.ID, s.Detail)
			}
		}
	}
	// source() has 3 ACLs and one SCRAM user: CreateAcls and AlterUserScramCredentials.
	if notValidated != 4 || res.NotValidated != 4 {
		t.Errorf("%d not-validated events, result %d; want 4 (3 ACLs, 1 SCRAM user)", notValidated, res.NotValidated)
	}
}

type spyRequester struct {
	cl   apply.Requester
	sent *[]kmsg.Request
}

func (s spyRequester) RequestSharded(ctx context.Context, req kmsg.Request) []kgo.ResponseShard {
	*s.sent = append(*s.sent, req)
	return s.cl.RequestSharded(ctx, req)
}

// A target that stops answering: the request in flight fails once the
// client's own timeouts and retries are spent, and the rest of the plan is
// not sent.
func TestApplyStopsWhenTargetStopsAnswering(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(3))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, k := range []kmsg.Key{kmsg.CreateTopics, kmsg.CreateACLs} {
		c.ControlKey(int16(k), func(kmsg.Request) (kmsg.Response, error, bool) {
			c.KeepControl()
			return nil, nil, true // handled: no answer ever
		})
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.RequestTimeoutOverhead(200*time.Millisecond), kgo.RetryTimeout(200*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	p := build(t, emptyTarget())
	var ev events
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a hang guard
	defer cancel()
	res, err := apply.Run(ctx, cl, p, emptyTarget(), apply.Options{BatchSize: 1, MaxInFlight: 1, TimeoutMillis: 100}, &ev)
	if err != nil {
		t.Fatal(err)
	}
	if ctx.Err() != nil {
		t.Fatal("apply did not end before the test's bound")
	}
	if res.Stopped == nil || !strings.Contains(res.Stopped.Error(), "no answer from 127.0.0.1:") {
		t.Fatalf("Stopped = %v, want the unanswered request naming its broker", res.Stopped)
	}
	sent, notSent := 0, 0
	for _, e := range ev.es {
		switch e := e.(type) {
		case apply.BatchSent:
			sent++
		case apply.ChangeSkipped:
			if e.Reason == apply.ReasonNotSent {
				notSent++
			}
		}
	}
	// Topics come first: one CreateTopics preflight, then nothing.
	if sent != 1 || res.Failed != 1 || notSent != len(p.Changes)-1 {
		t.Errorf("%d requests sent, %d failed, %d not sent of %d changes; want 1, 1, the rest", sent, res.Failed, notSent, len(p.Changes))
	}
}
