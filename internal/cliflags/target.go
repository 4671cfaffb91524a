package cliflags

import (
	"github.com/spf13/pflag"

	"github.com/zkmigrate/zkmigrate/internal/migration"
)

// Target are the target flags every command that talks to the KRaft
// cluster shares, named as Kafka's own tools name them.
type Target struct {
	Bootstrap     string
	CommandConfig string
	Principal     string
}

func (f *Target) Register(fs *pflag.FlagSet) {
	f.RegisterConn(fs)
	fs.StringVar(&f.Principal, "principal", "", "the `PRINCIPAL` the target sees this tool as\n(default: User:<sasl user>, the client certificate subject, or User:ANONYMOUS); used in messages about missing ACLs")
}

// RegisterConn registers the connection flags alone (commands whose
// --principal means something else).
func (f *Target) RegisterConn(fs *pflag.FlagSet) {
	fs.StringVar(&f.Bootstrap, "bootstrap-server", "", "target Kafka `host:port[,host:port]`")
	fs.StringVar(&f.CommandConfig, "command-config", "", "client.properties `FILE` for the target\n(security.protocol, sasl.mechanism PLAIN/SCRAM-SHA-256/SCRAM-SHA-512, sasl.jaas.config, ssl.* JKS/PKCS12/PEM stores, request.timeout.ms: how long each request waits for an answer and is retried, default 30000)")
}

// Kafka is the target the flags name.
func (f *Target) Kafka() *migration.KafkaTarget {
	return &migration.KafkaTarget{Bootstrap: f.Bootstrap, CommandConfig: f.CommandConfig, Principal: f.Principal}
}
