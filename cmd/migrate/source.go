package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/zkmigrate/zkmigrate/internal/cmdline"
	"github.com/zkmigrate/zkmigrate/internal/infile"
	"github.com/zkmigrate/zkmigrate/internal/migration"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// sourceFlags are the source flags every command shares: a live ZooKeeper
// ensemble, an offline ZooKeeper data directory, the brokers' admin protocol
// or a saved snapshot, plus the brokers' static config files and the
// password encoder secret.
type sourceFlags struct {
	zookeeper         string
	bootstrap         string // --source-bootstrap-server
	commandConfig     string // --source-command-config
	crossCheck        bool   // check: --zookeeper and --source-bootstrap-server together
	zkAuth            string
	zkTLSConfigFile   string
	brokerConfigs     cmdline.StringList
	encoderSecretFile string
	snapshotFile      string
	full              bool
	workers           int // 0 (not given): the default; a given value is 1 or more
	connections       int // 0 (not given): the default; a given value is 1 or more
	noMultiRead       bool
	zkTimeout         cmdline.PositiveDuration
	quiet             bool
	disk              zkDiskFlags
}

func (f *sourceFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.zookeeper, "zookeeper", "", "source ZooKeeper `host:port[,host:port][/chroot]` (read only; never written)")
	fs.StringVar(&f.zkAuth, "zk-auth", "", "ZooKeeper auth `scheme:credentials`, e.g. digest:user:password, or @FILE holding it")
	fs.StringVar(&f.zkTLSConfigFile, "zk-tls-config-file", "", "Kafka-format ZooKeeper TLS config `FILE` (zookeeper.ssl.* keys; JKS, PKCS12 or PEM stores)")
	fs.Var(&f.brokerConfigs, "broker-config", "a broker's server.properties `FILE` (repeatable); secrets in it are kept by reference")
	fs.StringVar(&f.encoderSecretFile, "password-encoder-secret-file", "", "`FILE` holding password.encoder.secret, to decrypt dynamic broker passwords in memory")
	f.disk.register(fs)
	fs.StringVar(&f.bootstrap, "source-bootstrap-server", "", "read the source through its brokers' admin protocol instead of ZooKeeper: `host:port[,host:port]` (any Kafka: 3.x ZooKeeper mode, 3.x/4.x KRaft; SCRAM keys, sensitive config values and pending deletions are not carried, each named in a finding)")
	fs.StringVar(&f.commandConfig, "source-command-config", "", "client.properties `FILE` for --source-bootstrap-server, in the format of --command-config")
	fs.StringVar(&f.snapshotFile, "snapshot", "", "read a saved snapshot `FILE` instead of ZooKeeper")
	fs.BoolVar(&f.full, "full", false, "full read for audits: also partition state, old /consumers groups, notification queues")
	cmdline.IntIn(fs, &f.workers, "zk-requests-in-flight", 0, 1, migration.MaxZKInFlight, fmt.Sprintf("`N` ZooKeeper reads kept in flight, spread over the sessions (default %d with multiRead, else %d)", migration.DefaultZKInFlightMulti, migration.DefaultZKInFlight))
	cmdline.IntIn(fs, &f.connections, "zk-connections", 0, 1, migration.MaxZKConnections, fmt.Sprintf("`N` ZooKeeper sessions to read over (default %d with multiRead, else %d)", migration.DefaultZKConnectionsMulti, migration.DefaultZKConnections))
	fs.BoolVar(&f.noMultiRead, "zk-no-multi-read", false, "read one znode per request even when the ensemble answers multiRead (ZooKeeper 3.6+), which carries many")
	f.zkTimeout = cmdline.PositiveDuration(15 * time.Second)
	fs.Var(&f.zkTimeout, "zk-timeout", "bound on connecting to ZooKeeper and on waiting for each answer; a read without one is retried on a new connection for as long again, so a ZooKeeper that stops answering ends the command (exit 1, host named) within twice this, plus about a second to close the session")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress on stderr (there is none either when stderr is not a terminal)")
}

// validate checks the source flags without reading anything, so that a
// usage error stops a command before its audit trail records a run.
func (f *sourceFlags) validate() error {
	var given []string
	for _, g := range []struct{ flag, value string }{{"--zookeeper", f.zookeeper}, {"--zk-data-dir", f.disk.dataDir},
		{"--source-bootstrap-server", f.bootstrap}, {"--snapshot", f.snapshotFile}} {
		if strings.TrimSpace(g.value) != "" {
			given = append(given, g.flag)
		}
	}
	cross := f.crossCheck && len(given) == 2 && f.zookeeper != "" && f.bootstrap != ""
	switch {
	case len(given) == 0:
		return errors.New("give the source: --zookeeper host:port[/chroot], --zk-data-dir DIR, --source-bootstrap-server host:port or --snapshot FILE")
	case cross:
		// check compares ZooKeeper with what the brokers serve.
	case len(given) > 1:
		return fmt.Errorf("give one source: %s are mutually exclusive", strings.Join(given, " and "))
	}
	if f.commandConfig != "" && f.bootstrap == "" {
		return errors.New("--source-command-config is for --source-bootstrap-server; give that too")
	}
	if f.bootstrap != "" && f.zookeeper == "" {
		for _, z := range []struct{ flag, value string }{{"--zk-auth", f.zkAuth}, {"--zk-tls-config-file", f.zkTLSConfigFile}} {
			if z.value != "" {
				return fmt.Errorf("%s is for --zookeeper; a source read through --source-bootstrap-server takes its credentials from --source-command-config", z.flag)
			}
		}
	}
	if err := f.disk.validate(); err != nil {
		return err
	}
	return f.where().Validate()
}

// given reports whether a source is named: live, ZooKeeper's data
// directory or a snapshot (apply --plan needs one).
func (f *sourceFlags) given() bool {
	return f.zookeeper != "" || f.disk.dataDir != "" || f.bootstrap != "" || f.snapshotFile != ""
}

// request maps the source flags to the request that reads the source,
// reading the password encoder secret file; progress (nil or io.Discard:
// none) gets the progress of the read.
func (f *sourceFlags) request(progress io.Writer) (migration.SourceRequest, error) {
	r := f.where()
	r.BrokerConfigs, r.Full, r.Hooks = f.brokerConfigs, f.full, hooks(progress)
	if f.encoderSecretFile != "" {
		b, err := infile.ReadAll(f.encoderSecretFile, infile.Secret)
		if err != nil {
			return r, fmt.Errorf("--password-encoder-secret-file: %w", err)
		}
		if r.EncoderSecret = strings.TrimRight(string(b), "\r\n"); r.EncoderSecret == "" {
			return r, infile.Wrap(f.encoderSecretFile, infile.Secret, fmt.Errorf("--password-encoder-secret-file %s is empty", f.encoderSecretFile))
		}
	}
	return r, nil
}

// where is the source the flags name, and nothing else.
func (f *sourceFlags) where() migration.SourceRequest {
	r := migration.SourceRequest{SnapshotFile: f.snapshotFile}
	if f.bootstrap != "" {
		r.Kafka = &migration.KafkaSource{Bootstrap: strings.Split(f.bootstrap, ","), CommandConfig: f.commandConfig}
	}
	if f.disk.set() {
		r.DataDir = &migration.DataDirSource{Dir: f.disk.dataDir, LogDir: f.disk.logDir, Chroot: f.disk.chroot, Zxid: f.disk.zxid, Time: f.disk.at}
	}
	if f.zookeeper != "" {
		r.ZooKeeper = &migration.ZooKeeperSource{Connect: f.zookeeper, Auth: f.zkAuth, TLSConfigFile: f.zkTLSConfigFile, Timeout: time.Duration(f.zkTimeout),
			Connections: f.connections, NoMultiRead: f.noMultiRead, Workers: f.workers}
	}
	return r
}

// load reads the source: ZooKeeper, its data directory, the brokers or
// the snapshot file, then the --broker-config files. Progress goes to
// progress (io.Discard or nil for none) while ZooKeeper is read.
func (f *sourceFlags) load(ctx context.Context, progress io.Writer) (*snapshot.Snapshot, error) {
	if err := f.validate(); err != nil {
		return nil, err
	}
	r, err := f.request(progress)
	if err != nil {
		return nil, err
	}
	p := zkMeter(progress)
	r.ReadProgress = p.Update
	s, err := migration.LoadSource(ctx, r)
	p.Clear()
	return s, err
}

// readKafka reads the source through its brokers' admin protocol alone
// (check's cross-check).
func (f *sourceFlags) readKafka(ctx context.Context, progress io.Writer) (*snapshot.Snapshot, error) {
	return migration.ReadKafka(ctx, f.where().Kafka, hooks(progress))
}
