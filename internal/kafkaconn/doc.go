// Package kafkaconn connects to a Kafka cluster the way Kafka's own tools do
// with --bootstrap-server and --command-config: Load reads a client.properties
// file (security.protocol, sasl.mechanism with sasl.jaas.config, ssl.*
// truststores and keystores as PEM, PKCS12 or JKS), and Dial builds a franz-go
// client from it and checks that the cluster answers.
//
// Anything in the file that would change how Kafka's own client connects but
// that this package cannot honour (GSSAPI, OAUTHBEARER, callback handler
// classes, config providers, ...) is an error naming file:line and the key,
// never silently ignored. Errors never contain passwords or the JAAS text.
package kafkaconn
