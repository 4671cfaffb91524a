package migration

import (
	"encoding/json"

	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/secret"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// WriteScramResets writes the SCRAM users whose password must be reset
// (plan.ScramResets) to path as a JSON list of {user, mechanism},
// atomically. It never holds a password.
func WriteScramResets(path string, p *plan.Plan) error {
	data, err := json.MarshalIndent(p.ScramResets(), "", "  ")
	if err != nil {
		return err
	}
	return snapshot.WriteFileAtomic(path, append(data, '\n'), 0o644)
}

// SecretValues returns the secret values this run holds in memory (the
// source's decrypted broker passwords, the SCRAM credentials), for the
// audit trail to scrub should one ever reach it.
func (p *Planned) SecretValues() []string {
	var out []string
	add := func(s *secret.Secret) {
		if s != nil {
			if v, ok := s.Reveal(); ok && v != "" {
				out = append(out, v)
			}
		}
	}
	if src := p.Source; src != nil {
		for _, t := range src.Topics {
			for i := range t.Configs {
				add(t.Configs[i].Secret)
			}
		}
		for _, bc := range src.BrokerConfigs {
			for i := range bc.Configs {
				add(bc.Configs[i].Secret)
			}
		}
	}
	for i := range p.Credentials {
		add(&p.Credentials[i].Password)
	}
	return out
}
