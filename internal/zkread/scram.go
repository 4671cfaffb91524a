package zkread

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ScramMechanisms are the SCRAM config keys in /config/users/<user>.
var ScramMechanisms = []string{"SCRAM-SHA-256", "SCRAM-SHA-512"}

func isScramMechanism(k string) bool { return k == "SCRAM-SHA-256" || k == "SCRAM-SHA-512" }

// ScramCredential is a parsed SCRAM credential. The keys are secret and only
// ever live in memory.
type ScramCredential struct {
	Salt, StoredKey, ServerKey []byte
	Iterations                 int32
}

// ParseScramCredential parses "salt=..,stored_key=..,server_key=..,iterations=.."
// as ScramCredentialUtils.credentialFromString does: exactly these four keys
// in any order, each pair split at its first '='. Errors never contain the
// value.
func ParseScramCredential(s string) (ScramCredential, error) {
	var c ScramCredential
	m := map[string]string{}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return c, errors.New("zkread: SCRAM credential: a pair without '='")
		}
		m[k] = v
	}
	if len(m) != 4 {
		return c, fmt.Errorf("zkread: SCRAM credential: %d keys, want salt, stored_key, server_key, iterations", len(m))
	}
	var err error
	for _, f := range []struct {
		key string
		dst *[]byte
	}{{"salt", &c.Salt}, {"stored_key", &c.StoredKey}, {"server_key", &c.ServerKey}} {
		v, ok := m[f.key]
		if !ok {
			return c, fmt.Errorf("zkread: SCRAM credential: no %s", f.key)
		}
		if *f.dst, err = base64.StdEncoding.DecodeString(v); err != nil {
			return c, fmt.Errorf("zkread: SCRAM credential: %s is not base64", f.key)
		}
	}
	it, ok := m["iterations"]
	if !ok {
		return c, errors.New("zkread: SCRAM credential: no iterations")
	}
	n, err := strconv.ParseInt(it, 10, 32)
	if err != nil || n <= 0 {
		return c, errors.New("zkread: SCRAM credential: iterations is not a positive integer")
	}
	c.Iterations = int32(n)
	return c, nil
}
