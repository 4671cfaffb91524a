package kraftcheckpoint

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// FuzzParse gives arbitrary bytes to the checkpoint reader (the seeds are
// the checkpoints in testdata): it never panics, and a checkpoint it
// accepts gives back its bytes unchanged and takes an appended credential
// into a checkpoint it accepts again.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.checkpoint")
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		if c, err := Parse(b); err == nil { // and the same with a delegation token
			tok := DelegationTokenValue(DelegationToken{Owner: "User:a", Requester: "User:a", Renewers: []string{"User:b"}, TokenID: "t"})
			if out, err := c.AppendValues([][]byte{tok}, time.UnixMilli(0)); err == nil {
				f.Add(out)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse(data)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error")
			}
			return
		}
		if !bytes.Equal(c.Bytes(), data) {
			t.Fatal("Bytes() differs from the input")
		}
		out, err := c.Append([]ScramCredential{cred("fuzz", ScramSHA256, 3, 4096)}, time.UnixMilli(0))
		if err != nil {
			t.Fatal(err)
		}
		c2, err := Parse(out)
		if err != nil {
			t.Fatalf("an appended checkpoint does not parse: %v", err)
		}
		if len(c2.Scram()) != len(c.Scram())+1 || len(c2.Features()) != len(c.Features()) || len(c2.Tokens()) != len(c.Tokens()) {
			t.Fatalf("append changed the records: %d -> %d SCRAM", len(c.Scram()), len(c2.Scram()))
		}
	})
}
