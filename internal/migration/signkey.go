package migration

import (
	"errors"
	"fmt"

	"github.com/zkmigrate/zkmigrate/internal/audit"
	"github.com/zkmigrate/zkmigrate/internal/plansign"
)

// The inputs of plan signing errors blame.
const (
	InputSignKey   Input = "plan signing key"
	InputVerifyKey Input = "plan verification key"
)

// LoadSignKey reads the private key that signs a saved plan: an ed25519
// key as 'migrate audit keygen' writes it (audit.LoadKey). A public key is
// refused: it cannot sign. Errors are *InputError of InputSignKey.
func LoadSignKey(path string) (*plansign.Key, error) {
	k, err := audit.LoadKey(path)
	if err != nil {
		return nil, &InputError{Input: InputSignKey, Err: err}
	}
	if !k.CanSign() {
		return nil, &InputError{Input: InputSignKey, Value: path, Err: fmt.Errorf("a public key (key %s) cannot sign; give the private key ('migrate audit keygen --out FILE' writes FILE and FILE.pub)", k.ID())}
	}
	return &plansign.Key{ID: k.ID(), Private: k.Private, Public: k.Public}, nil
}

// LoadVerifyKey reads the key a saved plan's signature must verify with:
// the public key (or the private key, whose public half is used). Errors
// are *InputError of InputVerifyKey.
func LoadVerifyKey(path string) (*plansign.Key, error) {
	if path == "" {
		return nil, &InputError{Input: InputVerifyKey, Err: errors.New("no key file")}
	}
	k, err := audit.LoadKey(path)
	if err != nil {
		return nil, &InputError{Input: InputVerifyKey, Err: err}
	}
	return &plansign.Key{ID: k.ID(), Public: k.Public}, nil
}
