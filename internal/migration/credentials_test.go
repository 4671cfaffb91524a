package migration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseCredentials(t *testing.T) {
	tests := []struct {
		name, in string
		users    int    // credentials read
		err      string // substring of the error ("" = none)
		notIn    string // must not appear in the error
	}{
		{name: "one", in: `[{"user":"alice","password":"pw1"}]`, users: 1},
		{name: "two mechanisms", in: `[{"user":"alice","password":"pw1"},{"user":"alice","mechanism":"SCRAM-SHA-512","password":"pw2"}]`, users: 2},
		{name: "exact repeat is used once", in: "[\n  {\"user\":\"alice\",\"password\":\"pw1\"},\n  {\"user\":\"alice\",\"mechanism\":\"SCRAM-SHA-256\",\"password\":\"pw1\"}\n]", users: 1},
		{name: "different passwords", in: "[\n  {\"user\":\"alice\",\"password\":\"pw1\"},\n  {\"user\":\"bob\",\"password\":\"pw3\"},\n  {\"user\":\"alice\",\"mechanism\":\"SCRAM-SHA-256\",\"password\":\"pw2\"}\n]",
			err: "creds.json:2:3: entry 1 and creds.json:4:3: entry 3 are both user alice SCRAM-SHA-256 with different passwords", notIn: "pw"},
		{name: "different iterations", in: `[{"user":"alice","password":"pw1","iterations":4096},{"user":"alice","password":"pw1","iterations":8192}]`,
			err: "creds.json:1:2: entry 1 and creds.json:1:54: entry 2 are both user alice SCRAM-SHA-256 with different iterations", notIn: "pw1"},
		{name: "missing password", in: "[\n{\"user\":\"alice\"}]", err: "creds.json:2:1: entry 1: user and password are required"},
		{name: "bad mechanism", in: `[{"user":"alice","password":"pw1","mechanism":"MD5"}]`, err: `creds.json:1:2: entry 1 (alice): mechanism "MD5"`, notIn: "pw1"},
		{name: "bad iterations", in: `[{"user":"alice","password":"pw1","iterations":10}]`, err: "iterations 10 outside", notIn: "pw1"},
		{name: "not a list", in: `{"user":"alice"}`, err: "creds.json:1:1: not a JSON list"},
		{name: "not objects", in: "[\n 1]", err: "creds.json:2:2: entry 1: not a {user"},
		{name: "syntax", in: "[\n{\"user\":\"alice\",,}]", err: "creds.json:2:17: not a JSON list"},
		{name: "wrong type", in: "[\n{\"user\":7,\"password\":\"pw1\"}]", err: "creds.json:2:1: entry 1: user has the wrong type (number, want string)", notIn: "pw1"},
		{name: "truncated", in: `[{"user":"alice","password":"pw1"}`, err: "unexpected end of file", notIn: "pw1"},
		{name: "trailing data", in: `[] []`, err: "creds.json:1:4: not a JSON list of {user, mechanism, password, iterations}: invalid character '[' after top-level value"},
		{name: "empty list", in: `[]`, users: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseCredentials("creds.json", []byte(tt.in))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error = %v, want it to contain %q", err, tt.err)
				}
				if tt.notIn != "" && strings.Contains(err.Error(), tt.notIn) {
					t.Fatalf("error %q reveals %q", err, tt.notIn)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != tt.users {
				t.Fatalf("got %d credentials, want %d", len(got), tt.users)
			}
		})
	}
}

// FuzzParseCredentials: no input panics; every refusal names the file with
// a line (creds.json:LINE:COL) and never contains a password.
func FuzzParseCredentials(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "scram-credentials*.json"))
	for _, s := range seeds {
		if b, err := os.ReadFile(s); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`[{"user":"alice","password":"sekrit-pw"},{"user":"alice","password":"other-pw"}]`))
	f.Add([]byte(`[{"user":"alice","password":"sekrit-pw","mechanism":"SCRAM-SHA-512","iterations":4096}]`))
	f.Add([]byte("[\n{\"user\":\"a\"}\n]"))
	f.Fuzz(func(t *testing.T, b []byte) {
		creds, err := ParseCredentials("creds.json", b)
		if err != nil {
			msg := err.Error()
			if !strings.HasPrefix(msg, "creds.json:") || !strings.ContainsAny(msg[len("creds.json:"):][:1], "0123456789") {
				t.Fatalf("error %q does not name creds.json:LINE", msg)
			}
			for _, pw := range []string{"sekrit-pw", "other-pw"} {
				if strings.Contains(msg, pw) {
					t.Fatalf("error %q reveals a password", msg)
				}
			}
			return
		}
		seen := map[string]bool{}
		for _, c := range creds {
			k := c.User + "/" + c.Mechanism
			if seen[k] {
				t.Fatalf("two credentials for %s accepted", k)
			}
			seen[k] = true
		}
	})
}
