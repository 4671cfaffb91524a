package catalogue

import "testing"

func TestIsSensitive(t *testing.T) {
	for _, c := range []struct {
		key  string
		want bool
	}{
		{"ssl.key.password", true},
		{"ssl.keystore.password", true},
		{"ssl.truststore.password", true},
		{"zookeeper.ssl.keystore.password", true},
		{"sasl.jaas.config", true},
		{"ssl.keystore.key", true},
		{"ssl.keystore.certificate.chain", true},
		{"ssl.truststore.certificates", true},
		{"listener.name.internal.ssl.keystore.password", true},
		{"listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config", true},
		{"listener.name.sasl_ssl.ssl.truststore.certificates", true},
		{"remote.log.metadata.common.client.sasl.jaas.config", true},
		{"password.encoder.secret", true},
		{"delegation.token.secret.key", true},
		{"sasl.oauthbearer.client.credentials.client.secret", true},
		{"SSL.KEY.PASSWORD", true},
		{" ssl.key.password ", true},
		{"password", true},
		{"retention.ms", false},
		{"ssl.keystore.location", false},
		{"ssl.keystore.type", false},
		{"listener.name.internal.ssl.keystore.type", false},
		{"sasl.enabled.mechanisms", false},
		{"passwords.enabled", false},
		{"mypassword", false},
		{"delegation.token.expiry.time.ms", false},
		{"", false},
	} {
		if got := IsSensitive(c.key); got != c.want {
			t.Errorf("IsSensitive(%q) = %v, want %v", c.key, got, c.want)
		}
	}
}

// Every key the type table calls PASSWORD is sensitive, listener-prefixed
// or not.
func TestIsSensitiveCoversPasswordTypes(t *testing.T) {
	for _, table := range []map[string]Type{brokerConfigTypes, topicConfigTypes} {
		for k, typ := range table {
			if typ != TypePassword {
				continue
			}
			for _, key := range []string{k, "listener.name.external." + k} {
				if !IsSensitive(key) {
					t.Errorf("%s is PASSWORD-typed but IsSensitive(%q) is false", k, key)
				}
			}
		}
	}
}

func TestLooksSensitive(t *testing.T) {
	for key, want := range map[string]bool{
		"ssl.keystore.password":                                 true, // Kafka's own
		"listener.name.internal.scram-sha-256.sasl.jaas.config": true,
		"my.custom.secret":                                      true, // by its name
		"schema.registry.basic.auth.credentials.source":         true,
		"api.key":                 true,
		"SCRAM-SHA-256":           true, // a user's credential key
		"confluent.license.token": true,
		"retention.ms":            false,
		"ssl.keystore.location":   false,
		"sasl.mechanism":          false,
		"min.insync.replicas":     false,
	} {
		if got := LooksSensitive(key); got != want {
			t.Errorf("LooksSensitive(%q) = %v, want %v", key, got, want)
		}
	}
}
