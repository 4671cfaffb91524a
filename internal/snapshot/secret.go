package snapshot

import (
	"github.com/zkmigrate/zkmigrate/internal/catalogue"
	"github.com/zkmigrate/zkmigrate/internal/secret"
)

// holdSecretsByReference makes every config that Kafka defines as a secret
// (catalogue.IsSensitive) sensitive, dropping a value that a hand-edited or
// old snapshot file holds in clear, so that the value reaches no plan,
// output or audit record. Each dropped value is reported as a finding.
func holdSecretsByReference(s *Snapshot) {
	fix := func(cs []Config, resource, refBase string) {
		for i := range cs {
			c := &cs[i]
			if !catalogue.IsSensitive(c.Key) {
				continue
			}
			if c.Value != "" {
				s.Findings = append(s.Findings, Finding{ID: catalogue.IDSnapshotSecretInClear, Severity: SeverityWarning, Resource: resource,
					Message: "the snapshot file holds the value of " + c.Key + " in clear; it is dropped and the key is held by reference",
					Fix:     "delete the file and take the snapshot again with this version"})
			}
			if c.Secret == nil || c.Value != "" {
				ref := secret.Ref(refBase + "#" + c.Key)
				c.Secret = &ref
			}
			c.Sensitive, c.Value = true, ""
		}
	}
	for i := range s.Topics {
		fix(s.Topics[i].Configs, "topic "+s.Topics[i].Name, "snapshot:topic/"+s.Topics[i].Name)
	}
	for i := range s.BrokerConfigs {
		b := s.BrokerConfigs[i].Broker
		if b == "" {
			b = "<default>"
		}
		fix(s.BrokerConfigs[i].Configs, "broker "+b, "snapshot:broker/"+b)
	}
	for i := range s.StaticConfigs {
		fix(s.StaticConfigs[i].Configs, s.StaticConfigs[i].File, "file:"+s.StaticConfigs[i].File)
	}
}
