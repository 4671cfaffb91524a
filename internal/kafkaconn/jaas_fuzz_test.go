package kafkaconn

import (
	"strings"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/props"
)

// FuzzJAAS reads any sasl.jaas.config value through the client.properties
// path: it never panics, and a refusal names client.properties:LINE and
// the key. The password of a value that parses never appears in an error.
func FuzzJAAS(f *testing.F) {
	for _, s := range []string{
		scramJAAS,
		`org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="p4ss-w0rd";`,
		`M required k="\101\n" o="\0101" x="\q";`,
		`/* c */ M required // x` + "\n" + `k="v"; // trailing`,
		`M required k=-5;`, `M Requisite;N required;`, `"M" required;`, `M required = "v";`, `/*`, `'`, `M required k="`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, jaas string) {
		entries, perr := parseJAAS(jaas)
		pf := &props.File{Path: "client.properties", Entries: []props.Entry{
			{Key: "security.protocol", Value: "SASL_PLAINTEXT", Line: 1},
			{Key: "sasl.mechanism", Value: "SCRAM-SHA-256", Line: 2},
			{Key: "sasl.jaas.config", Value: jaas, Line: 3},
		}}
		c, err := FromProps(pf)
		if err == nil {
			if perr != nil {
				t.Fatalf("FromProps accepted what parseJAAS refuses: %v", perr)
			}
			if c.User == "" {
				t.Fatal("accepted without a user")
			}
			return
		}
		msg := err.Error()
		if !strings.Contains(msg, "client.properties:3: sasl.jaas.config: ") {
			t.Fatalf("error %q does not name client.properties:3 and the key", msg)
		}
		if perr == nil {
			for _, e := range entries {
				if pw := e.Options["password"]; len(pw) >= 4 && !strings.Contains(e.Module, pw) && !strings.Contains(e.Options["username"], pw) &&
					!strings.Contains("client.properties:3: sasl.jaas.config: login module is not supported (use PlainLoginModule or ScramLoginModule) no username for user tokenauth needs a SCRAM mechanism, not PLAIN has login modules, should be", pw) &&
					strings.Contains(msg, pw) {
					t.Fatalf("error %q reveals the password", msg)
				}
			}
		}
	})
}
