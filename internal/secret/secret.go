// Package secret holds a sensitive value by reference: the type every
// package uses for passwords, SCRAM keys and JAAS configs, so that none of
// them can print or serialise the value by mistake.
package secret

import (
	"encoding/json"
	"fmt"
)

// Secret is a sensitive value held by reference. The reference says which
// value it is and where it comes from (for example
// "zookeeper:/config/brokers/0#listener.name.x.ssl.key.password" or
// "scram-credentials:alice/SCRAM-SHA-256"); the value itself lives only in
// memory, and only when the tool was given the means to read it (the
// password encoder secret, a credentials file).
//
// A Secret never prints or serialises its value: String, GoString, Format and
// MarshalJSON all show the reference only. Reveal is the one way out, used by
// apply when it sends the value to the target.
//
// fmt can call these methods only on a Secret it reaches as a value or an
// exported field: a struct that keeps a Secret (or any secret string) in an
// unexported field must give itself a Format method, or %v prints the field.
type Secret struct {
	ref   string
	value string
	known bool
}

// New returns a Secret that knows its value.
func New(ref, value string) Secret { return Secret{ref: ref, value: value, known: true} }

// Ref returns a Secret whose value is not known, only its reference.
func Ref(ref string) Secret { return Secret{ref: ref} }

// Ref returns where the value comes from.
func (s Secret) Ref() string { return s.ref }

// Known reports whether the value is held in memory.
func (s Secret) Known() bool { return s.known }

// Reveal returns the plaintext value and whether it is known.
func (s Secret) Reveal() (string, bool) { return s.value, s.known }

// String shows the reference, never the value.
func (s Secret) String() string { return "<secret " + s.ref + ">" }

// GoString shows the reference, never the value.
func (s Secret) GoString() string { return s.String() }

// Format makes every fmt verb print the reference only, including %+v and %#v.
func (s Secret) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(s.String())) }

type secretJSON struct {
	Ref string `json:"ref"`
}

// MarshalJSON writes the reference only.
func (s Secret) MarshalJSON() ([]byte, error) { return json.Marshal(secretJSON{Ref: s.ref}) }

// UnmarshalJSON reads a reference; the value is never in JSON.
func (s *Secret) UnmarshalJSON(b []byte) error {
	var j secretJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*s = Secret{ref: j.Ref}
	return nil
}
