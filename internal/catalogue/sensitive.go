package catalogue

import "strings"

// PasswordKeys are the names of Kafka's PASSWORD-type configs (brokers,
// clients, topics), the keys whose values are secrets. "password" stands for
// every *.password key (ssl.key.password, ssl.keystore.password,
// ssl.truststore.password, zookeeper.ssl.*.password, ...). Each also matches
// its prefixed forms: listener.name.<listener>.<key>,
// listener.name.<listener>.<mechanism>.sasl.jaas.config,
// remote.log.metadata.common.client.<key>, and so on.
var PasswordKeys = []string{
	"password",
	"sasl.jaas.config",
	"ssl.keystore.key",
	"ssl.keystore.certificate.chain",
	"ssl.truststore.certificates",
	"password.encoder.secret",
	"password.encoder.old.secret",
	"delegation.token.secret.key",
	"delegation.token.master.key",
	"sasl.oauthbearer.client.credentials.client.secret",
	"sasl.oauthbearer.assertion.private.key.passphrase",
}

// IsSensitive reports whether a config key holds a secret by Kafka's own
// definition: the key is one of PasswordKeys, or ends with "." and one of
// them, or the type table says PASSWORD. The match ignores case (Kafka's keys are lower-case; a key in
// another case is still treated as the secret it looks like). What a broker
// marks sensitive in DescribeConfigs is sensitive too; readers check both,
// so that a target returning a password in clear never has it kept.
func IsSensitive(key string) bool {
	k := strings.ToLower(strings.TrimSpace(key))
	for _, p := range PasswordKeys {
		if k == p || strings.HasSuffix(k, "."+p) {
			return true
		}
	}
	return ConfigType(ScopeBroker, k) == TypePassword || ConfigType(ScopeTopic, k) == TypePassword
}

// LooksSensitive reports whether a config key holds a secret: passwords,
// keys, JAAS configs, encoder secrets and the like. It errs on the side of
// redaction: it covers Kafka's own password-type keys (IsSensitive)
// and any key whose name suggests a secret.
func LooksSensitive(key string) bool {
	if IsSensitive(key) {
		return true
	}
	k := strings.ToLower(key)
	for _, s := range []string{"password", "secret", "sasl.jaas.config", "ssl.keystore.key", "ssl.keystore.certificate.chain", "ssl.truststore.certificates", "credential", "token", "private.key", "apikey", "api.key"} {
		if strings.Contains(k, s) {
			return true
		}
	}
	return strings.HasPrefix(k, "scram-sha-")
}
