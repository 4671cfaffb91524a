// Command zkgen writes a synthetic legacy ZooKeeper-mode Kafka cluster of a
// given size into a ZooKeeper (or a zktree JSON file), in Kafka's exact znode
// formats, deterministic from a seed. It is a test tool: it writes only to
// the ZooKeeper it is pointed at, which must be a test ensemble.
//
//	zkgen --zookeeper 127.0.0.1:21810/big --topics 50000 --partitions-per-topic 4 \
//	      --acls 100000 --quota-entities 10000 --scram-users 5000 --brokers 3 --seed 1
//	zkgen bench --zookeeper 127.0.0.1:21810 --size small
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/testkit/zkgen"
	"github.com/zkmigrate/zkmigrate/internal/zktree"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	args := os.Args[1:]
	if len(args) > 0 && args[0] == "bench" {
		os.Exit(runBench(ctx, args[1:], os.Stdout, os.Stderr))
	}
	if len(args) > 0 && args[0] == "delete" {
		os.Exit(runDelete(ctx, args[1:], os.Stderr))
	}
	os.Exit(run(ctx, args, os.Stdout, os.Stderr))
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("zkgen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: zkgen --zookeeper HOST:PORT[/chroot] | --out tree.json [sizes] [--seed N]")
		fmt.Fprintln(stderr, "       zkgen bench --zookeeper HOST:PORT [--size small|full] (see zkgen bench --help)")
		fmt.Fprintln(stderr, "       zkgen delete --zookeeper HOST:PORT/chroot (removes a generated tree)")
		fmt.Fprintln(stderr, "Writes a synthetic ZooKeeper-mode Kafka cluster (test ensembles only).")
		fs.PrintDefaults()
	}
	full := zkgen.Full(1)
	addr := fs.String("zookeeper", "", "test ZooKeeper to write into, host:port[,host:port][/chroot]")
	out := fs.String("out", "", "write the tree as zktree JSON to this file instead of a ZooKeeper")
	cfg := zkgen.Config{}
	fs.IntVar(&cfg.Topics, "topics", full.Topics, "topics")
	fs.IntVar(&cfg.PartitionsPerTopic, "partitions-per-topic", full.PartitionsPerTopic, "average partitions per topic")
	fs.IntVar(&cfg.ACLs, "acls", full.ACLs, "ACL entries")
	fs.IntVar(&cfg.QuotaEntities, "quota-entities", full.QuotaEntities, "quota entities (user, client-id, user+client-id, ip)")
	fs.IntVar(&cfg.ScramUsers, "scram-users", full.ScramUsers, "SCRAM users")
	fs.IntVar(&cfg.Brokers, "brokers", full.Brokers, "brokers (ids 1..N)")
	fs.Int64Var(&cfg.Seed, "seed", 1, "random seed; the same seed writes the same tree")
	secretFile := fs.String("password-encoder-secret-file", "", "file holding the password.encoder.secret for broker passwords (default: zkgen's fixed test secret)")
	writers := fs.Int("writers", 4, "parallel ZooKeeper connections")
	batch := fs.Int("batch", 500, "znodes per multi request")
	summaryJSON := fs.String("summary-json", "", "also write the summary as JSON to this file")
	quietFlag := fs.Bool("quiet", false, "no progress on stderr")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 1
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "zkgen: unexpected argument %q\n", fs.Arg(0))
		return 1
	}
	if (*addr == "") == (*out == "") {
		fmt.Fprintln(stderr, "zkgen: give exactly one of --zookeeper and --out")
		return 1
	}
	if *secretFile != "" {
		b, err := os.ReadFile(*secretFile)
		if err != nil {
			fmt.Fprintf(stderr, "zkgen: %v\n", err)
			return 1
		}
		cfg.EncoderSecret = string(trimNewline(b))
	}
	if err := cfg.Validate(); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	opt := zkgen.Options{Writers: *writers, Batch: *batch}
	if !*quietFlag {
		opt.Progress = progress(stderr)
	}
	start := time.Now()
	var sum zkgen.Summary
	var err error
	if *out != "" {
		tw := zkgen.NewTreeWriter()
		if sum, err = zkgen.Generate(ctx, cfg, tw, opt); err == nil {
			err = writeTree(*out, tw.Tree())
		}
	} else {
		sum, err = generateZK(ctx, *addr, cfg, opt)
	}
	elapsed := time.Since(start)
	if !*quietFlag {
		fmt.Fprintln(stderr)
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	printSummary(stdout, sum, elapsed)
	if *summaryJSON != "" {
		if err := sum.WriteJSON(*summaryJSON); err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
	}
	return 0
}

func generateZK(ctx context.Context, addr string, cfg zkgen.Config, opt zkgen.Options) (zkgen.Summary, error) {
	w, err := zkgen.DialZK(addr, opt.Writers, 15*time.Second)
	if err != nil {
		return zkgen.Summary{}, err
	}
	defer w.Close()
	if err := w.Prepare(); err != nil {
		return zkgen.Summary{}, err
	}
	return zkgen.Generate(ctx, cfg, w, opt)
}

func writeTree(file string, t *zktree.Tree) error {
	f, err := os.Create(file)
	if err != nil {
		return fmt.Errorf("zkgen: %w", err)
	}
	if err := zktree.Encode(f, t); err != nil {
		f.Close()
		return fmt.Errorf("zkgen: %s: %w", file, err)
	}
	return f.Close()
}

func trimNewline(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

// progress prints the running znode count at most every half second.
func progress(w io.Writer) func(int) {
	last := time.Now()
	ch := make(chan int, 64)
	go func() {
		for n := range ch {
			if time.Since(last) > 500*time.Millisecond {
				last = time.Now()
				fmt.Fprintf(w, "\rzkgen: %d znodes written", n)
			}
		}
	}()
	return func(n int) {
		select {
		case ch <- n:
		default:
		}
	}
}

func printSummary(w io.Writer, s zkgen.Summary, elapsed time.Duration) {
	rate := float64(s.Znodes) / elapsed.Seconds()
	fmt.Fprintf(w, "wrote %d znodes in %s (%.0f znodes/s), seed %d\n", s.Znodes, elapsed.Round(time.Millisecond), rate, s.Seed)
	fmt.Fprintf(w, "  brokers           %d (broker configs %d, encrypted passwords %d)\n", s.Brokers, s.BrokerConfigs, s.BrokerPasswords)
	fmt.Fprintf(w, "  topics            %d (internal %d, without topic_id %d, pending deletes %d, reassigning %d)\n",
		s.Topics, s.InternalTopics, s.TopicsWithoutID, s.PendingDeletes, s.Reassigning)
	fmt.Fprintf(w, "  partitions        %d (reassigning %d)\n", s.Partitions, s.ReassigningParts)
	fmt.Fprintf(w, "  topic configs     %d (with overrides %d, keys removed in 4.0 %d)\n", s.TopicConfigs, s.TopicConfigsNonEmpty, s.TopicRemovedKeys)
	fmt.Fprintf(w, "  acl entries       %d in %d resources (%d prefixed; %d deny entries)\n", s.ACLEntries, s.ACLResources, s.ACLPrefixedResources, s.ACLDenyEntries)
	q := s.Quotas
	fmt.Fprintf(w, "  quota entities    %d (user %d, client %d, user+client %d, ip %d; involving <default> %d)\n",
		q.Total(), q.User, q.Client, q.UserClient, q.IP, q.Defaults)
	fmt.Fprintf(w, "  scram users       %d (%d credentials)\n", s.ScramUsers, s.ScramCredentials)
	fmt.Fprintf(w, "  other             %d delegation tokens, %d config change notifications\n", s.DelegationTokens, s.ConfigChanges)
}

// runDelete removes a generated tree: the chroot and everything below it.
func runDelete(ctx context.Context, args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("zkgen delete", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("zookeeper", "", "test ZooKeeper and the chroot to remove, host:port/chroot")
	writers := fs.Int("writers", 4, "parallel connections")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 1
	}
	w, err := zkgen.DialZK(*addr, *writers, 15*time.Second)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	defer w.Close()
	if w.Chroot() == "" {
		fmt.Fprintln(stderr, "zkgen delete: --zookeeper must name a chroot (host:port/chroot)")
		return 1
	}
	start := time.Now()
	if err := zkgen.Delete(ctx, w.Conns(), w.Chroot(), 500); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	fmt.Fprintf(stderr, "zkgen: deleted %s in %s\n", *addr, time.Since(start).Round(time.Millisecond))
	return 0
}
