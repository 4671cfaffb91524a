package secret

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// A Secret never shows its value: not through fmt, not in JSON, not inside
// a struct printed with %+v; Reveal is the one way out, and JSON carries the
// reference only.
func TestSecretNeverShowsItsValue(t *testing.T) {
	const value = "hunter2-secret-value"
	s := New("file:x#k", value)
	holder := struct {
		Key    string
		Secret *Secret `json:"secret"`
	}{"k", &s}
	js, err := json.Marshal(holder)
	if err != nil {
		t.Fatal(err)
	}
	outs := []string{fmt.Sprint(s), fmt.Sprintf("%v %+v %#v %s %q %x", s, s, s, s, s, s), fmt.Sprintf("%+v %#v", holder, holder), s.String(), s.GoString(), string(js)}
	for _, o := range outs {
		if strings.Contains(o, value) {
			t.Errorf("output shows the secret: %s", o)
		}
		if !strings.Contains(o, "file:x#k") && !strings.HasPrefix(o, "{") {
			t.Errorf("output lacks the reference: %s", o)
		}
	}
	if !strings.Contains(string(js), `"secret":{"ref":"file:x#k"}`) {
		t.Errorf("JSON = %s, want the reference only", js)
	}
	if v, ok := s.Reveal(); !ok || v != value || !s.Known() {
		t.Errorf("Reveal() = %q, %v; Known() = %v", v, ok, s.Known())
	}
	var back Secret
	if err := json.Unmarshal([]byte(`{"ref":"file:x#k"}`), &back); err != nil || back.Known() || back.Ref() != "file:x#k" {
		t.Errorf("round trip: %+v %v", back, err)
	}
	if v, ok := back.Reveal(); ok || v != "" {
		t.Errorf("a decoded Secret reveals %q, %v; want nothing", v, ok)
	}
	if r := Ref("scram-credentials:alice/SCRAM-SHA-256"); r.Known() || r.Ref() != "scram-credentials:alice/SCRAM-SHA-256" {
		t.Errorf("Ref() = %#v", r)
	}
	if err := back.UnmarshalJSON([]byte(`"not an object"`)); err == nil {
		t.Error("UnmarshalJSON accepted a string")
	}
}
