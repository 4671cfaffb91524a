package snapshot

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
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

// A Secret never shows its value: not through fmt, not in JSON, not inside
// a struct printed with %+v.
func TestSecretNeverShowsItsValue(t *testing.T) {
	const value = "hunter2-secret-value"
	s := NewSecret("file:x#k", value)
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
