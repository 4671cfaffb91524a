package plan

import (
	"github.com/zkmigrate/zkmigrate/internal/secret"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// SecretSite is one place of a plan that can hold a secret: a SCRAM
// password (Password set) or a config (Config set) of one state of a
// change, or of a change a blocker holds back.
type SecretSite struct {
	Change   *Change
	Blocked  bool // Change is a blocker's
	After    bool // the after-state (else the before-state)
	Password *secret.Secret
	Config   *snapshot.Config
}

// EachSecret calls fn for every place of p that can hold a secret, in
// order: each change's before- then after-state (its password, then its
// configs), then each blocker's change. It is the one walk of a plan's
// secrets: apply's resolution and justification (SecretsOf) and the audit
// trail's scrubbing and redaction use it.
func EachSecret(p *Plan, fn func(SecretSite)) {
	change := func(c *Change, blocked bool) {
		for _, after := range []bool{false, true} {
			st := c.Before
			if after {
				st = c.After
			}
			if st == nil {
				continue
			}
			if st.Password != nil {
				fn(SecretSite{Change: c, Blocked: blocked, After: after, Password: st.Password})
			}
			for i := range st.Configs {
				fn(SecretSite{Change: c, Blocked: blocked, After: after, Config: &st.Configs[i]})
			}
		}
	}
	for i := range p.Changes {
		change(&p.Changes[i], false)
	}
	for i := range p.Blockers {
		if c := p.Blockers[i].Change; c != nil {
			change(c, true)
		}
	}
}
