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
// ensemble, an offline ZooKeeper data directory or a saved snapshot, plus the brokers' static config files and
// the password encoder secret.
type sourceFlags struct {
	zookeeper         string
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
	switch {
	case f.zookeeper == "" && f.snapshotFile == "" && !f.disk.set():
		return errors.New("give the source: --zookeeper host:port[/chroot], --zk-data-dir DIR or --snapshot FILE")
	case f.zookeeper != "" && f.snapshotFile != "":
		return errors.New("give --zookeeper or --snapshot, not both")
	case f.disk.set() && (f.zookeeper != "" || f.snapshotFile != ""):
		return errors.New("give --zk-data-dir, --zookeeper or --snapshot: one source, not several")
	}
	return f.disk.validate()
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
	if f.snapshotFile != "" {
		if s, err = snapshot.Load(f.snapshotFile); err != nil {
			return nil, err
		}
		if len(secrets) > 0 {
			s.Findings = append(s.Findings, snapshot.Finding{ID: "encoder-secret-unused", Severity: snapshot.SeverityInfo, Resource: f.snapshotFile,
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
			s.Findings = append(s.Findings, snapshot.Finding{ID: "acl-store-elsewhere", Severity: snapshot.SeverityWarning, Resource: st.Config.File,
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
