// Package revert computes the plan that undoes an applied run from its
// audit record (migrate audit revert): a pure function from the run's
// changes, what its journal says of each, the whole states it found before
// deleting, and the target read now, to a plan.Plan that restores each
// resource the run changed to its state before the run. It does no I/O.
//
// A resource changed since the run (neither in the run's after-state nor
// already back in its before-state) is refused by name, never overwritten.
// The kind-specific part (how a change of each kind is undone) is
// plan.Invert.
package revert

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/zkmigrate/zkmigrate/internal/catalogue"
	"github.com/zkmigrate/zkmigrate/internal/english"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/secret"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// Status is what a run's journal says of one of its changes.
type Status int

// The statuses of a change in a run's journal.
const (
	// NotApplied: planned only, skipped (already applied, stale, not
	// selected, halted), validated by a dry run, or failed.
	NotApplied Status = iota
	// Applied: the target answered that the change was made.
	Applied
	// InFlight: the change was sent and no answer was recorded (the run
	// was killed while it was in flight): the target says whether it went
	// through.
	InFlight
)

// Run is an audited run as a revert sees it: what the audit record holds.
type Run struct {
	ID int64
	// Seq and Digest are the run's record digest: the chain position and
	// hash of its own last row (plan.Reverts).
	Seq    int64
	Digest string
	// TargetClusterID is the cluster the run applied to.
	TargetClusterID string
	// Changes are the run's planned changes (its stored plan), in order.
	Changes []plan.Change
	// Status is what the journal says of each change, by change id
	// (missing: NotApplied).
	Status map[string]Status
	// Whole is the whole state of each resource the run found before a
	// change that deleted it (plan.Target.Whole), by change id.
	Whole map[string]*plan.State
}

// Input is everything Build needs.
type Input struct {
	Run Run
	// Target is the target read now; TargetEndpoint names it in the plan.
	Target         *snapshot.Snapshot
	TargetEndpoint plan.Endpoint
	// Source names where the run's record was read (the audit database).
	Source plan.Endpoint
	// DeleteCreatedTopics deletes the topics the run created
	// (--delete-created-topics); otherwise they are kept, as blockers.
	DeleteCreatedTopics bool
	// Credentials are the SCRAM passwords the operator gave
	// (--scram-credentials): a credential the run changed or deleted is set
	// again only with one.
	Credentials []plan.Credential
	// Secrets are sensitive values read from a source now, by reference: a
	// config the revert sets again from a reference takes its value from
	// here (apply), or keeps the reference only (the plan file).
	Secrets []secret.Secret
	// OwnUser is the SASL user the tool signs in to the target as: its
	// SCRAM credentials are never deleted.
	OwnUser string
}

// Build computes the plan that undoes in.Run on in.Target. For each change
// the run applied (or had in flight when it stopped, if the target shows it
// made) it adds the change that restores the resource's state before the
// run (plan.Invert) when the target still shows the run's after-state; a
// resource already back in its before-state needs nothing, and one in
// neither state is a blocker naming it. Undoing what cannot be undone
// (partitions added, a password not given, a topic's messages) is a blocker
// too; a topic the run created is deleted only with DeleteCreatedTopics.
func Build(in Input) (*plan.Plan, error) {
	r := in.Run
	if in.Target == nil {
		return nil, errors.New("revert: the target snapshot is required")
	}
	switch {
	case r.TargetClusterID == "":
		return nil, fmt.Errorf("run %d recorded no target cluster id, so the target given cannot be checked to be the one it changed", r.ID)
	case in.Target.ClusterID != r.TargetClusterID:
		return nil, &plan.EndpointError{Side: "target", Msg: fmt.Sprintf("run %d changed cluster %s, but the target given (%s) is cluster %s; give the target the run applied to",
			r.ID, r.TargetClusterID, orUnnamed(in.Target.Address), orUnnamed(in.Target.ClusterID))}
	}
	p := &plan.Plan{Format: plan.FormatVersion, Source: in.Source, Target: in.TargetEndpoint,
		Options: plan.Options{OwnUser: in.OwnUser},
		Reverts: &plan.Reverts{Run: r.ID, Seq: r.Seq, Digest: r.Digest, DeleteCreatedTopics: in.DeleteCreatedTopics}}
	b := &builder{in: in, p: p, ix: plan.NewTarget(in.Target), secrets: map[string]secret.Secret{}}
	for _, s := range in.Secrets {
		if s.Known() {
			b.secrets[s.Ref()] = s
		}
	}
	creds := map[[2]string]secret.Secret{}
	for _, c := range in.Credentials {
		creds[[2]string{c.User, c.Mechanism}] = c.Password
	}
	b.password = func(user, mech string) (secret.Secret, bool) {
		s, ok := creds[[2]string{user, mech}]
		return s, ok
	}
	applied := 0
	for i := range r.Changes {
		c := &r.Changes[i]
		st := r.Status[c.ID]
		if st == NotApplied {
			continue
		}
		applied++
		if err := b.undo(c, st); err != nil {
			return nil, err
		}
	}
	if applied == 0 {
		b.finding(catalogue.IDRevertNothingApplied, snapshot.SeverityInfo, fmt.Sprintf("run %d", r.ID),
			fmt.Sprintf("run %d applied no change: there is nothing to revert", r.ID), "")
	}
	if n := len(b.already); n > 0 {
		b.finding(catalogue.IDRevertAlreadyReverted, snapshot.SeverityInfo, fmt.Sprintf("run %d", r.ID),
			fmt.Sprintf("%s run %d changed %s already back in %s state before it (e.g. %s); nothing is sent for %s",
				english.N(n, "resource"), r.ID, english.Agree(n, "is", "are"), english.Agree(n, "its", "their"), strings.Join(b.already[:min(n, 3)], ", "), english.Agree(n, "it", "them")), "")
	}
	plan.Finish(p)
	return p, nil
}

type builder struct {
	in       Input
	p        *plan.Plan
	ix       *plan.Target
	secrets  map[string]secret.Secret
	password func(user, mech string) (secret.Secret, bool)
	already  []string // labels of resources already back in their before-state
}

func (b *builder) finding(id, sev, resource, msg, fix string) {
	b.p.Findings = append(b.p.Findings, snapshot.Finding{ID: id, Severity: sev, Resource: resource, Message: msg, Fix: fix})
}

func (b *builder) block(id string, c *plan.Change, reason, fix string) {
	cc := *c
	b.p.Blockers = append(b.p.Blockers, plan.Blocker{ID: id, Kind: c.Kind, Resource: plan.Label(c), Reason: reason, Fix: fix, Change: &cc})
}

// undo adds what undoes c, a change the run applied (or had in flight).
func (b *builder) undo(c *plan.Change, st Status) error {
	run := b.in.Run.ID
	inv, err := plan.Invert(c, plan.InvertInput{Whole: b.in.Run.Whole[c.ID], Password: b.password, OwnUser: b.in.OwnUser})
	if err != nil {
		return err
	}
	r := inv.Change
	label := plan.Label(&r)
	switch status, observed := b.ix.Check(&r); status {
	case plan.Done:
		// Back in the before-state (reverted already, or by hand); a
		// change in flight that is there was never made.
		if st == Applied {
			b.already = append(b.already, string(r.Kind)+" "+label)
		}
		return nil
	case plan.Stale:
		b.block(catalogue.IDBlockRevertChangedSince, &r,
			fmt.Sprintf("changed since run %d: the run left %s, the target now has %s; a revert never overwrites a later change", run, describe(r.Before), observed),
			"restore it by hand, or leave it as it is")
		return nil
	}
	if st == InFlight {
		b.finding(catalogue.IDRevertInFlight, snapshot.SeverityWarning, string(r.Kind)+" "+label,
			fmt.Sprintf("was in flight when run %d stopped, and the target shows it made: it is reverted", run), "review it before applying the revert")
	}
	switch {
	case inv.Blocked != "":
		b.block(inv.Blocked, &r, inv.Why, inv.Fix)
		return nil
	case inv.DeletesData && !b.in.DeleteCreatedTopics:
		b.block(catalogue.IDBlockRevertTopicKept, &r,
			fmt.Sprintf("created by run %d, and kept: deleting it deletes its messages", run),
			"give --delete-created-topics to delete it")
		return nil
	}
	if len(inv.Dropped) > 0 {
		b.block(catalogue.IDBlockRevertSecretUnknown, &r,
			fmt.Sprintf("sensitive %s %s: the value before run %d is not known (Kafka never returns it), so the run's value stays", english.Agree(len(inv.Dropped), "config", "configs"), strings.Join(inv.Dropped, ", "), run),
			english.Agree(len(inv.Dropped), "set the value by hand (kafka-configs --alter) if it must go back", "set the values by hand (kafka-configs --alter) if they must go back"))
	}
	if inv.Note != nil {
		f := *inv.Note
		f.Resource = string(r.Kind) + " " + label
		b.p.Findings = append(b.p.Findings, f)
	}
	b.resolve(&r)
	b.p.Changes = append(b.p.Changes, r)
	return nil
}

// resolve gives the sensitive configs r sets again their values from the
// secrets read now, by reference; one not among them keeps its reference
// (apply resolves it from the source it reads), with a finding.
func (b *builder) resolve(r *plan.Change) {
	if r.After == nil {
		return
	}
	for i := range r.After.Configs {
		cf := &r.After.Configs[i]
		if !cf.Sensitive || cf.Secret == nil || cf.Secret.Known() {
			continue
		}
		if s, ok := b.secrets[cf.Secret.Ref()]; ok {
			cf.Secret = &s
			continue
		}
		b.finding(catalogue.IDRevertSecretFromSource, snapshot.SeverityInfo, string(r.Kind)+" "+plan.Label(r)+" "+cf.Key,
			fmt.Sprintf("is set again from %s: apply reads the value from the source again", cf.Secret.Ref()),
			"give apply --zookeeper and --password-encoder-secret-file")
	}
}

// describe is a state as JSON, "absent" for none.
func describe(s *plan.State) string {
	if s == nil {
		return "absent"
	}
	j, _ := json.Marshal(s)
	return string(j)
}

func orUnnamed(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
