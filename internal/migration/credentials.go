package migration

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/zkmigrate/zkmigrate/internal/infile"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/secret"
)

// credentialFile is one entry of a SCRAM credentials file.
type credentialFile struct {
	User       string `json:"user"`
	Mechanism  string `json:"mechanism"`
	Password   string `json:"password"`
	Iterations int32  `json:"iterations"`
}

// LoadCredentials reads a SCRAM credentials file (ParseCredentials); ""
// reads none.
func LoadCredentials(path string) ([]plan.Credential, error) {
	if path == "" {
		return nil, nil
	}
	data, err := infile.ReadAll(path, infile.Credentials)
	if err == nil {
		err = infile.ExpectBytes(path, infile.Credentials, data)
	}
	if err != nil {
		return nil, err
	}
	creds, err := ParseCredentials(path, data)
	return creds, infile.Wrap(path, infile.Credentials, err)
}

// lineCol returns the 1-based line and column of byte offset off in data.
func lineCol(data []byte, off int64) (int, int) {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	if off < 0 {
		off = 0
	}
	before := data[:off]
	line := 1 + bytes.Count(before, []byte("\n"))
	return line, int(off) - bytes.LastIndexByte(before, '\n')
}

// ParseCredentials reads a SCRAM credentials JSON list of {user, mechanism,
// password, iterations}; path is used in
// errors, which name path:line of the entry and never a password. Two
// entries for the same user and mechanism must agree: different passwords
// or iterations are refused naming both entries; an exact repeat is
// accepted (it cannot be read two ways) and used once.
func ParseCredentials(path string, data []byte) ([]plan.Credential, error) {
	where := func(off int64) string {
		l, c := lineCol(data, off)
		return fmt.Sprintf("%s:%d:%d", path, l, c)
	}
	const notList = "not a JSON list of {user, mechanism, password, iterations}"
	// The whole file first: json.Unmarshal reports absolute offsets.
	var raw []json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		var se *json.SyntaxError
		off := int64(0)
		switch {
		case errors.As(err, &se):
			off = max(se.Offset-1, 0) // the offending byte
			if se.Offset >= int64(len(data)) {
				err = errors.New("unexpected end of file")
			}
		default:
			err = nil // not a list
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %v", where(off), notList, err)
		}
		return nil, fmt.Errorf("%s: %s", where(skipBlank(data, 0)), notList)
	}
	// Then each entry, with its position (the syntax is known good).
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.Token() // [
	type seen struct {
		pos  string
		n    int
		cred credentialFile
	}
	first := map[string]seen{} // user + mechanism -> first entry
	var out []plan.Credential
	for i := 1; dec.More(); i++ {
		pos := where(skipBlank(data, dec.InputOffset()))
		var entry json.RawMessage
		if err := dec.Decode(&entry); err != nil {
			return nil, fmt.Errorf("%s: %s: %v", pos, notList, err)
		}
		var c credentialFile
		if err := json.Unmarshal(entry, &c); err != nil {
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) && te.Field != "" {
				return nil, fmt.Errorf("%s: entry %d: %s has the wrong type (%s, want %s)", pos, i, te.Field, te.Value, te.Type)
			}
			return nil, fmt.Errorf("%s: entry %d: not a {user, mechanism, password, iterations} object", pos, i)
		}
		if c.User == "" || c.Password == "" {
			return nil, fmt.Errorf("%s: entry %d: user and password are required", pos, i)
		}
		if c.Mechanism == "" {
			c.Mechanism = "SCRAM-SHA-256"
		}
		if c.Mechanism != "SCRAM-SHA-256" && c.Mechanism != "SCRAM-SHA-512" {
			return nil, fmt.Errorf("%s: entry %d (%s): mechanism %q is not SCRAM-SHA-256 or SCRAM-SHA-512", pos, i, c.User, c.Mechanism)
		}
		if c.Iterations != 0 && (c.Iterations < 4096 || c.Iterations > 16384) {
			return nil, fmt.Errorf("%s: entry %d (%s): iterations %d outside Kafka's 4096..16384", pos, i, c.User, c.Iterations)
		}
		key := c.User + "\x00" + c.Mechanism
		if prev, ok := first[key]; ok {
			if prev.cred == c {
				continue // an exact repeat
			}
			what := "passwords"
			if prev.cred.Password == c.Password {
				what = "iterations"
			}
			return nil, fmt.Errorf("%s: entry %d and %s: entry %d are both user %s %s with different %s; keep one",
				prev.pos, prev.n, pos, i, c.User, c.Mechanism, what)
		}
		first[key] = seen{pos: pos, n: i, cred: c}
		ref := "scram-credentials:" + c.User + "/" + c.Mechanism
		out = append(out, plan.Credential{User: c.User, Mechanism: c.Mechanism, Iterations: c.Iterations, Password: secret.New(ref, c.Password)})
	}
	return out, nil
}

// skipBlank returns the offset of the first byte at or after off that is
// not a JSON separator (comma or whitespace).
func skipBlank(data []byte, off int64) int64 {
	for off < int64(len(data)) && bytes.IndexByte([]byte(", \t\r\n"), data[off]) >= 0 {
		off++
	}
	return off
}
