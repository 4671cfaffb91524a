package plan

import (
	"fmt"
	"strconv"

	"github.com/zkmigrate/zkmigrate/internal/catalogue"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// scram-user: one SCRAM credential (user and mechanism) set from a password
// the operator supplied; ZooKeeper holds only salted keys.
// KindScramUser is a change to a user's SCRAM credential.
const KindScramUser Kind = "scram-user"

var scramUserSpec = &spec{
	kind:     KindScramUser,
	password: true,
	valid: func(c *Change) string {
		switch {
		case c.Resource.Mechanism != "SCRAM-SHA-256" && c.Resource.Mechanism != "SCRAM-SHA-512":
			return fmt.Sprintf("mechanism %q is not SCRAM-SHA-256 or SCRAM-SHA-512", c.Resource.Mechanism)
		case c.Action == ActionDelete:
			if c.After != nil {
				return "a delete with an after-state"
			}
			return needsBefore(c)
		case c.After.Password == nil:
			return "no password reference"
		}
		return ""
	},
	resource: "user",
	build:    func(b *builder) error { b.scram(); return nil },
	observe: func(ix *Target, c *Change) *State {
		if it, ok := ix.scram[[2]string{c.Resource.Name, c.Resource.Mechanism}]; ok {
			return &State{Iterations: it}
		}
		return nil
	},
	equal: func(obs, ref *State) bool {
		if eq, ok := bothOrNeither(obs, ref); ok {
			return eq
		}
		// Presence is all the protocol shows; the password cannot be read back.
		return ref.Password != nil || obs.Iterations == ref.Iterations
	},
	fields: func(c *Change) []Field {
		var out []Field
		it := func(s *State) *string {
			if s == nil {
				return nil
			}
			return strp(strconv.Itoa(int(s.Iterations)))
		}
		out = append(out, field("iterations", it(c.Before), it(c.After)))
		pw := Field{Key: "password", Sensitive: true}
		if c.Before != nil && c.After != nil {
			pw.Before = strp("") // the target's credential: never readable (a delete just drops it)
		}
		if c.After != nil && c.After.Password != nil {
			pw.After = strp(c.After.Password.Ref())
		}
		if pw.Before != nil || pw.After != nil {
			out = append(out, pw)
		}
		return out
	},
	label:  func(r Resource) string { return "User:" + r.Name + " " + r.Mechanism },
	invert: invertScram,
}

func (b *builder) scram() {
	type um struct{ user, mech string }
	have := map[um]int32{}
	for _, u := range b.in.Target.ScramUsers {
		for _, c := range u.Credentials {
			have[um{u.Name, c.Mechanism}] = c.Iterations
		}
	}
	creds := map[um]Credential{}
	for _, c := range b.in.Credentials {
		creds[um{c.User, c.Mechanism}] = c
	}
	for _, u := range b.in.Source.ScramUsers {
		if !b.wantPrincipal("User:" + u.Name) {
			continue
		}
		for _, sc := range u.Credentials {
			k := um{u.Name, sc.Mechanism}
			it, present := have[k]
			if present && !b.in.Options.ResendSecrets {
				continue
			}
			res := Resource{Type: "user", Name: u.Name, Mechanism: sc.Mechanism}
			cred, ok := creds[k]
			if !ok {
				why := "ZooKeeper holds only salted keys"
				if b.in.Source.Source == snapshot.SourceKafka {
					why = "the source's brokers give only the mechanism and iterations"
				}
				if bl := b.block(catalogue.IDBlockScramNoPassword, KindScramUser, "User:"+u.Name+" "+sc.Mechanism,
					"SCRAM credentials cannot be carried through the admin protocol without the password ("+why+")",
					"give the password in --scram-credentials, or have the user reset it (--scram-resets FILE lists them)", nil); bl != nil {
					bl.User, bl.Mechanism = u.Name, sc.Mechanism
				}
				continue
			}
			iters := cred.Iterations
			if iters == 0 {
				iters = max(sc.Iterations, 4096)
			}
			pw := cred.Password
			c := Change{Kind: KindScramUser, Action: ActionCreate, Resource: res,
				After: &State{Iterations: iters, Password: &pw}}
			if present {
				c.Action = ActionUpdate
				c.Before = &State{Iterations: it}
			}
			b.add(c)
		}
	}
	if b.in.Options.Prune {
		b.pruneScram()
	}
}

// pruneScram deletes the target's SCRAM credentials the source lacks, for
// the principals wanted, except those of Options.OwnUser: deleting the
// credential the tool signs in with would lock it out, so that is a
// blocker naming the user.
func (b *builder) pruneScram() {
	type um struct{ user, mech string }
	src := map[um]bool{}
	for _, u := range b.in.Source.ScramUsers {
		for _, c := range u.Credentials {
			src[um{u.Name, c.Mechanism}] = true
		}
	}
	for _, u := range b.in.Target.ScramUsers {
		if !b.wantPrincipal("User:" + u.Name) {
			continue
		}
		for _, tc := range u.Credentials {
			if src[um{u.Name, tc.Mechanism}] {
				continue
			}
			c := Change{Kind: KindScramUser, Action: ActionDelete,
				Resource: Resource{Type: "user", Name: u.Name, Mechanism: tc.Mechanism},
				Before:   &State{Iterations: tc.Iterations}}
			if own := b.in.Options.OwnUser; own != "" && u.Name == own {
				c.ID = ChangeID(c.Kind, c.Resource)
				b.block(catalogue.IDBlockPruneOwnCredential, KindScramUser, "User:"+u.Name+" "+tc.Mechanism,
					"--prune would delete the SCRAM credential of User:"+u.Name+", the user this tool authenticates to the target as; "+
						"the rest of the apply and every later run would be locked out",
					"add the credential to the source, leave the user out with --principals, or run as another user", &c)
				continue
			}
			b.add(c)
		}
	}
}
