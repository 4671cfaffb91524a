package snapshot

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/secret"
)

func TestQuotaEntityString(t *testing.T) {
	tests := []struct {
		e    QuotaEntity
		want string
	}{
		{QuotaEntity{{Type: EntityUser, Default: true}}, "user=<default>"},
		{QuotaEntity{{Type: EntityUser, Name: "<default>"}}, "user=%3Cdefault%3E"},
		{QuotaEntity{{Type: EntityUser, Name: "CN=a,OU=b"}, {Type: EntityClientID, Default: true}}, "user=CN=a,OU=b,client-id=<default>"},
		{QuotaEntity{{Type: EntityIP, Name: "10.0.0.1"}}, "ip=10.0.0.1"},
	}
	for _, tc := range tests {
		if got := tc.e.String(); got != tc.want {
			t.Errorf("%#v.String() = %q, want %q", tc.e, got, tc.want)
		}
	}
}

// A Config's Secret never shows its value: not through fmt, not in JSON,
// not in an encoded snapshot (the Secret type itself is tested in package
// secret).
func TestConfigSecretNeverShowsItsValue(t *testing.T) {
	const value = "hunter2-secret-value"
	s := secret.New("file:x#k", value)
	c := Config{Key: "k", Sensitive: true, Secret: &s}
	outs := []string{fmt.Sprint(s), fmt.Sprintf("%v %+v %#v %s %q %x", s, s, s, s, s, s), fmt.Sprintf("%+v %#v", c, c), s.String(), s.GoString()}
	js, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	outs = append(outs, string(js))
	var buf bytes.Buffer
	if err := Encode(&buf, &Snapshot{Format: FormatVersion, BrokerConfigs: []BrokerConfig{{Broker: "1", Configs: []Config{c}}}}); err != nil {
		t.Fatal(err)
	}
	outs = append(outs, buf.String())
	for _, o := range outs {
		if strings.Contains(o, value) {
			t.Errorf("output shows the secret: %s", o)
		}
		if !strings.Contains(o, "file:x#k") && !strings.HasPrefix(o, "{") {
			t.Errorf("output lacks the reference: %s", o)
		}
	}
	if v, ok := s.Reveal(); !ok || v != value {
		t.Errorf("Reveal() = %q, %v", v, ok)
	}
	var back Config
	if err := json.Unmarshal(js, &back); err != nil || back.Secret.Known() || back.Secret.Ref() != "file:x#k" {
		t.Errorf("round trip: %+v %v", back, err)
	}
}

// A snapshot file that holds a password-type value in clear (hand-edited,
// or written by an older version from a target that returned it) is read
// with the value dropped and the key held by reference, with a finding.
func TestDecodeHoldsPasswordsByReference(t *testing.T) {
	in := `{"format":1,"source":"kafka",
 "topics":[{"name":"t","partitions":[],"configs":[{"key":"retention.ms","value":"1"},{"key":"ssl.key.password","value":"clear-1"}]}],
 "broker_configs":[{"broker":"","configs":[{"key":"listener.name.x.sasl.jaas.config","value":"clear-2"},
   {"key":"ssl.keystore.password","sensitive":true,"secret":{"ref":"kafka:broker/<default>#ssl.keystore.password"}}]}],
 "static_configs":[{"file":"s.properties","configs":[{"key":"ssl.truststore.password","value":"clear-3"}]}]}`
	s, err := Decode(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Encode(&buf, s); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "clear-") || strings.Contains(fmt.Sprintf("%+v", s), "clear-") {
		t.Errorf("a clear password survived decoding:\n%s", buf.String())
	}
	refs := map[string]string{}
	for _, cs := range [][]Config{s.Topics[0].Configs, s.BrokerConfigs[0].Configs, s.StaticConfigs[0].Configs} {
		for _, c := range cs {
			if c.Sensitive && c.Secret != nil {
				refs[c.Key] = c.Secret.Ref()
			}
		}
	}
	want := map[string]string{
		"ssl.key.password":                 "snapshot:topic/t#ssl.key.password",
		"listener.name.x.sasl.jaas.config": "snapshot:broker/<default>#listener.name.x.sasl.jaas.config",
		"ssl.keystore.password":            "kafka:broker/<default>#ssl.keystore.password", // already by reference: kept
		"ssl.truststore.password":          "file:s.properties#ssl.truststore.password",
	}
	if fmt.Sprint(refs) != fmt.Sprint(want) {
		t.Errorf("references %v, want %v", refs, want)
	}
	if v := s.Topics[0].Configs[0]; v.Key != "retention.ms" || v.Value != "1" || v.Sensitive {
		t.Errorf("a plain config changed: %+v", v)
	}
	n := 0
	for _, f := range s.Findings {
		if f.ID == "snapshot-secret-in-clear" {
			n++
		}
	}
	if n != 3 {
		t.Errorf("%d snapshot-secret-in-clear findings, want 3: %+v", n, s.Findings)
	}
}

// ACL.String is the Sprintf form people and change names have always read,
// for any field values (a %, empty fields).
func TestACLString(t *testing.T) {
	for _, a := range []ACL{
		{ResourceType: "Topic", ResourceName: "orders", PatternType: "LITERAL", Principal: "User:alice", Host: "*", Operation: "Read", Permission: "Allow"},
		{ResourceType: "Group", ResourceName: "g%s%d", PatternType: "PREFIXED", Principal: "User:%v", Host: "10.0.0.1", Operation: "All", Permission: "Deny"},
		{},
	} {
		want := fmt.Sprintf("%s %s %s on %s:%s:%s from %s", a.Permission, a.Principal, a.Operation, a.ResourceType, a.PatternType, a.ResourceName, a.Host)
		if got := a.String(); got != want {
			t.Errorf("%#v.String() = %q, want %q", a, got, want)
		}
	}
}
