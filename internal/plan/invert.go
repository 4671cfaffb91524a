package plan

import (
	"fmt"
	"strings"

	"github.com/zkmigrate/zkmigrate/internal/catalogue"
	"github.com/zkmigrate/zkmigrate/internal/secret"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// Reverts names the audited run a revert plan undoes (migrate audit
// revert). Apply justifies such a plan by that run's audit record instead of
// by a source: the run must still end at Seq with the hash Digest (its
// record digest: the chain position and hash of the run's own last row),
// and the revert built again from that record must hold every change.
type Reverts struct {
	Run    int64  `json:"run"`
	Seq    int64  `json:"seq"`
	Digest string `json:"digest"`
	// DeleteCreatedTopics: the revert deletes the topics the run created
	// (--delete-created-topics); otherwise they are kept, as blockers.
	DeleteCreatedTopics bool `json:"delete_created_topics,omitempty"`
}

// Inverse is how an applied change is undone (Invert).
type Inverse struct {
	// Change restores the before-state of the change it inverts: its
	// Before is that change's After and its After that change's Before,
	// shaped so that Check compares a target with them. It is set even when
	// it cannot be sent (Blocked), so that the target can still be checked.
	Change Change
	// DeletesData: sending Change deletes what nothing brings back (a topic
	// the run created, with every message written to it since).
	DeletesData bool
	// Blocked is the catalogue id of why Change cannot be sent ("" when it
	// can); Why says it in words and Fix what to do.
	Blocked, Why, Fix string
	// Dropped lists the config keys left out of Change: sensitive values
	// from before the change that the target never returned.
	Dropped []string
	// Note is a finding to report when Change is sent (nil none), such as
	// a topic re-created empty; its Resource is the caller's to fill in.
	Note *snapshot.Finding
}

// InvertInput is what Invert needs besides the change.
type InvertInput struct {
	// Whole is the whole state of the resource the change deleted, as the
	// apply found it (Target.Whole); nil when the audit record does not
	// hold it.
	Whole *State
	// Password returns the password the operator gave for a SCRAM
	// credential (--scram-credentials); nil when none was given.
	Password func(user, mechanism string) (secret.Secret, bool)
	// OwnUser is the SASL user the tool signs in to the target as: a revert
	// never deletes its SCRAM credentials.
	OwnUser string
}

// Invert returns the change that undoes c, an applied change, or an
// *UnknownKindError. It is pure: whether the target still shows c's
// after-state is for the caller to check against Inverse.Change.
func Invert(c *Change, in InvertInput) (Inverse, error) {
	s, err := specOf(c.Kind)
	if err != nil {
		return Inverse{}, fmt.Errorf("change %s: %w", c.ID, err)
	}
	inv := s.invert(c, in)
	inv.Change.Kind, inv.Change.Resource = c.Kind, c.Resource
	inv.Change.ID = ChangeID(c.Kind, c.Resource)
	return inv, nil
}

// Whole returns the whole state of the resource c deletes, as t shows it,
// when c's Before holds only part of it (a topic's: its replica assignment
// and configs besides its partition count and replication factor); nil for
// any other change, or when t does not have the resource. The audit trail
// keeps it so that a revert can re-create what c deleted.
func (t *Target) Whole(c *Change) *State {
	s, err := specOf(c.Kind)
	if err != nil || s.whole == nil || c.Action != ActionDelete {
		return nil
	}
	return s.whole(t, c)
}

// swapped is c with its states exchanged and its action inverted.
func swapped(c *Change) Change {
	return Change{Action: inverseAction(c.Action), Before: cloneState(c.After), After: cloneState(c.Before)}
}

func inverseAction(a Action) Action {
	switch a {
	case ActionCreate:
		return ActionDelete
	case ActionDelete:
		return ActionCreate
	}
	return a
}

func cloneState(s *State) *State {
	if s == nil {
		return nil
	}
	c := *s
	c.Configs = append([]snapshot.Config(nil), s.Configs...)
	return &c
}

// invertSwap undoes a change by exchanging its states (ACLs, quotas,
// reassignments).
func invertSwap(c *Change, _ InvertInput) Inverse { return Inverse{Change: swapped(c)} }

// invertConfigs undoes a config change: the keys it set go back to their
// values before it (or are removed again), the keys it removed are set
// again. A sensitive value from before the change whose reference the
// target gave (Kafka never returns the value) cannot be set again: the key
// is left out of both states (Dropped), so it is neither set nor removed.
func invertConfigs(c *Change, _ InvertInput) Inverse {
	inv := Inverse{Change: swapped(c)}
	r := &inv.Change
	var drop map[string]bool
	for _, cf := range orEmpty(r.After).Configs {
		if cf.Sensitive && !Readable(cf.Secret) {
			if drop == nil {
				drop = map[string]bool{}
			}
			drop[cf.Key] = true
			inv.Dropped = append(inv.Dropped, cf.Key)
		}
	}
	if drop == nil {
		return inv
	}
	without := func(s *State) {
		if s == nil {
			return
		}
		kept := s.Configs[:0]
		for _, cf := range s.Configs {
			if !drop[cf.Key] {
				kept = append(kept, cf)
			}
		}
		s.Configs = kept
	}
	without(r.Before)
	without(r.After)
	if len(orEmpty(r.Before).Configs) == 0 && len(orEmpty(r.After).Configs) == 0 {
		inv.block(catalogue.IDBlockRevertSecretUnknown, "the change set only sensitive values, and their values before it are not known: Kafka never returns them",
			"set the values by hand (kafka-configs --alter) if they must go back")
	}
	return inv
}

// Readable reports whether the value behind a secret reference can be read
// again: one the tool read from ZooKeeper (decrypted with the brokers'
// password encoder secret) can, one a Kafka cluster gave ("kafka:...",
// which never returns a sensitive value) cannot, nor a missing one.
func Readable(s *secret.Secret) bool {
	return s != nil && s.Ref() != "" && !strings.HasPrefix(s.Ref(), "kafka:")
}

// invertTopic undoes a topic's creation by deleting it (DeletesData), and
// its deletion by creating it again as the apply found it before (Whole).
func invertTopic(c *Change, in InvertInput) Inverse {
	switch c.Action {
	case ActionCreate:
		return Inverse{Change: Change{Action: ActionDelete, Before: cloneState(c.After)}, DeletesData: true}
	case ActionDelete:
		if in.Whole == nil {
			inv := Inverse{Change: Change{Action: ActionCreate, After: cloneState(c.Before)}}
			inv.block(catalogue.IDBlockRevertNotRecorded,
				"the run's record holds the deleted topic's partition count and replication factor but not its configs and replica assignment (recorded from audit schema version 8 on)",
				"re-create the topic by hand (kafka-topics --create) with its configs")
			return inv
		}
		inv := Inverse{Change: Change{Action: ActionCreate, After: cloneState(in.Whole)},
			Note: &snapshot.Finding{ID: catalogue.IDRevertTopicRecreated, Severity: snapshot.SeverityWarning,
				Message: "is re-created empty, with a new topic id: the messages it held were deleted with it",
				Fix:     "restore the messages from a backup or a mirror if they are needed"}}
		r := inv.Change.After
		kept := r.Configs[:0]
		for _, cf := range r.Configs {
			if cf.Sensitive && !Readable(cf.Secret) {
				inv.Dropped = append(inv.Dropped, cf.Key)
				continue
			}
			kept = append(kept, cf)
		}
		r.Configs = kept
		return inv
	}
	return unsupported(c)
}

// invertPartitions cannot undo partitions added: Kafka cannot remove them.
func invertPartitions(c *Change, _ InvertInput) Inverse {
	b, a := orEmpty(c.Before), orEmpty(c.After)
	inv := Inverse{Change: Change{Action: ActionUpdate, Before: &State{Partitions: a.Partitions}, After: &State{Partitions: b.Partitions}}}
	inv.block(catalogue.IDBlockRevertPartitions, fmt.Sprintf("the run added partitions (%d to %d) and Kafka cannot remove partitions", b.Partitions, a.Partitions),
		"leave them, or delete and re-create the topic by hand (losing its messages)")
	return inv
}

// invertScram undoes a credential's creation by deleting it; a credential
// the run changed or deleted needs its password to be set again.
func invertScram(c *Change, in InvertInput) Inverse {
	user, mech := c.Resource.Name, c.Resource.Mechanism
	switch c.Action {
	case ActionCreate:
		inv := Inverse{Change: Change{Action: ActionDelete, Before: &State{Iterations: orEmpty(c.After).Iterations}}}
		if in.OwnUser != "" && user == in.OwnUser {
			inv.block(catalogue.IDBlockRevertOwnCredential, "deleting the SCRAM credential of User:"+user+", the user this tool signs in to the target as, would lock it out",
				"run the revert as another user, or delete the credential by hand last")
		}
		return inv
	case ActionUpdate, ActionDelete:
		before := orEmpty(c.Before)
		inv := Inverse{Change: Change{Action: ActionCreate, After: &State{Iterations: before.Iterations}}}
		if c.Action == ActionUpdate {
			inv.Change.Action = ActionUpdate
			inv.Change.Before = &State{Iterations: orEmpty(c.After).Iterations}
		}
		var pw secret.Secret
		ok := false
		if in.Password != nil {
			pw, ok = in.Password(user, mech)
		}
		if !ok {
			pw = secret.Ref("scram-credentials:" + user + "/" + mech)
			verb := "changed"
			if c.Action == ActionDelete {
				verb = "deleted"
			}
			inv.block(catalogue.IDBlockRevertScramPassword, "the run "+verb+" the SCRAM credential of User:"+user+" ("+mech+"); setting it again needs its password, which the target never returns",
				"give the password in --scram-credentials, or have the user set a new one")
		}
		inv.Change.After.Password = &pw
		return inv
	}
	return unsupported(c)
}

func unsupported(c *Change) Inverse {
	inv := Inverse{Change: Change{Action: c.Action, Before: cloneState(c.After), After: cloneState(c.Before)}}
	inv.block(catalogue.IDBlockRevertNotRecorded, fmt.Sprintf("a %s change with action %q cannot be undone", c.Kind, c.Action), "undo it by hand")
	return inv
}

// block marks inv as not sendable, for the reason id (a catalogue id).
func (inv *Inverse) block(id, why, fix string) { inv.Blocked, inv.Why, inv.Fix = id, why, fix }
