package syncsession

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/kread"
	"github.com/zkmigrate/zkmigrate/internal/migration"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/secret"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/syncer"
	"github.com/zkmigrate/zkmigrate/internal/testkit/testbed"
)

// roundSize is how many changes of each of the seven kinds a benchmarked
// round carries: about what a round carries at 100 changes/s.
const roundSize = 7

// BenchmarkSyncRoundTarget times the target side of one change round of
// sync against the test bed's Kafka 4.1 target, through sync's own
// stages: the scoped target read (read_target), the plan, the apply with
// its audit run (apply) and the verify through every broker (verify),
// each reported as a metric (the median over the rounds, ms: a loaded
// machine's outliers would swamp a mean). The round carries roundSize
// changes of each kind the lag benchmark writes: topic creates, topic
// configs, partition increases, user quotas, ACL grants, ACL revokes and
// SCRAM upserts, on fresh names each time (the topics it alters and the
// ACLs it revokes are made first, untimed). "audit" records each round in
// an audit database as sync does; "no-audit" is --no-audit.
//
//	eval "$(testbed/testbed.sh env)"; go test ./internal/syncsession -run '^$' -bench SyncRoundTarget -benchtime 10x
func BenchmarkSyncRoundTarget(b *testing.B) {
	tb, tprops := testbed.TargetBootstrap(b), testbed.TargetClientProps(b)
	for _, audited := range []bool{true, false} {
		name := "audit"
		if !audited {
			name = "no-audit"
		}
		b.Run(name, func(b *testing.B) {
			ctx := context.Background()
			id := fmt.Sprintf("rt%d", time.Now().UnixNano()/1e6%1e7)
			req := Request{Target: migration.KafkaTarget{Bootstrap: tb, CommandConfig: tprops},
				Options: plan.Options{TopicRegex: "^" + id + "-", PrincipalRegex: "^User:" + id + "-", Prune: true, Placement: plan.PlacementAuto, TargetVersion: "4.1",
					Include: []plan.Kind{plan.KindTopic, plan.KindPartitions, plan.KindTopicConfig, plan.KindACL, plan.KindQuota, plan.KindScramUser}},
				VerifyTimeout: 30 * time.Second, Audit: migration.AuditRequest{Off: !audited}}
			s, _ := newTestRounds(b, req)
			var readMS, applyMS, verifyMS []float64
			var scope kread.Scope
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				r := newBenchRound(id, i)
				s.creds = r.creds
				// Untimed: the topics the round alters and the ACLs it
				// revokes, on every broker.
				scope = r.scope
				r.roundTrip(b, ctx, s, r.before, "setting up")
				b.StartTimer()
				t0 := time.Now()
				tgt, err := s.readTargetScoped(ctx, scope)
				if err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				p, err := s.plan(r.after, tgt)
				if err != nil {
					b.Fatal(err)
				}
				if len(p.Changes) != 7*roundSize {
					b.Fatalf("round %d plans %d changes, want %d", i, len(p.Changes), 7*roundSize)
				}
				t2 := time.Now()
				out, err := s.apply(ctx, p, tgt, syncer.Round{N: i + 1, Reason: syncer.ReasonChange, TargetScope: &scope})
				t3 := time.Now()
				if err != nil || out.Failed > 0 || out.VerifyEach == nil {
					b.Fatalf("round %d: %v, %d failed", i, err, out.Failed)
				}
				if n := len(out.VerifyEach(ctx, nil)); n > 0 {
					b.Fatalf("round %d: %d changes unverified", i, n)
				}
				t4 := time.Now()
				readMS = append(readMS, msf(t1.Sub(t0)))
				applyMS = append(applyMS, msf(t3.Sub(t2)))
				verifyMS = append(verifyMS, msf(t4.Sub(t3)))
			}
			b.StopTimer()
			b.ReportMetric(p50(readMS), "read_target-p50-ms")
			b.ReportMetric(p50(applyMS), "apply-p50-ms")
			b.ReportMetric(p50(verifyMS), "verify-p50-ms")
			// Remove what the rounds made: every name of the scopes,
			// absent from the source, with --prune.
			all := newBenchRound(id, 0)
			for i := 1; i < b.N; i++ {
				all.scope = mergeScopes(all.scope, newBenchRound(id, i).scope)
			}
			scope = all.scope
			all.roundTrip(b, ctx, s, &snapshot.Snapshot{Format: 1, Source: snapshot.SourceZooKeeper}, "cleaning up")
		})
	}
}

// benchRound is one benchmarked round: the source before (what the
// target is set up to hold) and after, the round's scope and the SCRAM
// passwords.
type benchRound struct {
	before, after *snapshot.Snapshot
	scope         kread.Scope
	creds         []plan.Credential
}

func newBenchRound(id string, i int) *benchRound {
	r := &benchRound{
		before: &snapshot.Snapshot{Format: 1, Source: snapshot.SourceZooKeeper},
		after:  &snapshot.Snapshot{Format: 1, Source: snapshot.SourceZooKeeper},
	}
	one := func(n int) []snapshot.Partition {
		var ps []snapshot.Partition
		for p := range n {
			ps = append(ps, snapshot.Partition{ID: int32(p), Replicas: []int32{1}})
		}
		return ps
	}
	acl := func(res string) snapshot.ACL {
		return snapshot.ACL{ResourceType: "Topic", ResourceName: res, PatternType: "LITERAL", Principal: "User:" + id + "-app", Host: "*", Operation: "Read", Permission: "Allow"}
	}
	for j := range roundSize {
		n := func(what string) string { return fmt.Sprintf("%s-%s%d-%d", id, what, i, j) }
		created, altered, grown := n("new"), n("cfg"), n("grow")
		r.before.Topics = append(r.before.Topics, snapshot.Topic{Name: altered, Partitions: one(1)}, snapshot.Topic{Name: grown, Partitions: one(1)})
		r.after.Topics = append(r.after.Topics, snapshot.Topic{Name: created, Partitions: one(1)},
			snapshot.Topic{Name: altered, Partitions: one(1), Configs: []snapshot.Config{{Key: "retention.ms", Value: "3600000"}}},
			snapshot.Topic{Name: grown, Partitions: one(2)})
		r.scope.Topics = append(r.scope.Topics, created, altered, grown)
		user := n("user")
		r.after.Quotas = append(r.after.Quotas, snapshot.Quota{Entity: snapshot.QuotaEntity{{Type: "user", Name: user}}, Values: map[string]float64{"producer_byte_rate": 1024}})
		r.scope.Quotas = append(r.scope.Quotas, snapshot.EntityComponent{Type: "user", Name: user})
		granted, revoked := n("grant"), n("revoke")
		r.before.ACLs = append(r.before.ACLs, acl(revoked))
		r.after.ACLs = append(r.after.ACLs, acl(granted))
		r.scope.ACLs = append(r.scope.ACLs, kread.ACLResource{Type: "Topic", Pattern: "LITERAL", Name: granted}, kread.ACLResource{Type: "Topic", Pattern: "LITERAL", Name: revoked})
		r.after.ScramUsers = append(r.after.ScramUsers, snapshot.ScramUser{Name: user, Credentials: []snapshot.ScramCredential{{Mechanism: "SCRAM-SHA-256", Iterations: 4096}}})
		r.scope.ScramUsers = append(r.scope.ScramUsers, user)
		r.creds = append(r.creds, plan.Credential{User: user, Mechanism: "SCRAM-SHA-256", Iterations: 4096,
			Password: secret.New("scram-credentials:"+user+"/SCRAM-SHA-256", "pw-"+user)})
	}
	r.before.Sort()
	r.after.Sort()
	return r
}

// roundTrip brings the target's part in r.scope to src and waits until
// every broker shows it (untimed setup and cleanup).
func (r *benchRound) roundTrip(b *testing.B, ctx context.Context, s *rounds, src *snapshot.Snapshot, what string) {
	b.Helper()
	tgt, err := s.readTargetScoped(ctx, r.scope)
	if err != nil {
		b.Fatalf("%s: %v", what, err)
	}
	p, err := s.plan(src, tgt)
	if err != nil {
		b.Fatalf("%s: %v", what, err)
	}
	if len(p.Changes) == 0 {
		return
	}
	out, err := s.apply(ctx, p, tgt, syncer.Round{Reason: syncer.ReasonChange, TargetScope: &r.scope})
	if err != nil || out.Failed > 0 {
		b.Fatalf("%s: %v, %d failed", what, err, out.Failed)
	}
	if out.VerifyEach != nil && len(out.VerifyEach(ctx, nil)) > 0 {
		b.Fatalf("%s: not shown on every broker", what)
	}
}

func mergeScopes(a, b kread.Scope) kread.Scope {
	a.Topics = append(a.Topics, b.Topics...)
	a.Quotas = append(a.Quotas, b.Quotas...)
	a.ACLs = append(a.ACLs, b.ACLs...)
	a.ScramUsers = append(a.ScramUsers, b.ScramUsers...)
	return a
}

func msf(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// p50 of xs (the lower middle one of an even count).
func p50(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[(len(s)-1)/2]
}
