package migration

import (
	"context"
	"errors"
	"strings"

	"github.com/zkmigrate/zkmigrate/internal/kafkaconn"
)

// KafkaTarget is a live target cluster, named as Kafka's own tools name
// it: bootstrap servers, a client.properties file, and the principal the
// target sees this tool as when the connection cannot tell.
type KafkaTarget struct {
	Bootstrap     string // "host:port[,host:port]"
	CommandConfig string // client.properties ("" PLAINTEXT)
	// Principal overrides who the target sees this tool as ("alice" means
	// User:alice): used in messages about missing ACLs.
	Principal string
}

// Config loads the command config, or the PLAINTEXT default without one,
// with the principal set.
func (t *KafkaTarget) Config() (*kafkaconn.Config, error) {
	cfg := kafkaconn.Default()
	if t.CommandConfig != "" {
		var err error
		if cfg, err = kafkaconn.Load(t.CommandConfig); err != nil {
			return nil, err
		}
	}
	if p := strings.TrimSpace(t.Principal); p != "" {
		if !strings.Contains(p, ":") {
			p = "User:" + p
		}
		cfg.Principal = p
	}
	return cfg, nil
}

// ErrNoTarget is a KafkaTarget without bootstrap servers.
var ErrNoTarget = errors.New("no target: give its bootstrap servers")

// Dial connects to the target, checking that it answers; the caller
// closes the connection.
func (t *KafkaTarget) Dial(ctx context.Context) (*kafkaconn.Conn, error) {
	if strings.TrimSpace(t.Bootstrap) == "" {
		return nil, ErrNoTarget
	}
	cfg, err := t.Config()
	if err != nil {
		return nil, err
	}
	return kafkaconn.Dial(ctx, strings.Split(t.Bootstrap, ","), cfg)
}

// OwnUser is the SASL user the command config signs in as (OwnUser of a
// connection made with it), for an offline review whose --prune must keep
// that user's SCRAM credentials.
func (t *KafkaTarget) OwnUser() (string, error) {
	cfg, err := t.Config()
	if err != nil {
		return "", err
	}
	return OwnUser(&kafkaconn.Conn{Config: cfg}), nil
}
