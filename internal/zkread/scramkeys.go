package zkread

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/zkmigrate/zkmigrate/internal/catalogue"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/zktree"
)

// UserScram is one user's credential for one mechanism, with its keys, as
// ZooKeeper holds it. The keys are secret: String, GoString and Format name
// the user and mechanism only.
type UserScram struct {
	User       string // decoded user name, without "User:"
	Mechanism  string // SCRAM-SHA-256 or SCRAM-SHA-512
	Path       string // the znode it was read from
	Credential ScramCredential
}

// String names the user and mechanism, never the keys.
func (u UserScram) String() string {
	return fmt.Sprintf("User:%s %s (%d iterations)", u.User, u.Mechanism, u.Credential.Iterations)
}

// GoString is String.
func (u UserScram) GoString() string { return u.String() }

// Format makes every fmt verb print String, including %+v and %#v.
func (u UserScram) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(u.String())) }

// ReadScramKeys reads every SCRAM credential under /config/users with its
// salt and keys, for the one use that needs them: writing them into a
// fresh KRaft cluster's bootstrap checkpoint. It reads only
// /config/users/<user> znodes. A znode it cannot decode is a finding naming
// its path (errors never quote a value); a lost connection is an error.
// The result is sorted by user and mechanism.
func ReadScramKeys(src Source) ([]UserScram, []snapshot.Finding, error) {
	names, err := src.Children("/config/users")
	if errors.Is(err, zktree.ErrNoNode) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("zkread: list /config/users: %w", err)
	}
	slices.Sort(names)
	var out []UserScram
	var findings []snapshot.Finding
	find := func(id, path, msg, fix string) {
		findings = append(findings, snapshot.Finding{ID: id, Severity: snapshot.SeverityError, Resource: path, Message: msg, Fix: fix})
	}
	for _, n := range names {
		if n == DefaultEntity {
			continue
		}
		p := "/config/users/" + n
		user, err := Desanitize(n)
		if err != nil {
			find(catalogue.IDZnodeMalformed, p, strings.TrimPrefix(err.Error(), "zkread: "), "")
			continue
		}
		data, _, err := src.Get(p)
		switch {
		case errors.Is(err, zktree.ErrNoNode):
			continue // deleted since the listing
		case errors.Is(err, zktree.ErrNoAuth):
			find(catalogue.IDZnodeNotReadable, p, "ZooKeeper ACLs deny reading this user's config", "connect with --zk-auth as the brokers' identity")
			continue
		case err != nil:
			return nil, nil, fmt.Errorf("zkread: read %s: %w", p, err)
		}
		m, err := ParseEntityConfig(data)
		if err != nil {
			find(catalogue.IDZnodeMalformed, p, strings.TrimPrefix(err.Error(), "zkread: "), "")
			continue
		}
		for _, mech := range ScramMechanisms {
			v, ok := m[mech]
			if !ok {
				continue
			}
			c, err := ParseScramCredential(v)
			if err != nil {
				find(catalogue.IDScramMalformed, p, mech+": "+strings.TrimPrefix(err.Error(), "zkread: "), "reset the user's password")
				continue
			}
			out = append(out, UserScram{User: user, Mechanism: mech, Path: p, Credential: c})
		}
	}
	slices.SortFunc(out, func(a, b UserScram) int {
		if c := strings.Compare(a.User, b.User); c != 0 {
			return c
		}
		return strings.Compare(a.Mechanism, b.Mechanism)
	})
	return out, findings, nil
}
