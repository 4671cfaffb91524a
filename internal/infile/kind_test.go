package infile

import (
	"bytes"
	"crypto/ed25519"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

func pemOf(t *testing.T, typ string, der []byte) string {
	t.Helper()
	return string(pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}))
}

// TestIdentify tells each of the tool's kinds of file from its first
// bytes, cut off anywhere past its first members, and leaves what it
// cannot tell (empty, other JSON, text) unidentified.
func TestIdentify(t *testing.T) {
	pub, priv, _ := ed25519.GenerateKey(nil)
	privDER, _ := x509.MarshalPKCS8PrivateKey(priv)
	pubDER, _ := x509.MarshalPKIXPublicKey(pub)
	checkpoint, err := os.ReadFile("../kraftcheckpoint/testdata/kafka41-format-plain.checkpoint")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		head string
		want Kind
		ok   bool
	}{
		{"plan", `{"format":3,"fingerprint":"ab","source":{"kind":"zookeeper"},"changes":[{"kind":"topic"`, Plan, true},
		{"plan -o json", "{\n  \"format\": 3,\n  \"digest\": \"sha256:00\",\n  \"fingerprint\": \"x\",", Plan, true},
		{"plan without fingerprint", `{"format":3,"source":{"kind":"snapshot"},"target":{},"options":{}}`, Plan, true},
		{"revert plan", `{"format":3,"source":{"kind":"zookeeper"},"reverts":{"run":3}}`, Plan, true},
		{"snapshot", "{\n  \"format\": 1,\n  \"source\": \"zookeeper\",\n  \"address\": \"zk1:2181\",\n  \"topics\": [{\"name\": \"a\"", Snapshot, true},
		{"snapshot without source", `{"format":1,"brokers":[{"id":1}],"topics":[`, Snapshot, true},
		{"tree", "{\n \"nodes\": [\n  {\n   \"path\": \"/\"\n  },\n  {\"path\": \"/brokers\"", Tree, true},
		{"receipts", `{"run":1,"seq":22,"head":"8ed1","outcome":"planned","at":"2026-12-02T17:57:16Z"}` + "\n" + `{"run":2,`, Receipts, true},
		{"credentials", `[{"user":"alice","mechanism":"SCRAM-SHA-256","password":"x","iterations":8192},{"user":`, Credentials, true},
		{"audit private key", pemOf(t, "PRIVATE KEY", privDER), Key, true},
		{"audit public key", pemOf(t, "PUBLIC KEY", pubDER), Key, true},
		{"certificate", pemOf(t, "CERTIFICATE", []byte("not really")), Store, true},
		{"RSA key", pemOf(t, "PRIVATE KEY", make([]byte, 1200)), Store, true},
		{"checkpoint", string(checkpoint), Checkpoint, true},
		{"sqlite", "SQLite format 3\x00\x10\x00\x02\x02", AuditDB, true},
		{"zookeeper snapshot", "ZKSN\x00\x00\x00\x02", ZKSnapshot, true},
		{"zookeeper log", "ZKLG\x00\x00\x00\x02", ZKLog, true},
		{"empty", "", Kind{}, false},
		{"other JSON", `{"name":"x","value":3}`, Kind{}, false},
		{"JSON list of numbers", `[1,2,3]`, Kind{}, false},
		{"properties", "bootstrap.servers=x:9092\n", Kind{}, false},
		{"yaml", "rules:\n  - name: x\n", Kind{}, false},
		{"broken JSON", `{"format":`, Kind{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Identify([]byte(tt.head))
			if got != tt.want || ok != tt.ok {
				t.Errorf("Identify = %q, %v; want %q, %v", got.Name, ok, tt.want.Name, tt.ok)
			}
		})
	}
}

// TestExpect: content of another of the tool's kinds is refused naming
// both kinds, compressed or not; content of its own kind, or of none
// known, passes, and is still read from its start.
func TestExpect(t *testing.T) {
	plan := `{"format":3,"fingerprint":"ab","source":{"kind":"zookeeper"},"changes":[]}`
	var z bytes.Buffer
	zw, _ := zstd.NewWriter(&z)
	zw.Write([]byte(plan))
	zw.Close()
	for _, tt := range []struct {
		name, content string
		want          Kind
		wrong         bool
	}{
		{"plan as snapshot", plan, Snapshot, true},
		{"zstd plan as snapshot", z.String(), Snapshot, true},
		{"plan as plan", plan, Plan, false},
		{"zstd plan as plan", z.String(), Plan, false},
		{"unknown as snapshot", `{"a":1}`, Snapshot, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "f.json")
			if err := os.WriteFile(path, []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			c, err := OpenContent(path, tt.want)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			err = c.Expect()
			var wk *WrongKindError
			if got := errors.As(err, &wk); got != tt.wrong {
				t.Fatalf("Expect() = %v; want a WrongKindError: %v", err, tt.wrong)
			}
			if tt.wrong {
				want := path + " is a plan file, not a " + tt.want.Name
				if err.Error() != want {
					t.Errorf("error %q, want %q", err, want)
				}
				var ie *Error
				if !errors.As(err, &ie) {
					t.Errorf("error %v is not an *infile.Error", err)
				}
				if berr := ExpectBytes(path, tt.want, []byte(tt.content)); berr == nil || berr.Error() != want {
					t.Errorf("ExpectBytes = %v, want %q", berr, want)
				}
				return
			}
			var b strings.Builder
			if _, err := c.WriteTo(&b); err != nil || !strings.HasPrefix(b.String(), "{") {
				t.Errorf("after Expect the content reads %q, %v", b.String(), err)
			}
		})
	}
	if err := ExpectFile(filepath.Join(t.TempDir(), "missing"), Receipts); err != nil {
		t.Errorf("ExpectFile of a file not made yet: %v", err)
	}
}
