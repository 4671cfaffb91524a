package zkread

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/zkmigrate/zkmigrate/internal/catalogue"
	"github.com/zkmigrate/zkmigrate/internal/secret"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/zktree"
)

// readConfigs queues /config/{topics,brokers,clients,users,ips}.
func (r *reader) readConfigs() {
	r.children("/config/topics", true, func(names []string, listed bool) {
		for _, n := range names {
			p := "/config/topics/" + n
			r.get(p, listed, func(d []byte, _ zktree.Stat) {
				m, err := ParseEntityConfig(d)
				if !r.bad(p, err) {
					return
				}
				cs := make([]snapshot.Config, 0, len(m))
				for _, k := range slices.Sorted(maps.Keys(m)) {
					if catalogue.IsSensitive(k) {
						// Kafka has no password-typed topic config; one here was
						// written by hand, and is held by reference all the same.
						sec := secret.New("zookeeper:"+p+"#"+k, m[k])
						cs = append(cs, snapshot.Config{Key: k, Sensitive: true, Secret: &sec})
						continue
					}
					cs = append(cs, snapshot.Config{Key: k, Value: m[k]})
				}
				r.rmu.Lock()
				r.topicConfigs[n] = cs
				r.rmu.Unlock()
			})
		}
	})
	r.children("/config/brokers", true, func(names []string, listed bool) {
		for _, n := range names {
			p := "/config/brokers/" + n
			r.get(p, listed, func(d []byte, _ zktree.Stat) {
				m, err := ParseEntityConfig(d)
				if !r.bad(p, err) {
					return
				}
				broker := n
				if n == DefaultEntity {
					broker = ""
				} else if _, err := strconv.ParseInt(n, 10, 32); err != nil {
					r.finding(catalogue.IDZnodeMalformed, snapshot.SeverityWarning, p, "broker config for a name that is neither a broker id nor <default>; Kafka never reads it", "")
				}
				bc := snapshot.BrokerConfig{Broker: broker, Configs: r.brokerConfigs(p, m)}
				r.rmu.Lock()
				r.s.BrokerConfigs = append(r.s.BrokerConfigs, bc)
				r.rmu.Unlock()
			})
		}
	})
	r.children("/config/clients", true, func(names []string, listed bool) {
		for _, n := range names {
			p := "/config/clients/" + n
			r.get(p, listed, func(d []byte, _ zktree.Stat) {
				c, ok := r.entity(p, snapshot.EntityClientID, n)
				if !ok {
					return
				}
				r.quota(p, d, snapshot.QuotaEntity{c}, false)
			})
		}
	})
	r.children("/config/ips", true, func(names []string, listed bool) {
		for _, n := range names {
			p := "/config/ips/" + n
			r.get(p, listed, func(d []byte, _ zktree.Stat) {
				c, ok := r.entity(p, snapshot.EntityIP, n)
				if !ok {
					return
				}
				r.quota(p, d, snapshot.QuotaEntity{c}, false)
			})
		}
	})
	r.children("/config/users", true, func(names []string, listed bool) {
		for _, n := range names {
			p := "/config/users/" + n
			if !listed {
				if _, err := Desanitize(n); err != nil {
					// reported as a listed name is, when the znode is there
					r.present(p, func() { r.entity(p, snapshot.EntityUser, n) })
					continue
				}
			}
			u, ok := r.entity(p, snapshot.EntityUser, n)
			if !ok {
				continue
			}
			r.get(p, listed, func(d []byte, _ zktree.Stat) {
				r.quota(p, d, snapshot.QuotaEntity{u}, true)
			})
			r.children(p+"/clients", true, func(clients []string, listed bool) {
				for _, cn := range clients {
					cp := p + "/clients/" + cn
					r.get(cp, listed, func(d []byte, _ zktree.Stat) {
						c, ok := r.entity(cp, snapshot.EntityClientID, cn)
						if !ok {
							return
						}
						r.quota(cp, d, snapshot.QuotaEntity{u, c}, false)
					})
				}
			})
		}
	})
}

// entity decodes one znode name into a quota entity component.
func (r *reader) entity(path, typ, name string) (snapshot.EntityComponent, bool) {
	if name == DefaultEntity {
		return snapshot.EntityComponent{Type: typ, Default: true}, true
	}
	d, err := Desanitize(name)
	if err != nil {
		r.bad(path, err)
		return snapshot.EntityComponent{}, false
	}
	return snapshot.EntityComponent{Type: typ, Name: d}, true
}

// quota parses a client-quota znode; with users set, SCRAM credentials are
// taken out of it first (held by reference only).
func (r *reader) quota(path string, data []byte, e snapshot.QuotaEntity, users bool) {
	m, err := ParseEntityConfig(data)
	if !r.bad(path, err) {
		return
	}
	if users {
		var creds []snapshot.ScramCredential
		for _, mech := range ScramMechanisms {
			v, ok := m[mech]
			if !ok {
				continue
			}
			delete(m, mech)
			c, err := ParseScramCredential(v)
			if err != nil {
				r.finding(catalogue.IDScramMalformed, snapshot.SeverityError, path, mech+": "+strings.TrimPrefix(err.Error(), "zkread: "), "reset the user's password")
				continue
			}
			ref := secret.Ref("zookeeper:" + path + "#" + mech)
			creds = append(creds, snapshot.ScramCredential{Mechanism: mech, Iterations: c.Iterations, Secret: &ref})
		}
		if len(creds) > 0 && !e[0].Default {
			r.rmu.Lock()
			r.scram[e[0].Name] = &snapshot.ScramUser{Name: e[0].Name, Credentials: creds}
			r.rmu.Unlock()
		}
	}
	if len(m) == 0 {
		return
	}
	q := &snapshot.Quota{Entity: e, Values: make(map[string]float64, len(m))}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		f, err := strconv.ParseFloat(m[k], 64)
		if err != nil {
			r.finding(catalogue.IDQuotaMalformed, snapshot.SeverityError, path, fmt.Sprintf("quota %s=%q is not a number; skipped", k, truncate(m[k])), "")
			continue
		}
		q.Values[k] = f
	}
	if len(q.Values) == 0 {
		return
	}
	r.rmu.Lock()
	r.quotas[entityKey(e)] = q
	r.rmu.Unlock()
}

// entityKey identifies a quota entity uniquely. QuotaEntity.String renders
// the default user and a user literally named "<default>" alike; this key
// does not.
func entityKey(e snapshot.QuotaEntity) string {
	var b strings.Builder
	for _, c := range e {
		b.WriteString(c.Type)
		if c.Default {
			b.WriteString("\x00d")
		} else {
			b.WriteString("\x00n" + c.Name)
		}
		b.WriteString("\x00")
	}
	return b.String()
}

// brokerConfigs turns a /config/brokers znode's map into configs. Password
// configs are decrypted with the encoder secrets when given (the plaintext
// lives in a Secret), otherwise held by reference.
func (r *reader) brokerConfigs(path string, m map[string]string) []snapshot.Config {
	out := make([]snapshot.Config, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		v := m[k]
		ref := "zookeeper:" + path + "#" + k
		c := snapshot.Config{Key: k}
		switch {
		case IsPasswordConfig(k):
			c.Sensitive = true
			sec := r.decrypt(path, k, ref, v)
			c.Secret = &sec
		case catalogue.LooksSensitive(k):
			c.Sensitive = true
			sec := secret.New(ref, v)
			c.Secret = &sec
		default:
			c.Value = v
		}
		out = append(out, c)
	}
	return out
}

func (r *reader) decrypt(path, key, ref, v string) secret.Secret {
	if !IsEncodedPassword(v) {
		r.finding(catalogue.IDPasswordNotEncrypted, snapshot.SeverityWarning, path,
			key+" is a password config but its value is not PasswordEncoder-encrypted (written with no encoder secret?)", "")
		return secret.New(ref, v)
	}
	if len(r.opt.EncoderSecrets) == 0 {
		r.finding(catalogue.IDPasswordNotDecrypted, snapshot.SeverityWarning, path,
			key+" is encrypted and no password encoder secret was given",
			"give --password-encoder-secret-file, or --broker-config with password.encoder.secret")
		return secret.Ref(ref)
	}
	var last error
	for _, s := range r.opt.EncoderSecrets {
		p, err := DecryptPassword(v, s)
		if err == nil {
			return secret.New(ref, p)
		}
		last = err
	}
	r.finding(catalogue.IDPasswordDecryptFailed, snapshot.SeverityError, path,
		key+": "+strings.TrimPrefix(last.Error(), "zkread: "), "check the password encoder secret (password.encoder.secret / old.secret)")
	return secret.Ref(ref)
}
