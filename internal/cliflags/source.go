package cliflags

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/zkmigrate/zkmigrate/internal/cmdline"
	"github.com/zkmigrate/zkmigrate/internal/infile"
	"github.com/zkmigrate/zkmigrate/internal/migration"
)

// Source are the source flags every command shares: a live ZooKeeper
// ensemble, an offline ZooKeeper data directory, the brokers' admin protocol
// or a saved snapshot, plus the brokers' static config files and the
// password encoder secret.
type Source struct {
	ZooKeeper         string
	Bootstrap         string // --source-bootstrap-server
	CommandConfig     string // --source-command-config
	CrossCheck        bool   // check: --zookeeper and --source-bootstrap-server together
	ZKAuth            string
	ZKTLSConfigFile   string
	BrokerConfigs     cmdline.StringList
	EncoderSecretFile string
	SnapshotFile      string
	Full              bool
	Workers           int // 0 (not given): the default; a given value is 1 or more
	Connections       int // 0 (not given): the default; a given value is 1 or more
	NoMultiRead       bool
	ZKTimeout         cmdline.PositiveDuration
	Quiet             bool
	Disk              ZKDataDir
}

func (f *Source) Register(fs *pflag.FlagSet) {
	fs.StringVar(&f.ZooKeeper, "zookeeper", "", "source ZooKeeper `host:port[,host:port][/chroot]` (read only; never written)")
	fs.StringVar(&f.ZKAuth, "zk-auth", "", "ZooKeeper auth `scheme:credentials`, e.g. digest:user:password, or @FILE holding it")
	fs.StringVar(&f.ZKTLSConfigFile, "zk-tls-config-file", "", "Kafka-format ZooKeeper TLS config `FILE` (zookeeper.ssl.* keys; JKS, PKCS12 or PEM stores)")
	fs.Var(&f.BrokerConfigs, "broker-config", "a broker's server.properties `FILE` (repeatable); secrets in it are kept by reference")
	fs.StringVar(&f.EncoderSecretFile, "password-encoder-secret-file", "", "`FILE` holding password.encoder.secret, to decrypt dynamic broker passwords in memory")
	f.Disk.Register(fs)
	fs.StringVar(&f.Bootstrap, "source-bootstrap-server", "", "read the source through its brokers' admin protocol instead of ZooKeeper: `host:port[,host:port]` (any Kafka: 3.x ZooKeeper mode, 3.x/4.x KRaft; SCRAM keys, sensitive config values and pending deletions are not carried, each named in a finding)")
	fs.StringVar(&f.CommandConfig, "source-command-config", "", "client.properties `FILE` for --source-bootstrap-server, in the format of --command-config")
	fs.StringVar(&f.SnapshotFile, "snapshot", "", "read a saved snapshot `FILE` instead of ZooKeeper")
	fs.BoolVar(&f.Full, "full", false, "full read for audits: also partition state, old /consumers groups, notification queues")
	cmdline.IntIn(fs, &f.Workers, "zk-requests-in-flight", 0, 1, migration.MaxZKInFlight, fmt.Sprintf("`N` ZooKeeper reads kept in flight, spread over the sessions (default %d with multiRead, else %d)", migration.DefaultZKInFlightMulti, migration.DefaultZKInFlight))
	cmdline.IntIn(fs, &f.Connections, "zk-connections", 0, 1, migration.MaxZKConnections, fmt.Sprintf("`N` ZooKeeper sessions to read over (default %d with multiRead, else %d)", migration.DefaultZKConnectionsMulti, migration.DefaultZKConnections))
	fs.BoolVar(&f.NoMultiRead, "zk-no-multi-read", false, "read one znode per request even when the ensemble answers multiRead (ZooKeeper 3.6+), which carries many")
	f.ZKTimeout = cmdline.PositiveDuration(15 * time.Second)
	fs.Var(&f.ZKTimeout, "zk-timeout", "bound on connecting to ZooKeeper and on waiting for each answer; a read without one is retried on a new connection for as long again, so a ZooKeeper that stops answering ends the command (exit 1, host named) within twice this, plus about a second to close the session")
	fs.BoolVar(&f.Quiet, "quiet", false, "no progress on stderr\n(there is none either when stderr is not a terminal)")
}

// Validate checks the source flags without reading anything, so that a
// usage error stops a command before its audit trail records a run.
func (f *Source) Validate() error {
	var given []string
	for _, g := range []struct{ flag, value string }{{"--zookeeper", f.ZooKeeper}, {"--zk-data-dir", f.Disk.DataDir},
		{"--source-bootstrap-server", f.Bootstrap}, {"--snapshot", f.SnapshotFile}} {
		if strings.TrimSpace(g.value) != "" {
			given = append(given, g.flag)
		}
	}
	cross := f.CrossCheck && len(given) == 2 && f.ZooKeeper != "" && f.Bootstrap != ""
	switch {
	case len(given) == 0:
		return errors.New("give the source: --zookeeper host:port[/chroot], --zk-data-dir DIR, --source-bootstrap-server host:port or --snapshot FILE")
	case cross:
		// check compares ZooKeeper with what the brokers serve.
	case len(given) > 1:
		return fmt.Errorf("give one source: %s are mutually exclusive", strings.Join(given, " and "))
	}
	if f.CommandConfig != "" && f.Bootstrap == "" {
		return errors.New("--source-command-config is for --source-bootstrap-server; give that too")
	}
	if f.Bootstrap != "" && f.ZooKeeper == "" {
		for _, z := range []struct{ flag, value string }{{"--zk-auth", f.ZKAuth}, {"--zk-tls-config-file", f.ZKTLSConfigFile}} {
			if z.value != "" {
				return fmt.Errorf("%s is for --zookeeper; a source read through --source-bootstrap-server takes its credentials from --source-command-config", z.flag)
			}
		}
	}
	if err := f.Disk.Validate(); err != nil {
		return err
	}
	return f.Where().Validate()
}

// Given reports whether a source is named: live, ZooKeeper's data
// directory or a snapshot (apply --plan needs one).
func (f *Source) Given() bool {
	return f.ZooKeeper != "" || f.Disk.DataDir != "" || f.Bootstrap != "" || f.SnapshotFile != ""
}

// Request maps the source flags to the Request that reads the source,
// reading the password encoder secret file; h gets the progress of the
// read.
func (f *Source) Request(h migration.Hooks) (migration.SourceRequest, error) {
	r := f.Where()
	r.BrokerConfigs, r.Full, r.Hooks = f.BrokerConfigs, f.Full, h
	if f.EncoderSecretFile != "" {
		b, err := infile.ReadAll(f.EncoderSecretFile, infile.Secret)
		if err != nil {
			return r, fmt.Errorf("--password-encoder-secret-file: %w", err)
		}
		if r.EncoderSecret = strings.TrimRight(string(b), "\r\n"); r.EncoderSecret == "" {
			return r, infile.Wrap(f.EncoderSecretFile, infile.Secret, fmt.Errorf("--password-encoder-secret-file %s is empty", f.EncoderSecretFile))
		}
	}
	return r, nil
}

// Where is the source the flags name, and nothing else.
func (f *Source) Where() migration.SourceRequest {
	r := migration.SourceRequest{SnapshotFile: f.SnapshotFile}
	if f.Bootstrap != "" {
		r.Kafka = &migration.KafkaSource{Bootstrap: strings.Split(f.Bootstrap, ","), CommandConfig: f.CommandConfig}
	}
	if f.Disk.Given() {
		r.DataDir = &migration.DataDirSource{Dir: f.Disk.DataDir, LogDir: f.Disk.LogDir, Chroot: f.Disk.Chroot, Zxid: f.Disk.zxid, Time: f.Disk.at}
	}
	if f.ZooKeeper != "" {
		r.ZooKeeper = &migration.ZooKeeperSource{Connect: f.ZooKeeper, Auth: f.ZKAuth, TLSConfigFile: f.ZKTLSConfigFile, Timeout: time.Duration(f.ZKTimeout),
			Connections: f.Connections, NoMultiRead: f.NoMultiRead, Workers: f.Workers}
	}
	return r
}
