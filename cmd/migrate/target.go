package main

import (
	"github.com/spf13/pflag"

	"github.com/zkmigrate/zkmigrate/internal/migration"
)

// targetFlags are the target flags every command that talks to the KRaft
// cluster shares, named as Kafka's own tools name them.
type targetFlags struct {
	bootstrap     string
	commandConfig string
	principal     string
}

func (f *targetFlags) register(fs *pflag.FlagSet) {
	f.registerConn(fs)
	fs.StringVar(&f.principal, "principal", "", "the `PRINCIPAL` the target sees this tool as (default: User:<sasl user>, the client certificate subject, or User:ANONYMOUS); used in messages about missing ACLs")
}

// registerConn registers the connection flags alone (commands whose
// --principal means something else).
func (f *targetFlags) registerConn(fs *pflag.FlagSet) {
	fs.StringVar(&f.bootstrap, "bootstrap-server", "", "target Kafka `host:port[,host:port]`")
	fs.StringVar(&f.commandConfig, "command-config", "", "client.properties `FILE` for the target (security.protocol, sasl.mechanism PLAIN/SCRAM-SHA-256/SCRAM-SHA-512, sasl.jaas.config, ssl.* JKS/PKCS12/PEM stores, request.timeout.ms: how long each request waits for an answer and is retried, default 30000)")
}

// kafka is the target the flags name.
func (f *targetFlags) kafka() *migration.KafkaTarget {
	return &migration.KafkaTarget{Bootstrap: f.bootstrap, CommandConfig: f.commandConfig, Principal: f.principal}
}
