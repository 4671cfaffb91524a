package kafkaconn

import (
	"context"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/testkit/testbed"
)

// TestDialRealKafka checks the messages a real Kafka 4.1 SASL listener
// produces: a good login, a wrong password, PLAINTEXT against SASL.
func TestDialRealKafka(t *testing.T) {
	bootstrap := testbed.TargetBootstrap(t)
	props := testbed.TargetClientProps(t)
	ctx := context.Background()

	cfg, err := Load(props)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := Dial(ctx, strings.Split(bootstrap, ","), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if conn.Principal != "User:"+testbed.AdminUser {
		t.Errorf("Principal = %q", conn.Principal)
	}
	conn.Close()

	body, err := os.ReadFile(props)
	if err != nil {
		t.Fatal(err)
	}
	wrongBody := strings.Replace(string(body), `password="`+testbed.AdminPassword+`"`, `password="not-`+testbed.AdminPassword+`"`, 1)
	if wrongBody == string(body) {
		t.Fatalf("%s does not hold the test bed's admin password the way this test expects", props)
	}
	wrong, err := Load(writeFile(t, t.TempDir(), wrongBody))
	if err != nil {
		t.Fatal(err)
	}
	host := strings.Split(bootstrap, ",")[0]
	tests := []struct {
		name string
		cfg  *Config
		want string
	}{
		{"wrong password", wrong, `^kafkaconn: authentication failed for User:admin at ` + regexp.QuoteMeta(host) +
			` \(SCRAM-SHA-256\): Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-256$`},
		{"plaintext to SASL", nil, `^kafkaconn: ` + regexp.QuoteMeta(host) + ` closed the connection on the first request \(is security.protocol PLAINTEXT right for that listener\?\)$`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			conn, err := Dial(ctx, []string{host}, tt.cfg)
			if err == nil {
				conn.Close()
				t.Fatal("Dial succeeded")
			}
			errs = append(errs, err.Error())
			if !regexp.MustCompile(tt.want).MatchString(err.Error()) {
				t.Errorf("error %q\ndoes not match %s", err, tt.want)
			}
			if strings.Contains(err.Error(), testbed.AdminPassword) {
				t.Errorf("password in error %q", err)
			}
		})
	}
}
