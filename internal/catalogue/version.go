package catalogue

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Version is a Kafka release line, major.minor; the facts of this package
// change only between release lines.
type Version struct{ Major, Minor int }

// Release lines the tables name.
var (
	V3_0 = Version{3, 0}
	V4_0 = Version{4, 0}
	V4_1 = Version{4, 1}
)

// DefaultTarget is the Kafka version a move goes to when none is given.
var DefaultTarget = V4_1

func (v Version) String() string { return fmt.Sprintf("%d.%d", v.Major, v.Minor) }

// AtLeast reports whether v is o or later.
func (v Version) AtLeast(o Version) bool {
	return v.Major > o.Major || (v.Major == o.Major && v.Minor >= o.Minor)
}

// ParseVersion parses "4.1" or "4.1.1" (the patch is ignored).
func ParseVersion(s string) (Version, error) {
	parts := strings.Split(s, ".")
	if len(parts) < 2 || len(parts) > 3 {
		return Version{}, fmt.Errorf("version %q: want major.minor, e.g. 4.1", s)
	}
	var n [3]int
	for i, p := range parts {
		x, err := strconv.Atoi(p)
		if err != nil || x < 0 {
			return Version{}, fmt.Errorf("version %q: want major.minor, e.g. 4.1", s)
		}
		n[i] = x
	}
	return Version{n[0], n[1]}, nil
}

// TargetOrDefault parses a target version, DefaultTarget when s is empty
// or not a version (callers that must reject a bad value parse it first).
func TargetOrDefault(s string) Version {
	if v, err := ParseVersion(s); err == nil {
		return v
	}
	return DefaultTarget
}

// ParseTarget parses a target version as an operator gives it
// (--target-version of plan, apply, sync and check alike): a Kafka 4.x
// release line, "4.1" or "4.1.1". An empty value is refused (a flag set to
// "" names no version); callers with a default apply it before. The
// error says what is wrong, not which input: callers name it.
func ParseTarget(s string) (Version, error) {
	if strings.TrimSpace(s) == "" {
		return Version{}, fmt.Errorf("want a Kafka 4.x version such as %s", DefaultTarget)
	}
	v, err := ParseVersion(s)
	if err != nil {
		return Version{}, fmt.Errorf("want a Kafka 4.x version such as %s", DefaultTarget)
	}
	if v.Major != 4 {
		return Version{}, errors.New("only Kafka 4.x targets are known")
	}
	return v, nil
}
