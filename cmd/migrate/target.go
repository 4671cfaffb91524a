package main

import (
	"context"
	"errors"
	"strings"

	"github.com/spf13/pflag"

	"github.com/zkmigrate/zkmigrate/internal/kafkaconn"
)

// targetFlags are the target flags every command that talks to the KRaft
// cluster shares, named as Kafka's own tools name them.
type targetFlags struct {
	bootstrap     string
	commandConfig string
	principal     string
}

func (f *targetFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.bootstrap, "bootstrap-server", "", "target Kafka `host:port[,host:port]`")
	fs.StringVar(&f.commandConfig, "command-config", "", "client.properties `FILE` for the target (security.protocol, sasl.mechanism PLAIN/SCRAM-SHA-256/SCRAM-SHA-512, sasl.jaas.config, ssl.* JKS/PKCS12/PEM stores, request.timeout.ms: how long each request waits for an answer and is retried, default 30000)")
	fs.StringVar(&f.principal, "principal", "", "the `PRINCIPAL` the target sees this tool as (default: User:<sasl user>, the client certificate subject, or User:ANONYMOUS); used in messages about missing ACLs")
}

// config loads --command-config, or the PLAINTEXT default without it.
func (f *targetFlags) config() (*kafkaconn.Config, error) {
	cfg := kafkaconn.Default()
	if f.commandConfig != "" {
		var err error
		if cfg, err = kafkaconn.Load(f.commandConfig); err != nil {
			return nil, err
		}
	}
	if p := strings.TrimSpace(f.principal); p != "" {
		if !strings.Contains(p, ":") {
			p = "User:" + p
		}
		cfg.Principal = p
	}
	return cfg, nil
}

// connect reads the flags and dials the target, checking that it answers.
// The caller closes the connection.
func (f *targetFlags) connect(ctx context.Context) (*kafkaconn.Conn, error) {
	if strings.TrimSpace(f.bootstrap) == "" {
		return nil, errors.New("give the target: --bootstrap-server host:port [--command-config client.properties]")
	}
	cfg, err := f.config()
	if err != nil {
		return nil, err
	}
	return kafkaconn.Dial(ctx, strings.Split(f.bootstrap, ","), cfg)
}
