package zkread

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/zktree"
)

// The tree Kafka 3.9 itself wrote on the test bed (captured by
// tools/zkcapture), its broker's server.properties and the SCRAM passwords
// the test bed set.
var (
	kafka39Tree  = filepath.Join("testdata", "kafka39-legacy.json")
	kafka39Props = filepath.Join("testdata", "kafka39-server.properties")
)

type scramEntry struct {
	User, Mechanism, Password string
	Iterations                int32
}

func loadKafka39(t *testing.T) (*zktree.Tree, *Static, []scramEntry) {
	t.Helper()
	if _, err := os.Stat(kafka39Tree); err != nil {
		t.Skipf("no captured tree: %v", err)
	}
	return loadCapture(t, "kafka39")
}

// TestKafka39Capture reads what Kafka 3.9 wrote: the broker password
// decrypts with the secret found in server.properties, every SCRAM
// credential's stored and server keys are exactly RFC 5802's for the
// password the test bed set (so salt and iterations were read right), and
// none of it appears in the snapshot's output.
func TestKafka39Capture(t *testing.T) {
	tree, st, creds := loadKafka39(t)
	if len(st.EncoderSecrets) != 1 {
		t.Fatalf("encoder secrets from %s: %d", kafka39Props, len(st.EncoderSecrets))
	}
	s, err := Read(context.Background(), tree, Options{Full: true, EncoderSecrets: st.EncoderSecrets, Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	s.StaticConfigs = []snapshot.StaticConfig{st.Config}
	pw := brokerConfig(s, "1", "listener.name.sasl_plaintext.ssl.key.password")
	if pw == nil {
		t.Fatal("no encrypted password on broker 1")
	}
	if v, ok := pw.Secret.Reveal(); !ok || v != "kp-secret-1" {
		t.Fatalf("broker 1 password: %q %v", v, ok)
	}
	for _, f := range s.Findings {
		if f.Severity != snapshot.SeverityInfo {
			t.Errorf("finding on Kafka's own tree: %+v", f)
		}
	}

	secrets := append(scramKeysDerive(t, tree, creds), st.EncoderSecrets[0], "kp-secret-1", "admin-secret", "zkmigrate-testbed-token-secret")
	for _, c := range creds {
		found := false
		for _, u := range s.ScramUsers {
			for _, sc := range u.Credentials {
				found = found || u.Name == c.User && sc.Mechanism == c.Mechanism && sc.Iterations == c.Iterations
			}
		}
		if !found {
			t.Errorf("SCRAM %s %s missing from the snapshot", c.User, c.Mechanism)
		}
	}
	data, _, _ := tree.Get("/config/brokers/1")
	for _, part := range strings.Split(string(data), "encryptedPassword:")[1:] {
		secrets = append(secrets, part[:strings.IndexAny(part, ",\"")])
	}
	var buf bytes.Buffer
	if err := snapshot.Encode(&buf, s); err != nil {
		t.Fatal(err)
	}
	for _, sec := range secrets {
		if len(sec) >= 8 && strings.Contains(buf.String(), sec) {
			t.Errorf("snapshot output contains secret %q", sec)
		}
	}
	for _, key := range []string{"password.encoder.secret", "listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config", "delegation.token.secret.key"} {
		want := `"ref": "file:` + kafka39Props + `#` + key + `"`
		if !strings.Contains(buf.String(), want) {
			t.Errorf("static config: no reference %s", want)
		}
	}
	if !strings.Contains(buf.String(), `"key": "authorizer.class.name",`+"\n          \"value\": \"kafka.security.authorizer.AclAuthorizer\"") {
		t.Error("static config: authorizer.class.name value missing")
	}
}
