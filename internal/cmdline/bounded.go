package cmdline

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/spf13/pflag"
)

// IntIn registers an int flag whose value must lie in [min, max]: a value
// outside is refused when the command line is parsed, as a bad value
// (`--brokers "0": want 1 to 32`), before the command runs, so no command
// ever sees a count it cannot use (a negative size, a slice index of -1,
// a million connections).
func IntIn(fs *pflag.FlagSet, p *int, name string, value, min, max int, usage string) {
	*p = value
	fs.Var(&boundedInt{p: p, min: min, max: max}, name, usage)
}

// IntAtLeast registers an int flag whose value must be min or more (IntIn
// without an upper bound).
func IntAtLeast(fs *pflag.FlagSet, p *int, name string, value, min int, usage string) {
	IntIn(fs, p, name, value, min, math.MaxInt, usage)
}

type boundedInt struct {
	p        *int
	min, max int
}

func (b *boundedInt) String() string { return strconv.Itoa(*b.p) }
func (b *boundedInt) Type() string   { return "int" }

func (b *boundedInt) Set(s string) error {
	v, err := strconv.ParseInt(s, 0, strconv.IntSize)
	if err != nil {
		return errors.New("must be an integer")
	}
	if int(v) < b.min || int(v) > b.max {
		switch {
		case b.max < math.MaxInt:
			return fmt.Errorf("want %d to %d", b.min, b.max)
		case b.min == 0:
			return errors.New("want 0 or more")
		}
		return fmt.Errorf("want at least %d", b.min)
	}
	*b.p = int(v)
	return nil
}

// Carry returns the arguments that give another command the values the
// named flags of fs were given on this command line, in the order named
// (a repeated flag once per value; a bool as --name, or --name=false):
// what a printed hint repeats so that it works when pasted. Flags not
// given, or fs lacks, are left out.
func Carry(fs *pflag.FlagSet, names ...string) []string {
	var out []string
	for _, n := range names {
		f := fs.Lookup(n)
		if f == nil || !f.Changed {
			continue
		}
		switch v := f.Value.(type) {
		case *StringList:
			for _, s := range *v {
				out = append(out, "--"+n, s)
			}
			continue
		}
		if f.Value.Type() == "bool" {
			if f.Value.String() == "true" {
				out = append(out, "--"+n)
			} else {
				out = append(out, "--"+n+"=false")
			}
			continue
		}
		out = append(out, "--"+n, f.Value.String())
	}
	return out
}
