// Package principalmap maps the principals of a source cluster to the
// principals the same clients will have on the target when their
// authentication changes: an mTLS client User:CN=jakub,OU=eng becomes the
// SCRAM user User:jakub.
//
// A map is a properties file in Kafka's own keys, pasteable from
// server.properties (docs/principal-map.md):
//
//	ssl.principal.mapping.rules=RULE:^CN=([^,]+),OU=eng$/$1/,DEFAULT
//	sasl.kerberos.principal.to.local.rules=RULE:[1:$1@$0](.*@EXAMPLE.COM)s/@.*//,DEFAULT
//	zkmigrate.kerberos.default.realm=EXAMPLE.COM
//	zkmigrate.map=User:CN=legacy app,O=corp -> User:legacy-app
//
// Explicit pairs (zkmigrate.map, one per line) win; then a User whose name
// is a distinguished name goes through the SSL rules, a User whose name has
// '@' through the Kerberos rules; anything else is left as it is.
//
// The rules are evaluated exactly as Kafka evaluates them (SslPrincipalMapper,
// KerberosShortNamer, KerberosRule, KerberosName; checked against Kafka's
// own classes by TestDifferentialKafka). Their patterns are java.util.regex
// patterns, translated to Go's RE2 where the translation is exact; a
// construct RE2 cannot evaluate the same way (back references, lookaround,
// possessive quantifiers, \b, Unicode properties, nested classes, inline
// flags, ...) is refused when the file is read, naming file:line and the
// construct, and an input the translation cannot evaluate exactly (a name
// with characters beyond U+FFFF, or ending with a line terminator where the
// pattern has $) is refused by Apply with ErrUnsupported. Nothing is ever
// evaluated differently from Kafka without saying so.
//
// The package does no I/O except Load, which reads a file through
// internal/props.
package principalmap
