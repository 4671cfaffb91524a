package plan

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/zkmigrate/zkmigrate/internal/catalogue"
	"github.com/zkmigrate/zkmigrate/internal/secret"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

func configsWithout(cs []snapshot.Config, drop func(string) bool, onDrop func(snapshot.Config)) []snapshot.Config {
	out := make([]snapshot.Config, 0, len(cs))
	for _, c := range cs {
		if drop(c.Key) {
			onDrop(c)
			continue
		}
		out = append(out, c)
	}
	return out
}

// it accepts.
type floor struct {
	key     string
	min     int64
	minText string // as the plan writes it
	why     string
}

// targetMinimums checks a topic's configs against the target's floors. A
// value below one is a blocker (the target would refuse the topic), or with
// RaiseToTargetMinimums is raised to the floor: it returns the adjusted
// configs and one note per adjustment. ok is false when the topic is blocked.
func (b *builder) targetMinimums(topic string, configs []snapshot.Config) (out []snapshot.Config, notes []string, ok bool) {
	out = configs
	for _, f := range b.topicFloors() {
		i := slices.IndexFunc(out, func(c snapshot.Config) bool { return c.Key == f.key })
		if i < 0 {
			continue
		}
		val := out[i].Value
		n, err := strconv.ParseInt(strings.TrimSpace(val), 10, 64)
		if err != nil || n >= f.min {
			continue
		}
		if !b.in.Options.RaiseToTargetMinimums {
			b.block(catalogue.IDBlockConfigInvalidOnTgt, KindTopic, topic,
				fmt.Sprintf("%s=%s is below %s; the target would refuse the topic", f.key, val, f.why),
				"give --raise-to-target-minimums to create it with "+f.key+"="+f.minText+" (the nearest value the target accepts), or fix the value in the source and plan again", nil)
			return nil, nil, false
		}
		if len(notes) == 0 {
			out = slices.Clone(out)
		}
		out[i].Value = f.minText
		note := fmt.Sprintf("%s raised from %s to %s, %s (--raise-to-target-minimums)", f.key, val, f.minText, f.why)
		notes = append(notes, note)
		b.finding(catalogue.IDConfigRaisedToTargetMin, snapshot.SeverityWarning, "topic "+topic,
			note+"; the topic behaves differently on the target than on the source",
			"nothing, if the larger value is acceptable; else change the source value before the cutover")
	}
	return out, notes, true
}

// desiredAssignment returns the replica lists the topic should have on the
// target, or nil when the target places replicas. With --broker-id-map they
// are the source's mapped through it; else (placement auto or source) the
// source's own lists when every broker they name exists on the target. For
// those it also returns the brokers the target lacks (then want is nil).

func applyConfigs(cur map[string]string, set, before []snapshot.Config) map[string]string {
	out := make(map[string]string, len(cur))
	for k, v := range cur {
		out[k] = v
	}
	for _, c := range before {
		delete(out, c.Key)
	}
	for _, c := range set {
		if !c.Sensitive {
			out[c.Key] = c.Value
		}
	}
	return out
}

func lookup(cs []snapshot.Config, key string) (string, bool) {
	for _, c := range cs {
		if c.Key == key {
			return c.Value, true
		}
	}
	return "", false
}

// configKind is what a config change kind compares by: its kind (for
// blockers) and the catalogue scope its keys are typed in.
type configKind struct {
	kind  Kind
	scope catalogue.Scope
}

// configChange compares wanted configs with the target's and returns a
// change (Before/After holding only the touched keys), or nil when in sync.
// Sensitive keys present on the target count as in sync unless
// ResendSecrets; sensitive keys whose value is unknown become blockers
// against resource. Keys only on the target are deleted when prune says so.
func (b *builder) configChange(k configKind, want, have []snapshot.Config, resource string, prune func(key string) bool) *Change {
	haveByKey := make(map[string]snapshot.Config, len(have))
	for _, c := range have {
		haveByKey[c.Key] = c
	}
	var before, after []snapshot.Config
	wantKeys := map[string]bool{}
	for _, w := range want {
		wantKeys[w.Key] = true
		h, present := haveByKey[w.Key]
		if w.Sensitive {
			if present && !b.in.Options.ResendSecrets {
				continue
			}
			if w.Secret == nil || !w.Secret.Known() {
				msg, fix := fmt.Sprintf("sensitive config %s is encrypted in ZooKeeper and its value is not known", w.Key),
					"give --password-encoder-secret-file (the brokers' password.encoder.secret) so the value can be decrypted"
				if b.in.Source.Source == snapshot.SourceKafka {
					msg, fix = fmt.Sprintf("sensitive config %s: the source's brokers never return its value through the admin protocol", w.Key),
						"read the source from ZooKeeper (--zookeeper) with --password-encoder-secret-file, or set the value on the target by hand"
				}
				b.block(catalogue.IDBlockSecretUnknown, k.kind, resource, msg, fix, nil)
				continue
			}
			if present {
				before = append(before, h)
			}
			after = append(after, snapshot.Config{Key: w.Key, Sensitive: true, Secret: w.Secret})
			continue
		}
		if present && !h.Sensitive && catalogue.EqualValues(k.scope, w.Key, h.Value, w.Value) {
			continue
		}
		if present {
			before = append(before, h)
		}
		after = append(after, snapshot.Config{Key: w.Key, Value: w.Value})
	}
	for _, h := range have {
		if !wantKeys[h.Key] && prune(h.Key) {
			before = append(before, h)
		}
	}
	if len(before) == 0 && len(after) == 0 {
		return nil
	}
	snapshot.SortConfigs(before)
	snapshot.SortConfigs(after)
	action := ActionUpdate
	return &Change{Action: action, Before: &State{Configs: stripSource(before)}, After: &State{Configs: after}}
}

func stripSource(cs []snapshot.Config) []snapshot.Config {
	out := make([]snapshot.Config, len(cs))
	for i, c := range cs {
		c.Source = ""
		if c.Sensitive {
			c.Value = ""
		}
		out[i] = c
	}
	return out
}

// configFields lists a config change key by key: set, altered or removed.
// A sensitive value shows as its secret's reference only.
func configFields(c *Change) []Field {
	b, a := orEmpty(c.Before), orEmpty(c.After)
	byKey := map[string]*Field{}
	var out []*Field
	get := func(cf snapshot.Config) *Field {
		f := byKey[cf.Key]
		if f == nil {
			f = &Field{Key: cf.Key}
			byKey[cf.Key] = f
			out = append(out, f)
		}
		f.Sensitive = f.Sensitive || cf.Sensitive
		return f
	}
	for _, cf := range b.Configs {
		get(cf).Before = strp(configText(cf))
	}
	for _, cf := range a.Configs {
		get(cf).After = strp(configText(cf))
	}
	fields := make([]Field, len(out))
	for i, f := range out {
		if f.Sensitive { // never a value, even if one side was not marked
			if f.Before != nil && !b.sensitive(f.Key) {
				f.Before = strp("")
			}
			if f.After != nil && !a.sensitive(f.Key) {
				f.After = strp("")
			}
		}
		fields[i] = *f
	}
	slices.SortFunc(fields, func(x, y Field) int { return strings.Compare(x.Key, y.Key) })
	return fields
}

// configText is a config's value for a field: its value, or for a
// sensitive one its secret's reference ("" when none).
func configText(cf snapshot.Config) string {
	if cf.Sensitive {
		return secretRef(cf.Secret)
	}
	return cf.Value
}

func (s *State) sensitive(key string) bool {
	for _, cf := range s.Configs {
		if cf.Key == key {
			return cf.Sensitive
		}
	}
	return false
}

func secretRef(s *secret.Secret) string {
	if s == nil {
		return ""
	}
	return s.Ref()
}

func touchedKeys(c *Change) map[string]bool {
	keys := map[string]bool{}
	for _, s := range []*State{c.Before, c.After} {
		if s != nil {
			for _, cf := range s.Configs {
				keys[cf.Key] = true
			}
		}
	}
	return keys
}

func keysOf(cs []snapshot.Config) map[string]bool {
	m := make(map[string]bool, len(cs))
	for _, c := range cs {
		m[c.Key] = true
	}
	return m
}

// pick returns the configs of cs whose keys are in keys, without their
// source and without sensitive values.
func pick(cs []snapshot.Config, keys map[string]bool) []snapshot.Config {
	var out []snapshot.Config
	for _, c := range cs {
		if keys[c.Key] {
			c.Source = ""
			if c.Sensitive {
				c.Value = ""
			}
			out = append(out, c)
		}
	}
	return out
}

func stateConfigs(s *State) []snapshot.Config {
	if s == nil {
		return nil
	}
	return s.Configs
}

// equalConfigs reports whether two config sets hold the same keys with
// values of the same meaning (compared by the keys' Kafka types).
func equalConfigs(scope catalogue.Scope, a, b []snapshot.Config) bool {
	if len(a) != len(b) {
		return false
	}
	bm := make(map[string]snapshot.Config, len(b))
	for _, c := range b {
		bm[c.Key] = c
	}
	for _, x := range a {
		y, ok := bm[x.Key]
		if !ok {
			return false
		}
		if x.Sensitive || y.Sensitive {
			continue // presence is all Kafka shows of a sensitive value
		}
		if !catalogue.EqualValues(scope, x.Key, x.Value, y.Value) {
			return false
		}
	}
	return true
}
