package catalogue

import (
	"math"
	"strconv"
	"strings"
)

// Type is a config key's type as Kafka's ConfigDef declares it (and as
// DescribeConfigs reports it, KIP-569).
type Type string

// Kafka's config types.
const (
	TypeUnknown  Type = ""
	TypeBoolean  Type = "BOOLEAN"
	TypeString   Type = "STRING"
	TypeInt      Type = "INT"
	TypeShort    Type = "SHORT"
	TypeLong     Type = "LONG"
	TypeDouble   Type = "DOUBLE"
	TypeList     Type = "LIST"
	TypeClass    Type = "CLASS"
	TypePassword Type = "PASSWORD"
)

// Scope says which config resource a key belongs to.
type Scope int

// The config scopes whose keys the catalogue knows.
const (
	ScopeTopic Scope = iota
	ScopeBroker
	// ScopeClientMetrics is a client-metrics subscription (KIP-714).
	ScopeClientMetrics
	// ScopeGroup is a group's configs (KIP-848 and KIP-932).
	ScopeGroup
)

// clientMetricsConfigTypes are the keys of a client-metrics subscription
// (Kafka's ClientMetricsConfigs).
var clientMetricsConfigTypes = map[string]Type{
	"metrics":     TypeList,
	"interval.ms": TypeInt,
	"match":       TypeList,
}

// groupConfigTypes are the keys of a group config as Kafka 4.1 defines them
// (GroupConfig).
var groupConfigTypes = map[string]Type{
	"consumer.session.timeout.ms":    TypeInt,
	"consumer.heartbeat.interval.ms": TypeInt,
	"share.session.timeout.ms":       TypeInt,
	"share.heartbeat.interval.ms":    TypeInt,
	"share.record.lock.duration.ms":  TypeInt,
	"share.auto.offset.reset":        TypeString,
	"share.isolation.level":          TypeString,
	"streams.session.timeout.ms":     TypeInt,
	"streams.heartbeat.interval.ms":  TypeInt,
	"streams.num.standby.replicas":   TypeInt,
}

// ConfigType returns the Kafka type of key in scope, or TypeUnknown. Broker
// keys may carry a listener prefix (listener.name.<listener>.[<mechanism>.]key);
// the type is that of the unprefixed key.
func ConfigType(scope Scope, key string) Type {
	switch scope {
	case ScopeTopic:
		return topicConfigTypes[key]
	case ScopeClientMetrics:
		return clientMetricsConfigTypes[key]
	case ScopeGroup:
		return groupConfigTypes[key]
	}
	if t, ok := brokerConfigTypes[key]; ok {
		return t
	}
	if rest, ok := strings.CutPrefix(key, "listener.name."); ok {
		// listener.name.<listener>.<key> or .<listener>.<mechanism>.<key>
		for i := 0; i < 2; i++ {
			_, after, found := strings.Cut(rest, ".")
			if !found {
				break
			}
			if t, ok := brokerConfigTypes[after]; ok {
				return t
			}
			rest = after
		}
	}
	return TypeUnknown
}

// EqualValues reports whether two values of key mean the same to Kafka,
// comparing them by the key's type: numbers by value (a DOUBLE "1.048576E7"
// equals "10485760"), BOOLEAN case-insensitively, LIST element by element
// with the spaces around elements ignored, other known types with the
// surrounding spaces Kafka trims ignored. A key the catalogue does not know,
// or a value that does not parse as its type, is compared as text.
func EqualValues(scope Scope, key, a, b string) bool {
	if a == b {
		return true
	}
	return equalTyped(ConfigType(scope, key), a, b)
}

func equalTyped(t Type, a, b string) bool {
	ta, tb := strings.TrimSpace(a), strings.TrimSpace(b)
	switch t {
	case TypeUnknown:
		return a == b
	case TypeInt, TypeShort, TypeLong:
		x, err1 := strconv.ParseInt(ta, 10, 64)
		y, err2 := strconv.ParseInt(tb, 10, 64)
		if err1 != nil || err2 != nil {
			return ta == tb
		}
		return x == y
	case TypeDouble:
		x, err1 := strconv.ParseFloat(ta, 64)
		y, err2 := strconv.ParseFloat(tb, 64)
		if err1 != nil || err2 != nil || math.IsNaN(x) || math.IsNaN(y) {
			return ta == tb
		}
		return x == y
	case TypeBoolean:
		return strings.EqualFold(ta, tb)
	case TypeList:
		return equalLists(ta, tb)
	}
	return ta == tb // STRING, CLASS, PASSWORD: Kafka trims them when parsing
}

// equalLists compares two comma-separated lists element by element, in
// order, ignoring the spaces around elements. An empty value is the empty
// list, as in Kafka's ConfigDef.
func equalLists(a, b string) bool {
	if a == "" || b == "" {
		return a == b
	}
	xs, ys := strings.Split(a, ","), strings.Split(b, ",")
	if len(xs) != len(ys) {
		return false
	}
	for i := range xs {
		if strings.TrimSpace(xs[i]) != strings.TrimSpace(ys[i]) {
			return false
		}
	}
	return true
}
