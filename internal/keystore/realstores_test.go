package keystore

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestStoresFromRealTools parses stores made by Java's keytool (JKS and
// PKCS12, as Kafka operators make them) and an encrypted PKCS#8 PEM key
// made by OpenSSL. It skips when the tools are not installed.
func TestStoresFromRealTools(t *testing.T) {
	if testing.Short() {
		t.Skip("runs keytool (a JVM) six times")
	}
	const pass = "changeit-42"
	dir := t.TempDir()
	run := func(name string, args ...string) {
		t.Helper()
		if _, err := exec.LookPath(name); err != nil {
			t.Skipf("%s not installed", name)
		}
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
	}
	for _, typ := range []string{"JKS", "PKCS12"} {
		run("keytool", "-genkeypair", "-alias", "zk", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=zk-client-"+typ,
			"-validity", "2", "-keystore", "client-"+typ, "-storetype", typ, "-storepass", pass, "-keypass", pass)
		run("keytool", "-exportcert", "-alias", "zk", "-keystore", "client-"+typ, "-storetype", typ, "-storepass", pass, "-rfc", "-file", "cert-"+typ+".pem")
		run("keytool", "-importcert", "-noprompt", "-alias", "ca", "-file", "cert-"+typ+".pem", "-keystore", "trust-"+typ, "-storetype", typ, "-storepass", pass)
	}
	run("openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-subj", "/CN=zk-client-PEM", "-days", "2",
		"-keyout", "key.pem", "-out", "cert.pem", "-passout", "pass:"+pass)
	key, _ := os.ReadFile(filepath.Join(dir, "key.pem"))
	cert, _ := os.ReadFile(filepath.Join(dir, "cert.pem"))
	if err := os.WriteFile(filepath.Join(dir, "client-PEM"), append(key, cert...), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, "cert.pem"), filepath.Join(dir, "trust-PEM")); err != nil {
		t.Fatal(err)
	}
	for _, typ := range []string{"JKS", "PKCS12", "PEM"} {
		t.Run(typ, func(t *testing.T) {
			ks, err := os.ReadFile(filepath.Join(dir, "client-"+typ))
			if err != nil {
				t.Fatal(err)
			}
			c, err := ParseKey(ks, typ, pass, pass)
			if err != nil {
				t.Fatalf("key store: %v", err)
			}
			if c.Leaf.Subject.CommonName != "zk-client-"+typ {
				t.Errorf("leaf %q", c.Leaf.Subject.CommonName)
			}
			if _, err := ParseKey(ks, typ, "wrong-password", "wrong-password"); err == nil {
				t.Error("wrong password accepted")
			}
			ts, err := os.ReadFile(filepath.Join(dir, "trust-"+typ))
			if err != nil {
				t.Fatal(err)
			}
			certs, err := ParseTrust(ts, typ, pass)
			if err != nil || len(certs) != 1 || certs[0].Subject.CommonName != "zk-client-"+typ {
				t.Fatalf("trust store: %d certs, %v", len(certs), err)
			}
		})
	}
}
