package zkread

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/zkmigrate/zkmigrate/internal/catalogue"
	"github.com/zkmigrate/zkmigrate/internal/props"
	"github.com/zkmigrate/zkmigrate/internal/secret"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// Static is a server.properties file read for the snapshot, plus the
// password encoder secrets it holds (for decrypting, never stored).
type Static struct {
	Config         snapshot.StaticConfig
	EncoderSecrets []string
	// AuthorizerZK is authorizer.zookeeper.url when set: the ACLs live in
	// another ZooKeeper.
	AuthorizerZK string
}

// ReadStatic reads a broker's server.properties. Sensitive keys
// (catalogue.LooksSensitive, password-typed configs) are kept by reference
// ("file:<path>#<key>") with no value.
func ReadStatic(path string) (*Static, error) {
	f, err := props.Load(path)
	if err != nil {
		return nil, fmt.Errorf("zkread: broker config: %w", err)
	}
	return StaticFrom(f), nil
}

// StaticFrom builds a Static from a parsed properties file.
func StaticFrom(f *props.File) *Static {
	m := f.Map()
	st := &Static{Config: snapshot.StaticConfig{File: f.Path, Configs: make([]snapshot.Config, 0, len(m))}}
	if id, ok := m["broker.id"]; ok {
		st.Config.BrokerID = strings.TrimSpace(id)
	} else if id, ok := m["node.id"]; ok {
		st.Config.BrokerID = strings.TrimSpace(id)
	}
	for _, k := range []string{"password.encoder.secret", "password.encoder.old.secret"} {
		if v, ok := m[k]; ok && v != "" {
			st.EncoderSecrets = append(st.EncoderSecrets, v)
		}
	}
	st.AuthorizerZK = m["authorizer.zookeeper.url"]
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if catalogue.LooksSensitive(k) || IsPasswordConfig(k) {
			ref := secret.Ref("file:" + f.Path + "#" + k)
			st.Config.Configs = append(st.Config.Configs, snapshot.Config{Key: k, Sensitive: true, Secret: &ref})
			continue
		}
		st.Config.Configs = append(st.Config.Configs, snapshot.Config{Key: k, Value: m[k]})
	}
	return st
}
