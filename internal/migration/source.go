package migration

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/catalogue"
	"github.com/zkmigrate/zkmigrate/internal/kafkaconn"
	"github.com/zkmigrate/zkmigrate/internal/kread"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/zkconn"
	"github.com/zkmigrate/zkmigrate/internal/zkread"
)

// SourceRequest says where a source is read from and what comes with it:
// exactly one of ZooKeeper, DataDir, Kafka and SnapshotFile. The commands
// check that before they make a request; LoadSource reads the first one set
// in that order of preference: Kafka (without ZooKeeper), SnapshotFile,
// DataDir, ZooKeeper.
type SourceRequest struct {
	ZooKeeper    *ZooKeeperSource // a live ensemble, read only
	DataDir      *DataDirSource   // ZooKeeper's own files, offline
	Kafka        *KafkaSource     // the brokers' admin protocol
	SnapshotFile string           // a saved snapshot
	// BrokerConfigs are brokers' server.properties files: their static
	// configs join the snapshot (replacing a saved copy of the same file),
	// and the password encoder secrets they hold are tried on encrypted
	// broker passwords.
	BrokerConfigs []string
	// EncoderSecret is a password.encoder.secret given on its own ("" none),
	// tried before those of BrokerConfigs. It is never stored.
	EncoderSecret string
	// Full also reads what only an audit needs: partition state, old
	// /consumers groups, the notification queues (zkread.Options.Full).
	Full bool
	// ReadProgress, when set, is called now and then with the number of
	// znodes read so far from a live ZooKeeper.
	ReadProgress func(znodes int)
	// Hooks: Progress announces a read through the admin protocol; Phase
	// marks the ends of a data directory's replay ("replay", "chroot").
	Hooks
}

// ZooKeeperSource is a live ZooKeeper ensemble, read only.
type ZooKeeperSource struct {
	Connect       string // "host:port[,host:port][/chroot]"
	Auth          string // "scheme:credentials" or "@FILE" (never echoed)
	TLSConfigFile string // Kafka-format ZooKeeper TLS config
	// Timeout bounds connecting and each answer; a read without one is
	// retried on a new connection for as long again. It must be positive.
	Timeout     time.Duration
	Connections int  // sessions to read over (0: zkconn's default)
	NoMultiRead bool // one znode per request even where multiRead is served
	Workers     int  // reads kept in flight (0: the connection's hint)
}

// The defaults a ZooKeeperSource's zero values stand for.
const (
	DefaultZKInFlightMulti    = zkconn.MultiInFlight
	DefaultZKInFlight         = zkread.DefaultWorkers
	DefaultZKConnectionsMulti = zkconn.DefaultMultiConnections
	DefaultZKConnections      = zkconn.DefaultConnections

	// MaxZKConnections and MaxZKInFlight bound what an operator may ask
	// for: a ZooKeeper ensemble serves a few thousand sessions in all, and
	// reads in flight past a few thousand queue in its request pipeline.
	MaxZKConnections = 64
	MaxZKInFlight    = 4096
)

// ConnOptions are the connection options of z (for sync's own sessions).
func (z *ZooKeeperSource) ConnOptions() (zkconn.Options, error) {
	if z.Timeout <= 0 {
		return zkconn.Options{}, &InputError{Input: InputZKTimeout, Value: z.Timeout.String(), Err: errors.New("want a positive duration")}
	}
	return zkconn.Options{Connect: z.Connect, Auth: z.Auth, TLSConfigFile: z.TLSConfigFile, ConnectTimeout: z.Timeout,
		RequestTimeout: z.Timeout, RetryTimeout: z.Timeout, Connections: z.Connections, NoMultiRead: z.NoMultiRead}, nil
}

// KafkaSource is a source read through its brokers' admin protocol.
type KafkaSource struct {
	Bootstrap     []string
	CommandConfig string // client.properties ("" PLAINTEXT)
}

// Dial connects to the source's brokers; the caller closes the connection.
func (k *KafkaSource) Dial(ctx context.Context) (*kafkaconn.Conn, error) {
	cfg := kafkaconn.Default()
	if k.CommandConfig != "" {
		var err error
		if cfg, err = kafkaconn.Load(k.CommandConfig); err != nil {
			return nil, &InputError{Input: InputSourceCommandConfig, Err: err}
		}
	}
	conn, err := kafkaconn.Dial(ctx, k.Bootstrap, cfg)
	if err != nil {
		return nil, fmt.Errorf("source %s: %w", strings.Join(k.Bootstrap, ","), err)
	}
	return conn, nil
}

// ReadKafka reads a source through its brokers' admin protocol: everything
// the protocol carries, and a finding for each item it does not
// (kread.Options.Source). h.Progress announces the read.
func ReadKafka(ctx context.Context, k *KafkaSource, h Hooks) (*snapshot.Snapshot, error) {
	conn, err := k.Dial(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	h.progress("Reading source %s ...", strings.Join(conn.Bootstrap, ","))
	return kread.Read(ctx, conn, kread.Options{Source: true})
}

// LoadSource reads the source r names, then puts in the brokers' static
// config files, and returns the snapshot, sorted, with its findings (bad
// znodes, damaged data directory files, what the admin protocol does not
// carry, an encoder secret with nothing to decrypt, ACLs kept in another
// ZooKeeper).
func LoadSource(ctx context.Context, r SourceRequest) (*snapshot.Snapshot, error) {
	st, err := LoadStatics(r)
	if err != nil {
		return nil, err
	}
	var s *snapshot.Snapshot
	switch {
	case r.Kafka != nil && r.ZooKeeper == nil:
		if s, err = ReadKafka(ctx, r.Kafka, r.Hooks); err != nil {
			return nil, err
		}
		if len(st.Secrets) > 0 {
			s.Findings = append(s.Findings, snapshot.Finding{ID: catalogue.IDEncoderSecretUnused, Severity: snapshot.SeverityInfo, Resource: "source " + s.Address,
				Message: "the admin protocol never returns broker passwords, so the password encoder secret has nothing to decrypt",
				Fix:     "read from --zookeeper to resolve encrypted broker passwords"})
		}
	case r.SnapshotFile != "":
		if s, err = snapshot.Load(r.SnapshotFile); err != nil {
			return nil, err
		}
		if len(st.Secrets) > 0 {
			s.Findings = append(s.Findings, snapshot.Finding{ID: catalogue.IDEncoderSecretUnused, Severity: snapshot.SeverityInfo, Resource: r.SnapshotFile,
				Message: "a snapshot file holds broker passwords by reference only, so the password encoder secret cannot decrypt them",
				Fix:     "read from --zookeeper to resolve encrypted broker passwords"})
		}
	case r.DataDir != nil:
		if s, err = readDataDir(ctx, r.DataDir, zkread.Options{Full: r.Full, EncoderSecrets: st.Secrets}, r.Hooks); err != nil {
			return nil, err
		}
	case r.ZooKeeper != nil:
		if s, err = readZooKeeper(ctx, r.ZooKeeper, zkread.Options{Full: r.Full, Workers: r.ZooKeeper.Workers, EncoderSecrets: st.Secrets,
			Progress: r.ReadProgress}); err != nil {
			return nil, err
		}
	default:
		return nil, errors.New("no source: give a ZooKeeper ensemble, its data directory, brokers or a snapshot file")
	}
	st.Apply(s)
	s.Sort()
	return s, nil
}

// readZooKeeper reads a live ensemble.
func readZooKeeper(ctx context.Context, z *ZooKeeperSource, opt zkread.Options) (*snapshot.Snapshot, error) {
	co, err := z.ConnOptions()
	if err != nil {
		return nil, err
	}
	conn, err := zkconn.Dial(ctx, co)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	opt.Address = conn.Address()
	s, err := zkread.Read(ctx, conn, opt)
	if errors.Is(err, zkread.ErrNotKafka) {
		return nil, &NoKafkaError{Where: "at " + conn.Address()}
	}
	return s, err
}

// Statics are the brokers' static config files of a source request and
// the password encoder secrets to try (the request's own first, then each
// file's, each once).
type Statics struct {
	files   []*zkread.Static
	Secrets []string
}

// LoadStatics reads r's BrokerConfigs and gathers its encoder secrets.
func LoadStatics(r SourceRequest) (*Statics, error) {
	st := &Statics{}
	if r.EncoderSecret != "" {
		st.Secrets = append(st.Secrets, r.EncoderSecret)
	}
	for _, file := range r.BrokerConfigs {
		f, err := zkread.ReadStatic(file)
		if err != nil {
			return nil, err
		}
		st.files = append(st.files, f)
		for _, sec := range f.EncoderSecrets {
			if !slices.Contains(st.Secrets, sec) {
				st.Secrets = append(st.Secrets, sec)
			}
		}
	}
	return st, nil
}

// Apply puts the static config files into s, replacing a saved copy of
// the same file; a file whose brokers keep their ACLs in another ZooKeeper
// (authorizer.zookeeper.url) adds a finding saying so.
func (st *Statics) Apply(s *snapshot.Snapshot) {
	for _, f := range st.files {
		replaced := false
		for i := range s.StaticConfigs {
			if s.StaticConfigs[i].File == f.Config.File {
				s.StaticConfigs[i], replaced = f.Config, true
			}
		}
		if !replaced {
			s.StaticConfigs = append(s.StaticConfigs, f.Config)
		}
		if f.AuthorizerZK != "" {
			s.Findings = append(s.Findings, snapshot.Finding{ID: catalogue.IDACLStoreElsewhere, Severity: snapshot.SeverityWarning, Resource: f.Config.File,
				Message: "authorizer.zookeeper.url is set: the brokers keep their ACLs in another ZooKeeper, not in this snapshot's",
				Fix:     "read that ZooKeeper too (--zookeeper " + f.AuthorizerZK + ") for the ACLs"})
		}
	}
}
