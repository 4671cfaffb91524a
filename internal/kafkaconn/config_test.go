package kafkaconn

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// writeFile writes a client.properties into dir and returns its path.
func writeFile(t testing.TB, dir, body string) string {
	t.Helper()
	p := filepath.Join(dir, "client.properties")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

const scramJAAS = `sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="admin" password="` + saslPass + `";` + "\n"

// errs collects every error the tests produce, for the secrets test.
var errs []string

func TestLoadSASL(t *testing.T) {
	type want struct {
		Protocol, Mechanism, User, Password string
		Token                               bool
		Ignored                             []string
		RequestTimeout                      time.Duration
	}
	tests := []struct {
		name string
		body string
		want want
		err  string // with the temporary folder written as DIR
	}{
		{name: "empty file", body: "", want: want{Protocol: "PLAINTEXT"}},
		{name: "plaintext with other keys", body: "# tool config\nclient.id=mig\nrequest.timeout.ms=30000\nsecurity.protocol=PLAINTEXT\n",
			want: want{Protocol: "PLAINTEXT", Ignored: []string{"DIR/client.properties:2 client.id"}, RequestTimeout: 30 * time.Second}},
		{name: "plain", body: "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\n" +
			`sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="alice" password="` + saslPass + `";`,
			want: want{Protocol: "SASL_PLAINTEXT", Mechanism: "PLAIN", User: "alice", Password: saslPass}},
		{name: "scram-sha-256", body: "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-256\n" + scramJAAS,
			want: want{Protocol: "SASL_PLAINTEXT", Mechanism: "SCRAM-SHA-256", User: "admin", Password: saslPass}},
		{name: "scram-sha-512 lower-case protocol", body: "security.protocol = sasl_plaintext\nsasl.mechanism: SCRAM-SHA-512\n" + scramJAAS,
			want: want{Protocol: "SASL_PLAINTEXT", Mechanism: "SCRAM-SHA-512", User: "admin", Password: saslPass}},
		{name: "odd spacing, comments, continuation", body: "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-256\n" +
			"sasl.jaas.config = org.apache.kafka.common.security.scram.ScramLoginModule \\\n   REQUIRED /* who */ username =\"ad min\"\\\n  // line comment\\n\\\n" +
			"   password= 'it s' ;\n",
			want: want{Protocol: "SASL_PLAINTEXT", Mechanism: "SCRAM-SHA-256", User: "ad min", Password: "it s"}},
		{name: "escapes", body: "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-256\n" +
			`sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username=bob_1 password="q\\"uo\\\\te\\101\\tx";`,
			want: want{Protocol: "SASL_PLAINTEXT", Mechanism: "SCRAM-SHA-256", User: "bob_1", Password: "q\"uo\\teA\tx"}},
		{name: "delegation token", body: "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-256\n" +
			`sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="tokenid" password="hmac" tokenauth="true";`,
			want: want{Protocol: "SASL_PLAINTEXT", Mechanism: "SCRAM-SHA-256", User: "tokenid", Password: "hmac", Token: true}},
		{name: "harmless sasl keys", body: "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\nsasl.login.refresh.window.factor=0.8\nsasl.kerberos.service.name=kafka\n" +
			`sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="p";`,
			want: want{Protocol: "SASL_PLAINTEXT", Mechanism: "PLAIN", User: "u", Password: "p",
				Ignored: []string{"DIR/client.properties:3 sasl.login.refresh.window.factor", "DIR/client.properties:4 sasl.kerberos.service.name"}}},

		{name: "request timeout", body: "request.timeout.ms = 1500\n", want: want{Protocol: "PLAINTEXT", RequestTimeout: 1500 * time.Millisecond}},
		{name: "zero request timeout", body: "request.timeout.ms=0\n",
			err: `kafkaconn: DIR/client.properties:1: request.timeout.ms: "0" is not a positive number of milliseconds`},
		{name: "negative request timeout", body: "\nrequest.timeout.ms=-5\n",
			err: `kafkaconn: DIR/client.properties:2: request.timeout.ms: "-5" is not a positive number of milliseconds`},
		{name: "text request timeout", body: "request.timeout.ms=30s\n",
			err: `kafkaconn: DIR/client.properties:1: request.timeout.ms: "30s" is not a positive number of milliseconds`},
		{name: "bad protocol", body: "security.protocol=SASL\n",
			err: `kafkaconn: DIR/client.properties:1: security.protocol: "SASL" is not a security protocol (want PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL)`},
		{name: "no mechanism", body: "\nsecurity.protocol=SASL_PLAINTEXT\n" + scramJAAS,
			err: "kafkaconn: DIR/client.properties:2: sasl.mechanism is not set and Kafka's default, GSSAPI (Kerberos), is not supported; set PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512"},
		{name: "gssapi", body: "security.protocol=SASL_SSL\nsasl.mechanism=GSSAPI\nsasl.kerberos.service.name=kafka\n",
			err: "kafkaconn: DIR/client.properties:2: sasl.mechanism: GSSAPI is not supported (PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512 are)"},
		{name: "oauthbearer", body: "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=OAUTHBEARER\n",
			err: "kafkaconn: DIR/client.properties:2: sasl.mechanism: OAUTHBEARER is not supported (PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512 are)"},
		{name: "lower-case mechanism", body: "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=scram-sha-256\n",
			err: `kafkaconn: DIR/client.properties:2: sasl.mechanism: "scram-sha-256" is not supported (PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512 are)`},
		{name: "callback handler", body: "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\n" + scramJAAS + "sasl.client.callback.handler.class=com.example.Handler\n",
			err: "kafkaconn: DIR/client.properties:4: sasl.client.callback.handler.class: not supported (custom SASL callback handlers are Java classes)"},
		{name: "config providers", body: "config.providers=file\nconfig.providers.file.class=org.apache.kafka.common.config.provider.FileConfigProvider\n",
			err: "kafkaconn: DIR/client.properties:1: config.providers: not supported (config providers (${provider:path:key}) are not resolved; put the values in the file)"},
		{name: "unknown ssl key", body: "security.protocol=SSL\nssl.something.new=x\n",
			err: "kafkaconn: DIR/client.properties:2: ssl.something.new: not supported by this tool"},
		{name: "cipher suites", body: "security.protocol=SSL\nssl.cipher.suites=TLS_AES_128_GCM_SHA256\n",
			err: "kafkaconn: DIR/client.properties:2: ssl.cipher.suites: not supported (Java cipher suite names cannot be mapped; remove it to use Go's TLS defaults)"},
		{name: "no jaas", body: "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\n",
			err: "kafkaconn: DIR/client.properties:2: sasl.jaas.config is not set; PLAIN needs username and password in it"},
		{name: "missing username", body: "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-256\n" +
			`sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required password="` + saslPass + `";`,
			err: "kafkaconn: DIR/client.properties:3: sasl.jaas.config: no username"},
		{name: "missing password", body: "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-256\n" +
			`sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="admin";`,
			err: "kafkaconn: DIR/client.properties:3: sasl.jaas.config: no password for user admin"},
		{name: "unquoted number password", body: "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-256\n" +
			`sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="admin" password=9081726354453627;`,
			err: `kafkaconn: DIR/client.properties:3: sasl.jaas.config: value not specified for key "password" (unquoted values must start with a letter; quote it)`},
		// A password written without "password=" reads as an option name;
		// seen on the real bed: the error quoted it on stderr.
		{name: "password without its key", body: "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-256\n" +
			`sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="admin" ` + saslPass + `;`,
			err: `kafkaconn: DIR/client.properties:3: sasl.jaas.config: value not specified for option 2 (not a known option name, so not shown: it may be a misplaced value; write key="value")`},
		{name: "password as the module", body: "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-256\n" +
			`sasl.jaas.config=` + saslPass + ` required username="admin";`,
			err: `kafkaconn: DIR/client.properties:3: sasl.jaas.config: login module (not a login module class name, so not shown) is not supported (use PlainLoginModule or ScramLoginModule)`},
		{name: "no semicolon", body: "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-256\n" +
			`sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="admin" password="` + saslPass + `"`,
			err: "kafkaconn: DIR/client.properties:3: sasl.jaas.config: entry not terminated by a semicolon"},
		{name: "bad flag", body: "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-256\n" +
			`sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule mandatory username="admin" password="` + saslPass + `";`,
			err: "kafkaconn: DIR/client.properties:3: sasl.jaas.config: invalid login module control flag (want required, requisite, sufficient or optional)"},
		{name: "two modules", body: "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-256\n" +
			`sasl.jaas.config=a.B required username="x" password="y"; c.D optional;`,
			err: "kafkaconn: DIR/client.properties:3: sasl.jaas.config: has 2 login modules, should be 1"},
		{name: "kerberos module", body: "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\n" +
			`sasl.jaas.config=com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true keyTab="/etc/k.keytab";`,
			err: "kafkaconn: DIR/client.properties:3: sasl.jaas.config: login module com.sun.security.auth.module.Krb5LoginModule is not supported (use PlainLoginModule or ScramLoginModule)"},
		{name: "token with plain", body: "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\n" +
			`sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="` + saslPass + `" tokenauth=true;`,
			err: "kafkaconn: DIR/client.properties:3: sasl.jaas.config: tokenauth needs a SCRAM mechanism, not PLAIN"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			c, err := Load(writeFile(t, dir, tt.body))
			if tt.err != "" {
				if err == nil {
					t.Fatalf("Load succeeded, want error %q", tt.err)
				}
				errs = append(errs, err.Error())
				if got := strings.ReplaceAll(err.Error(), dir, "DIR"); got != tt.err {
					t.Errorf("error:\n got %s\nwant %s", got, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			pw, _ := c.password.Reveal()
			var ign []string
			for _, s := range c.Ignored {
				ign = append(ign, strings.ReplaceAll(s, dir, "DIR"))
			}
			got := want{Protocol: c.Protocol, Mechanism: c.Mechanism, User: c.User, Password: pw, Token: c.Token, Ignored: ign, RequestTimeout: c.RequestTimeout}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
			if c.TLS != nil {
				t.Errorf("TLS set for %s", c.Protocol)
			}
		})
	}
}

func TestLoadMissingFile(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "nope.properties"))
	if err == nil || !strings.Contains(err.Error(), "nope.properties") || !strings.HasPrefix(err.Error(), "kafkaconn: ") {
		t.Errorf("err = %v", err)
	}
}

func TestParseJAAS(t *testing.T) {
	tests := []struct {
		in   string
		want []jaasEntry
		err  string
	}{
		{in: `M required a="1";`, want: []jaasEntry{{"M", "required", map[string]string{"a": "1"}}}},
		{in: "M\trequired\na = b\n;", want: []jaasEntry{{"M", "required", map[string]string{"a": "b"}}}},
		{in: `x.y.Z sufficient k=v-1.2_$ q='single "double"';`, want: []jaasEntry{{"x.y.Z", "sufficient", map[string]string{"k": "v-1.2_$", "q": `single "double"`}}}},
		{in: `M optional k="\101\n" o="\0101" x="\q";`, want: []jaasEntry{{"M", "optional", map[string]string{"k": "A\n", "o": "\b1", "x": "q"}}}},
		{in: `M Requisite;N required;`, want: []jaasEntry{{"M", "requisite", map[string]string{}}, {"N", "required", map[string]string{}}}},
		{in: `/* c */ M required // x` + "\n" + `k="v"; // trailing`, want: []jaasEntry{{"M", "required", map[string]string{"k": "v"}}}},
		{in: ``, err: "login module not specified"},
		{in: `M`, err: "login module control flag not specified"},
		{in: `M required username;`, err: `value not specified for key "username"`},
		{in: `M required password=;`, err: `value not specified for key "password" (unquoted values must start with a letter; quote it)`},
		{in: `M required a="1" k=-5;`, err: `value not specified for option 2 (not a known option name, so not shown: it may be a misplaced value; write key="value") (unquoted values must start with a letter; quote it)`},
		{in: `M required username="u" hunter2secret;`, err: `value not specified for option 2 (not a known option name, so not shown: it may be a misplaced value; write key="value")`},
		{in: `"M" required;`, err: "login module not specified"},
		{in: `M required = "v";`, err: `expected an option name, got "="`},
	}
	for _, tt := range tests {
		got, err := parseJAAS(tt.in)
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("parseJAAS(%q) error = %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("parseJAAS(%q): %v", tt.in, err)
			continue
		}
		if d := cmp.Diff(tt.want, got, cmp.AllowUnexported(jaasEntry{})); d != "" {
			t.Errorf("parseJAAS(%q) (-want +got):\n%s", tt.in, d)
		}
	}
}

func TestDescribe(t *testing.T) {
	dir := t.TempDir()
	c, err := Load(writeFile(t, dir, "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-256\n"+scramJAAS))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := c.Describe(), "SASL_PLAINTEXT SCRAM-SHA-256 user=admin"; got != want {
		t.Errorf("Describe = %q, want %q", got, want)
	}
	if got, want := c.Redacted(), filepath.Join(dir, "client.properties")+": SASL_PLAINTEXT SCRAM-SHA-256 user=admin"; got != want {
		t.Errorf("Redacted = %q, want %q", got, want)
	}
	if got := c.principal(); got != "User:admin" {
		t.Errorf("principal = %q", got)
	}
	c.Principal = "User:migrator"
	if got := c.principal(); got != "User:migrator" {
		t.Errorf("principal override = %q", got)
	}
	if got := Default().principal(); got != "User:ANONYMOUS" {
		t.Errorf("default principal = %q", got)
	}
	// Every way of printing a Config, value or pointer.
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%d", "%x", "%q"} {
		for _, v := range []any{c, *c} {
			s := fmt.Sprintf(verb, v)
			errs = append(errs, s)
			if strings.Contains(s, saslPass) {
				t.Errorf("fmt %s of %T shows the password: %s", verb, v, s)
			}
		}
	}
}

// TestMain runs the secrets check over every error text and description
// the tests collected, whichever tests ran.
func TestMain(m *testing.M) {
	code := m.Run()
	for _, e := range errs {
		for _, s := range []string{storePass, keyPass, saslPass, "9081726354453627"} {
			if strings.Contains(e, s) {
				fmt.Printf("FAIL: secret %q appears in %q\n", s, e)
				code = 1
			}
		}
	}
	if slices.Contains(errs, "") {
		fmt.Println("FAIL: an empty error text was collected")
		code = 1
	}
	if code == 0 && testing.Verbose() {
		fmt.Printf("secrets check: %d error texts and descriptions, no secret in any\n", len(errs))
	}
	os.Exit(code)
}
