package policy

import (
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/zkmigrate/zkmigrate/internal/catalogue"
	"github.com/zkmigrate/zkmigrate/internal/props"
)

// The broker config keys that name topic policy classes.
const (
	KeyCreatePolicy  = "create.topic.policy.class.name" // CreateTopicPolicy (KIP-108)
	KeyAlterPolicy   = "alter.config.policy.class.name" // AlterConfigPolicy (KIP-133)
	KeyUnifiedPolicy = "topic.action.policy.class.name" // TopicActionPolicy (the seed KIP; no Kafka release reads it)
)

// Conversion is the result of converting brokers' legacy policy settings.
type Conversion struct {
	Policy           []byte   // the policy file (YAML), with adapter entries for the legacy classes
	ControllerConfig []byte   // the properties the KRaft controllers need
	Warnings         []string // deprecations, brokers that differ, left-out secrets; one line each
}

// ConfigError is a policy configuration the KIP defines as an error: a legacy
// key set together with topic.action.policy.class.name.
type ConfigError struct {
	Problems []string
}

func (e *ConfigError) Error() string { return "policy: " + strings.Join(e.Problems, "; ") }

// broker is one server.properties file's policy settings.
type broker struct {
	file    *props.File
	label   string                  // "broker 1 (path)" or "path"
	classes map[string]*props.Entry // policy class key → entry
	custom  map[string]props.Entry  // custom, non-secret properties
	secrets map[string]props.Entry  // custom, secret-looking properties (values never output)
}

var classKeys = []string{KeyCreatePolicy, KeyAlterPolicy, KeyUnifiedPolicy}

func readBroker(f *props.File) *broker {
	b := &broker{file: f, label: f.Path, classes: map[string]*props.Entry{}, custom: map[string]props.Entry{}, secrets: map[string]props.Entry{}}
	for _, k := range []string{"broker.id", "node.id"} {
		if id, ok := f.Get(k); ok && id != "" && id != "-1" {
			b.label = fmt.Sprintf("broker %s (%s)", id, f.Path)
			break
		}
	}
	for _, k := range classKeys {
		if e := f.Lookup(k); e != nil && strings.TrimSpace(e.Value) != "" {
			e2 := *e
			e2.Value = strings.TrimSpace(e2.Value)
			b.classes[k] = &e2
		}
	}
	for _, e := range f.Entries {
		if isKafkaKey(e.Key) {
			continue
		}
		if catalogue.LooksSensitive(e.Key) {
			b.secrets[e.Key] = e
		} else {
			b.custom[e.Key] = e
		}
	}
	return b
}

func (b *broker) where(e *props.Entry) string { return fmt.Sprintf("%s:%d", b.file.Path, e.Line) }

// Convert reads the policy settings of the brokers' server.properties
// files and returns the unified policy file and the controller properties.
// A legacy key together with topic.action.policy.class.name in one file is
// a *ConfigError. Output is deterministic: it depends only on the files and
// their order.
func Convert(files []*props.File) (*Conversion, error) {
	if len(files) == 0 {
		return nil, fmt.Errorf("policy: no broker config files")
	}
	brokers := make([]*broker, len(files))
	var problems []string
	for i, f := range files {
		b := readBroker(f)
		brokers[i] = b
		if u := b.classes[KeyUnifiedPolicy]; u != nil {
			for _, k := range []string{KeyCreatePolicy, KeyAlterPolicy} {
				if l := b.classes[k]; l != nil {
					problems = append(problems, fmt.Sprintf("%s: %s and %s (%s) are both set, a configuration error: set either the legacy key or %s, not both",
						b.where(l), k, KeyUnifiedPolicy, b.where(u), KeyUnifiedPolicy))
				}
			}
		}
	}
	if len(problems) > 0 {
		return nil, &ConfigError{Problems: problems}
	}
	c := &converter{brokers: brokers}
	c.warn()
	return &Conversion{Policy: c.policyFile(), ControllerConfig: c.controllerConfig(), Warnings: c.warnings}, nil
}

type converter struct {
	brokers  []*broker
	warnings []string
}

// anyLegacy reports whether any broker sets a legacy class.
func (c *converter) anyLegacy() bool {
	for _, b := range c.brokers {
		if b.classes[KeyCreatePolicy] != nil || b.classes[KeyAlterPolicy] != nil {
			return true
		}
	}
	return false
}

func (c *converter) warn() {
	for _, k := range classKeys {
		var at []string
		class := ""
		for _, b := range c.brokers {
			if e := b.classes[k]; e != nil {
				at = append(at, b.where(e))
				if class == "" {
					class = e.Value
				}
			}
		}
		if len(at) == 0 {
			continue
		}
		if k == KeyUnifiedPolicy {
			c.warnings = append(c.warnings, fmt.Sprintf("%s (%s): no Kafka release reads this key, so neither the brokers nor the KRaft controllers run %s; write its checks as rules in the policy file",
				k, strings.Join(at, ", "), class))
			continue
		}
		c.warnings = append(c.warnings, fmt.Sprintf("%s (%s) is deprecated: one TopicActionPolicy covers CREATE, MODIFY and DELETE; converted to an adapter entry",
			k, strings.Join(at, ", ")))
	}
	if len(c.brokers) > 1 {
		c.warnDifferences()
	}
	if c.anyLegacy() {
		for _, k := range c.secretKeys() {
			var at []string
			for _, b := range c.brokers {
				if e, ok := b.secrets[k]; ok && b.hasLegacy() {
					at = append(at, b.where(&e))
				}
			}
			c.warnings = append(c.warnings, fmt.Sprintf("left out secret-looking property %s (%s): set it on the controllers by hand", k, strings.Join(at, ", ")))
		}
	}
}

func (b *broker) hasLegacy() bool {
	return b.classes[KeyCreatePolicy] != nil || b.classes[KeyAlterPolicy] != nil
}

// secretKeys returns the secret-looking custom keys of brokers with a legacy
// class, sorted.
func (c *converter) secretKeys() []string {
	set := map[string]bool{}
	for _, b := range c.brokers {
		if b.hasLegacy() {
			for k := range b.secrets {
				set[k] = true
			}
		}
	}
	return sortedKeys(set)
}

// warnDifferences reports every policy setting (class keys, and custom
// properties when a legacy class is set anywhere) whose value is not the
// same on every broker. Secret values are compared, never shown.
func (c *converter) warnDifferences() {
	keys := slices.Clone(classKeys)
	if c.anyLegacy() {
		set := map[string]bool{}
		for _, b := range c.brokers {
			for k := range b.custom {
				set[k] = true
			}
			for k := range b.secrets {
				set[k] = true
			}
		}
		keys = append(keys, sortedKeys(set)...)
	}
	for _, k := range keys {
		type group struct {
			value  string
			set    bool
			labels []string
		}
		var groups []*group
		for _, b := range c.brokers {
			v, set := b.value(k)
			i := slices.IndexFunc(groups, func(g *group) bool { return g.set == set && g.value == v })
			if i < 0 {
				groups = append(groups, &group{value: v, set: set})
				i = len(groups) - 1
			}
			groups[i].labels = append(groups[i].labels, b.label)
		}
		if len(groups) < 2 {
			continue
		}
		var parts []string
		secretN := 0
		for _, g := range groups {
			desc := "unset"
			switch {
			case g.set && catalogue.LooksSensitive(k):
				secretN++
				desc = fmt.Sprintf("secret value #%d (not shown)", secretN)
			case g.set:
				desc = fmt.Sprintf("%q", g.value)
			}
			parts = append(parts, fmt.Sprintf("%s on %s", desc, strings.Join(g.labels, ", ")))
		}
		c.warnings = append(c.warnings, fmt.Sprintf("policy settings differ between brokers: %s is %s", k, strings.Join(parts, "; ")))
	}
}

func (b *broker) value(k string) (string, bool) {
	if e := b.classes[k]; e != nil {
		return e.Value, true
	}
	if e, ok := b.custom[k]; ok {
		return e.Value, true
	}
	if e, ok := b.secrets[k]; ok {
		return e.Value, true
	}
	return "", false
}

// adapterSpec is one adapter entry to write.
type adapterSpec struct {
	key, scope string
	action     Action
	class      string
	source     string
	brokers    []*broker // brokers that set this class
	config     []configLine
	secrets    []string
}

type configLine struct {
	key, value string
	note       string // set when brokers differ on the value
}

// adapters returns one entry per distinct class per legacy key, in key
// order and then in the order the brokers name them.
func (c *converter) adapters() []adapterSpec {
	var out []adapterSpec
	for _, k := range []string{KeyCreatePolicy, KeyAlterPolicy} {
		scope, action := ScopeCreate, Create
		if k == KeyAlterPolicy {
			scope, action = ScopeAlterConfig, Modify
		}
		var specs []adapterSpec
		for _, b := range c.brokers {
			e := b.classes[k]
			if e == nil {
				continue
			}
			i := slices.IndexFunc(specs, func(s adapterSpec) bool { return s.class == e.Value })
			if i < 0 {
				specs = append(specs, adapterSpec{key: k, scope: scope, action: action, class: e.Value, source: b.where(e)})
				i = len(specs) - 1
			}
			specs[i].brokers = append(specs[i].brokers, b)
		}
		for i := range specs {
			specs[i].config, specs[i].secrets = customConfig(specs[i].brokers)
		}
		out = append(out, specs...)
	}
	return out
}

// customConfig merges the custom properties of brokers: the first broker's
// value wins, and a note names the brokers that differ.
func customConfig(brokers []*broker) ([]configLine, []string) {
	keys, secrets := map[string]bool{}, map[string]bool{}
	for _, b := range brokers {
		for k := range b.custom {
			keys[k] = true
		}
		for k := range b.secrets {
			secrets[k] = true
		}
	}
	var lines []configLine
	for _, k := range sortedKeys(keys) {
		var l configLine
		var first *broker
		var differ []string
		for _, b := range brokers {
			e, ok := b.custom[k]
			switch {
			case first == nil && ok:
				first, l = b, configLine{key: k, value: e.Value}
			case first != nil && (!ok || e.Value != l.value):
				differ = append(differ, b.label)
			case first == nil && !ok:
				differ = append(differ, b.label)
			}
		}
		if len(differ) > 0 {
			l.note = fmt.Sprintf("value of %s; differs on %s", first.label, strings.Join(differ, ", "))
		}
		lines = append(lines, l)
	}
	return lines, sortedKeys(secrets)
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func (c *converter) header(b *strings.Builder, what string) {
	fmt.Fprintf(b, "# %s generated by `migrate policy convert` from:\n", what)
	for _, br := range c.brokers {
		fmt.Fprintf(b, "#   %s\n", comment(br.label))
	}
}

func (c *converter) policyFile() []byte {
	var b strings.Builder
	c.header(&b, "TopicActionPolicy file")
	b.WriteString(`# zkmigrate evaluates the rules on every planned topic change (see docs/policy.md).
# The adapters name the legacy Java classes: zkmigrate cannot run them, the
# KRaft controllers do (see --controller-config-out); they never deny here.
version: 1

# Rules: CEL expressions that must be TRUE to allow a CREATE, MODIFY or DELETE.
# None were generated: a Java class cannot be translated. Write here what the
# legacy classes check, and zkmigrate enforces it before anything is sent,
# for MODIFY and DELETE too.
rules: []

`)
	specs := c.adapters()
	if len(specs) == 0 {
		b.WriteString("# No legacy policy keys (" + KeyCreatePolicy + ", " + KeyAlterPolicy + ") are set.\nadapters: []\n")
	} else {
		b.WriteString("adapters:\n")
	}
	for _, s := range specs {
		if s.scope == ScopeCreate {
			fmt.Fprintf(&b, "  # CREATE: the legacy CreateTopicPolicy (%s).\n", s.key)
		} else {
			fmt.Fprintf(&b, "  # MODIFY, config changes only: the legacy AlterConfigPolicy (%s).\n", s.key)
			b.WriteString("  # Partition count and replica assignment changes reach no legacy policy.\n")
		}
		if len(s.brokers) < len(c.brokers) {
			labels := make([]string, len(s.brokers))
			for i, br := range s.brokers {
				labels[i] = br.label
			}
			fmt.Fprintf(&b, "  # Set on %s only.\n", comment(strings.Join(labels, ", ")))
		}
		fmt.Fprintf(&b, "  - class: %s\n    scope: %s\n    actions: [%s]\n    source: %s\n", yamlScalar(s.class), s.scope, s.action, yamlScalar(s.source))
		if len(s.config) == 0 && len(s.secrets) == 0 {
			continue
		}
		if len(s.config) == 0 {
			b.WriteString("    config: {}\n")
		} else {
			b.WriteString("    config:\n")
		}
		for _, l := range s.config {
			if l.note != "" {
				fmt.Fprintf(&b, "      # %s\n", comment(l.note))
			}
			fmt.Fprintf(&b, "      %s: %s\n", yamlScalar(l.key), yamlScalar(l.value))
		}
		for _, k := range s.secrets {
			fmt.Fprintf(&b, "      # left out (secret-looking): %s\n", comment(k))
		}
	}
	for _, br := range c.brokers {
		if e := br.classes[KeyUnifiedPolicy]; e != nil {
			fmt.Fprintf(&b, "\n# %s=%s (%s):\n# no Kafka release reads this key and zkmigrate cannot run Java: write its checks\n# as rules above.\n", KeyUnifiedPolicy, comment(e.Value), comment(br.where(e)))
		}
	}
	b.WriteString("\n# DELETE: neither legacy interface sees topic deletion, so no adapter covers it.\n# Add rules with actions: [DELETE] to control deletions.\n")
	return []byte(b.String())
}

func (c *converter) controllerConfig() []byte {
	var b strings.Builder
	c.header(&b, "KRaft controller properties")
	specs := c.adapters()
	if len(specs) == 0 {
		b.WriteString("# No legacy topic policy keys are set on the brokers: the controllers need none.\n")
		return []byte(b.String())
	}
	b.WriteString(`# In KRaft, topic policies run on the controllers, never on the brokers.
# Add these lines to every controller's properties and put the policy jars on
# the controllers' classpath. No Kafka release reads
# topic.action.policy.class.name, so the legacy keys stay.
#
# WARNING: known differences from ZooKeeper mode:
`)
	var hasCreate, hasAlter bool
	for _, s := range specs {
		hasCreate = hasCreate || s.scope == ScopeCreate
		hasAlter = hasAlter || s.scope == ScopeAlterConfig
	}
	if hasAlter {
		b.WriteString(`# - The AlterConfigPolicy also runs on CreateTopics requests that carry topic
#   configs (ConfigResource(TOPIC, name) with those configs), before the
#   CreateTopicPolicy: a policy written for alters now also vets creations.
# - IncrementalAlterConfigs passes the resulting value of each key that changes
#   (null for a delete, the joined list for APPEND/SUBTRACT), not the raw op
#   value as ZooKeeper mode did; unchanged topic keys are left out.
`)
	}
	b.WriteString("# - CreatePartitions runs no policy, as in ZooKeeper mode; DeleteTopics neither.\n")
	if hasCreate && !hasAlter {
		b.WriteString("# - CreateTopicPolicy sees the same RequestMetadata as in ZooKeeper mode.\n")
	}
	b.WriteString("\n")
	written := map[string]bool{}
	for _, s := range specs {
		if written[s.key] {
			fmt.Fprintf(&b, "# brokers differ: %s=%s (%s) not written; a controller runs one class per key\n", s.key, comment(s.class), comment(s.source))
			continue
		}
		written[s.key] = true
		fmt.Fprintf(&b, "%s=%s\n", propKey(s.key), propValue(s.class))
	}
	// Custom properties of every broker with a legacy class, merged.
	var withLegacy []*broker
	for _, br := range c.brokers {
		if br.hasLegacy() {
			withLegacy = append(withLegacy, br)
		}
	}
	lines, secrets := customConfig(withLegacy)
	if len(lines) > 0 || len(secrets) > 0 {
		b.WriteString("\n# Custom properties the brokers passed to the policy classes:\n")
	}
	for _, l := range lines {
		if l.note != "" {
			fmt.Fprintf(&b, "# %s\n", comment(l.note))
		}
		fmt.Fprintf(&b, "%s=%s\n", propKey(l.key), propValue(l.value))
	}
	for _, k := range secrets {
		fmt.Fprintf(&b, "# left out (secret-looking): %s; set it by hand\n", comment(k))
	}
	return []byte(b.String())
}

// comment makes s safe inside a one-line comment.
func comment(s string) string {
	return strings.NewReplacer("\r", " ", "\n", " ").Replace(s)
}

// yamlScalar renders s as a YAML string scalar: plain when that reads back
// as the same string, quoted otherwise.
func yamlScalar(s string) string {
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
	if strings.ContainsAny(s, "\n\r\t") {
		n.Style = yaml.DoubleQuotedStyle
	}
	out, err := yaml.Marshal(n)
	if err != nil {
		n.Style = yaml.DoubleQuotedStyle
		out, _ = yaml.Marshal(n)
	}
	return strings.TrimSuffix(string(out), "\n")
}

// propKey and propValue escape for a Java .properties file (ISO-8859-1, as
// Kafka loads it): separators and leading spaces, control characters, and
// anything outside printable ASCII as \uXXXX.
func propKey(s string) string { return propEscape(s, true) }

func propValue(s string) string { return propEscape(s, false) }

func propEscape(s string, key bool) string {
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\f':
			b.WriteString(`\f`)
		case r == ' ' && (key || i == 0):
			b.WriteString(`\ `)
		case key && (r == '=' || r == ':'), (r == '#' || r == '!') && i == 0:
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r > 0x7e:
			if r > 0xffff {
				for _, u := range utf16Pair(r) {
					fmt.Fprintf(&b, `\u%04x`, u)
				}
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func utf16Pair(r rune) [2]rune {
	r -= 0x10000
	return [2]rune{0xd800 + (r>>10)&0x3ff, 0xdc00 + r&0x3ff}
}
