package migration

import (
	"errors"
	"fmt"
	"os"

	"github.com/zkmigrate/zkmigrate/internal/infile"
	"github.com/zkmigrate/zkmigrate/internal/zkconn"
)

// The inputs Validate blames, beside those in input.go.
const (
	InputZKConnect       Input = "ZooKeeper connect string"
	InputZKConnections   Input = "ZooKeeper connections"
	InputZKInFlight      Input = "ZooKeeper reads in flight"
	InputZKDataLogDir    Input = "ZooKeeper data log directory"
	InputZKTime          Input = "time"
	InputCommandConfig   Input = "command config"
	InputZKTLSConfigFile Input = "ZooKeeper TLS config file"
)

// Validate checks what r names without reading a source: the connect
// string, the bounds of a live read, that a data directory (and its log
// directory) is a directory, that a command config is a file the reader
// would open. Each error is an *InputError naming the input, so that a
// command refuses a bad flag as a usage error, before its audit trail
// records a run; LoadSource checks the same again as it reads.
func (r SourceRequest) Validate() error {
	if z := r.ZooKeeper; z != nil {
		if _, _, err := zkconn.ParseConnectString(z.Connect); err != nil {
			return &InputError{Input: InputZKConnect, Err: errors.New(trimPrefix(err))}
		}
		if z.Timeout <= 0 {
			return &InputError{Input: InputZKTimeout, Value: z.Timeout.String(), Err: errors.New("want a positive duration")}
		}
		if z.Connections < 0 {
			return &InputError{Input: InputZKConnections, Value: fmt.Sprint(z.Connections), Err: errors.New("want a positive number")}
		}
		if z.Workers < 0 {
			return &InputError{Input: InputZKInFlight, Value: fmt.Sprint(z.Workers), Err: errors.New("want a positive number")}
		}
		if z.TLSConfigFile != "" {
			if err := infile.Check(z.TLSConfigFile, infile.Properties); err != nil {
				return &InputError{Input: InputZKTLSConfigFile, Err: err}
			}
		}
	}
	if d := r.DataDir; d != nil {
		if err := checkDir(d.Dir); err != nil {
			return &InputError{Input: InputZKDataDir, Err: err}
		}
		if d.LogDir != "" {
			if err := checkDir(d.LogDir); err != nil {
				return &InputError{Input: InputZKDataLogDir, Err: err}
			}
		}
	}
	if k := r.Kafka; k != nil && k.CommandConfig != "" {
		if err := infile.Check(k.CommandConfig, infile.Properties); err != nil {
			return &InputError{Input: InputSourceCommandConfig, Err: err}
		}
	}
	return nil
}

// Validate checks what t names without connecting: its command config is
// a file the reader would open.
func (t *KafkaTarget) Validate() error {
	if t.CommandConfig != "" {
		if err := infile.Check(t.CommandConfig, infile.Properties); err != nil {
			return &InputError{Input: InputCommandConfig, Err: err}
		}
	}
	return nil
}

// checkDir refuses a path that is not a directory: "/x: no such file or
// directory", "/x: not a directory".
func checkDir(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			return fmt.Errorf("%s: %v", dir, pe.Err)
		}
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s: not a directory", dir)
	}
	return nil
}

// trimPrefix drops a package's "zkconn: " from its error.
func trimPrefix(err error) string {
	s := err.Error()
	if len(s) > 8 && s[:8] == "zkconn: " {
		return s[8:]
	}
	return s
}
