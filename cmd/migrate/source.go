package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/zkmigrate/zkmigrate/internal/catalogue"
	"github.com/zkmigrate/zkmigrate/internal/kafkaconn"
	"github.com/zkmigrate/zkmigrate/internal/kread"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/zkconn"
	"github.com/zkmigrate/zkmigrate/internal/zkread"
)

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }
func (l *stringList) Type() string       { return "stringList" }

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
	brokerConfigs     stringList
	encoderSecretFile string
	snapshotFile      string
	full              bool
	workers           int
	connections       int
	noMultiRead       bool
	zkTimeout         time.Duration
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
	fs.IntVar(&f.workers, "zk-requests-in-flight", 0, fmt.Sprintf("`N` ZooKeeper reads kept in flight, spread over the sessions (default %d with multiRead, else %d)", zkconn.MultiInFlight, zkread.DefaultWorkers))
	fs.IntVar(&f.connections, "zk-connections", 0, fmt.Sprintf("`N` ZooKeeper sessions to read over (default %d with multiRead, else %d)", zkconn.DefaultMultiConnections, zkconn.DefaultConnections))
	fs.BoolVar(&f.noMultiRead, "zk-no-multi-read", false, "read one znode per request even when the ensemble answers multiRead (ZooKeeper 3.6+), which carries many")
	fs.DurationVar(&f.zkTimeout, "zk-timeout", 15*time.Second, "bound on connecting to ZooKeeper and on waiting for each answer; a read without one is retried on a new connection for as long again, so a ZooKeeper that stops answering ends the command (exit 1, host named) within twice this, plus about a second to close the session")
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
	return f.disk.validate()
}

// given reports whether a live source or a snapshot is named (apply --plan
// needs one).
func (f *sourceFlags) given() bool {
	return f.zookeeper != "" || f.bootstrap != "" || f.snapshotFile != ""
}

// dialKafka connects to the source's brokers (--source-bootstrap-server).
func (f *sourceFlags) dialKafka(ctx context.Context) (*kafkaconn.Conn, error) {
	cfg := kafkaconn.Default()
	if f.commandConfig != "" {
		var err error
		if cfg, err = kafkaconn.Load(f.commandConfig); err != nil {
			return nil, fmt.Errorf("--source-command-config: %w", err)
		}
	}
	conn, err := kafkaconn.Dial(ctx, strings.Split(f.bootstrap, ","), cfg)
	if err != nil {
		return nil, fmt.Errorf("source %s: %w", f.bootstrap, err)
	}
	return conn, nil
}

// readKafka reads the source through its brokers' admin protocol.
func (f *sourceFlags) readKafka(ctx context.Context, progress io.Writer) (*snapshot.Snapshot, error) {
	conn, err := f.dialKafka(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	if progress != nil {
		fmt.Fprintf(progress, "Reading source %s ...\n", strings.Join(conn.Bootstrap, ","))
	}
	return kread.Read(ctx, conn, kread.Options{Source: true})
}

// load reads the source: ZooKeeper or the snapshot file, then the
// --broker-config files. Progress goes to progress (io.Discard or nil for
// none) while ZooKeeper is read.
func (f *sourceFlags) load(ctx context.Context, progress io.Writer) (*snapshot.Snapshot, error) {
	if err := f.validate(); err != nil {
		return nil, err
	}
	statics, secrets, err := f.staticsAndSecrets()
	if err != nil {
		return nil, err
	}

	var s *snapshot.Snapshot
	if f.bootstrap != "" && f.zookeeper == "" {
		if s, err = f.readKafka(ctx, progress); err != nil {
			return nil, err
		}
		if len(secrets) > 0 {
			s.Findings = append(s.Findings, snapshot.Finding{ID: catalogue.IDEncoderSecretUnused, Severity: snapshot.SeverityInfo, Resource: "source " + s.Address,
				Message: "the admin protocol never returns broker passwords, so the password encoder secret has nothing to decrypt",
				Fix:     "read from --zookeeper to resolve encrypted broker passwords"})
		}
	} else if f.snapshotFile != "" {
		if s, err = snapshot.Load(f.snapshotFile); err != nil {
			return nil, err
		}
		if len(secrets) > 0 {
			s.Findings = append(s.Findings, snapshot.Finding{ID: catalogue.IDEncoderSecretUnused, Severity: snapshot.SeverityInfo, Resource: f.snapshotFile,
				Message: "a snapshot file holds broker passwords by reference only, so the password encoder secret cannot decrypt them",
				Fix:     "read from --zookeeper to resolve encrypted broker passwords"})
		}
	} else if f.disk.set() {
		if s, err = f.disk.read(ctx, zkread.Options{Full: f.full, EncoderSecrets: secrets}); err != nil {
			return nil, err
		}
	} else {
		opt, err := f.zkOptions()
		if err != nil {
			return nil, err
		}
		conn, err := zkconn.Dial(ctx, opt)
		if err != nil {
			return nil, err
		}
		defer conn.Close()
		p := zkMeter(progress)
		s, err = zkread.Read(ctx, conn, zkread.Options{Full: f.full, Workers: f.workers, EncoderSecrets: secrets,
			Address: conn.Address(), Progress: p.update})
		p.clear()
		if err != nil {
			if errors.Is(err, zkread.ErrNotKafka) {
				return nil, fmt.Errorf("no Kafka metadata at %s (no /brokers, /config or /cluster/id); wrong chroot?", conn.Address())
			}
			return nil, err
		}
	}
	applyStatic(s, statics)
	s.Sort()
	return s, nil
}

// staticsAndSecrets reads the --broker-config files and the password
// encoder secrets (--password-encoder-secret-file, then each file's own).
func (f *sourceFlags) staticsAndSecrets() ([]*zkread.Static, []string, error) {
	var statics []*zkread.Static
	var secrets []string
	if f.encoderSecretFile != "" {
		b, err := os.ReadFile(f.encoderSecretFile)
		if err != nil {
			return nil, nil, fmt.Errorf("--password-encoder-secret-file: %w", err)
		}
		s := strings.TrimRight(string(b), "\r\n")
		if s == "" {
			return nil, nil, fmt.Errorf("--password-encoder-secret-file %s is empty", f.encoderSecretFile)
		}
		secrets = append(secrets, s)
	}
	for _, file := range f.brokerConfigs {
		st, err := zkread.ReadStatic(file)
		if err != nil {
			return nil, nil, err
		}
		statics = append(statics, st)
		secrets = append(secrets, st.EncoderSecrets...)
	}
	return statics, dedupe(secrets), nil
}

// zkOptions are the connection options the ZooKeeper flags give.
func (f *sourceFlags) zkOptions() (zkconn.Options, error) {
	if f.zkTimeout <= 0 {
		return zkconn.Options{}, fmt.Errorf("--zk-timeout %s: want a positive duration", f.zkTimeout)
	}
	return zkconn.Options{Connect: f.zookeeper, Auth: f.zkAuth, TLSConfigFile: f.zkTLSConfigFile, ConnectTimeout: f.zkTimeout,
		RequestTimeout: f.zkTimeout, RetryTimeout: f.zkTimeout, Connections: f.connections, NoMultiRead: f.noMultiRead}, nil
}

// applyStatic puts the --broker-config files into the snapshot, replacing a
// saved copy of the same file.
func applyStatic(s *snapshot.Snapshot, statics []*zkread.Static) {
	for _, st := range statics {
		replaced := false
		for i := range s.StaticConfigs {
			if s.StaticConfigs[i].File == st.Config.File {
				s.StaticConfigs[i], replaced = st.Config, true
			}
		}
		if !replaced {
			s.StaticConfigs = append(s.StaticConfigs, st.Config)
		}
		if st.AuthorizerZK != "" {
			s.Findings = append(s.Findings, snapshot.Finding{ID: catalogue.IDACLStoreElsewhere, Severity: snapshot.SeverityWarning, Resource: st.Config.File,
				Message: "authorizer.zookeeper.url is set: the brokers keep their ACLs in another ZooKeeper, not in this snapshot's",
				Fix:     "read that ZooKeeper too (--zookeeper " + st.AuthorizerZK + ") for the ACLs"})
		}
	}
}

func dedupe(ss []string) []string {
	var out []string
	for _, s := range ss {
		if !contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
