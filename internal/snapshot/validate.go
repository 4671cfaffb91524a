package snapshot

import (
	"fmt"
	"strconv"
)

// MaxTopicNameLength is Kafka's limit on topic names.
const MaxTopicNameLength = 249

// ValidTopicName reports why name is not a legal Kafka topic name (Kafka's
// Topic.validate: 1 to 249 characters of a-z, A-Z, 0-9, '.', '_' and '-',
// and not "." or ".."), or "" when it is legal.
func ValidTopicName(name string) string {
	switch {
	case name == "":
		return "is empty"
	case name == "." || name == "..":
		return "cannot be \".\" or \"..\""
	case len(name) > MaxTopicNameLength:
		return fmt.Sprintf("is %d characters long, more than Kafka's %d", len(name), MaxTopicNameLength)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return fmt.Sprintf("contains %q (Kafka allows a-z, A-Z, 0-9, '.', '_' and '-')", name[i:i+1])
		}
	}
	return ""
}

// Validate checks what a snapshot file read back must hold for the tool to
// read it one way only: legal topic names, and no entity listed twice
// (topics, partitions of a topic, config keys, brokers, broker configs,
// quota entities, SCRAM users and their mechanisms, delegation tokens,
// features). Errors name the list and positions, e.g.
// `topics[4] and topics[9] are both "orders"`. Identical ACLs are not
// ambiguous and are merged by Sort.
func (s *Snapshot) Validate() error {
	for i := range s.Topics {
		t := &s.Topics[i]
		if why := ValidTopicName(t.Name); why != "" {
			return fmt.Errorf("topics[%d]: topic name %q %s", i, t.Name, why)
		}
	}
	if err := unique("topics", len(s.Topics), func(i int) string { return s.Topics[i].Name }, "topic"); err != nil {
		return err
	}
	for i := range s.Topics {
		t := &s.Topics[i]
		where := fmt.Sprintf("topic %q: partitions", t.Name)
		if err := unique(where, len(t.Partitions), func(j int) string { return strconv.Itoa(int(t.Partitions[j].ID)) }, "partition"); err != nil {
			return err
		}
		if err := unique(fmt.Sprintf("topic %q: configs", t.Name), len(t.Configs), func(j int) string { return t.Configs[j].Key }, "config"); err != nil {
			return err
		}
	}
	if err := unique("brokers", len(s.Brokers), func(i int) string { return strconv.Itoa(int(s.Brokers[i].ID)) }, "broker"); err != nil {
		return err
	}
	if err := unique("broker_configs", len(s.BrokerConfigs), func(i int) string { return brokerName(s.BrokerConfigs[i].Broker) }, ""); err != nil {
		return err
	}
	for i := range s.BrokerConfigs {
		bc := &s.BrokerConfigs[i]
		if err := unique(brokerName(bc.Broker)+": configs", len(bc.Configs), func(j int) string { return bc.Configs[j].Key }, "config"); err != nil {
			return err
		}
	}
	for _, l := range []struct {
		name, what string
		list       []NamedConfigs
	}{{"client_metrics", "subscription", s.ClientMetrics}, {"group_configs", "group", s.GroupConfigs}} {
		if err := unique(l.name, len(l.list), func(i int) string { return l.list[i].Name }, l.what); err != nil {
			return err
		}
		for i := range l.list {
			nc := &l.list[i]
			if err := unique(fmt.Sprintf("%s %q: configs", l.what, nc.Name), len(nc.Configs), func(j int) string { return nc.Configs[j].Key }, "config"); err != nil {
				return err
			}
		}
	}
	if err := unique("quotas", len(s.Quotas), func(i int) string { return s.Quotas[i].Entity.String() }, "quota entity"); err != nil {
		return err
	}
	if err := unique("scram_users", len(s.ScramUsers), func(i int) string { return s.ScramUsers[i].Name }, "user"); err != nil {
		return err
	}
	for i := range s.ScramUsers {
		u := &s.ScramUsers[i]
		if err := unique(fmt.Sprintf("scram user %q: credentials", u.Name), len(u.Credentials), func(j int) string { return u.Credentials[j].Mechanism }, "mechanism"); err != nil {
			return err
		}
	}
	if err := unique("delegation_tokens", len(s.DelegationTokens), func(i int) string { return s.DelegationTokens[i].TokenID }, "token"); err != nil {
		return err
	}
	return unique("features", len(s.Features), func(i int) string { return s.Features[i].Name }, "feature")
}

// brokerName names a BrokerConfig's broker for messages.
func brokerName(b string) string {
	if b == "" {
		return "cluster default (broker \"\")"
	}
	return "broker " + strconv.Quote(b)
}

// unique reports the first two of n items of list with the same key.
func unique(list string, n int, key func(int) string, what string) error {
	first := make(map[string]int, n)
	for i := 0; i < n; i++ {
		k := key(i)
		if j, ok := first[k]; ok {
			name := strconv.Quote(k)
			if what != "" {
				name = what + " " + name
			} else {
				name = k
			}
			return fmt.Errorf("%s[%d] and %s[%d] are both %s; a snapshot lists each once (edited by hand?)", list, j, list, i, name)
		}
		first[k] = i
	}
	return nil
}
