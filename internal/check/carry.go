package check

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/zkmigrate/zkmigrate/internal/catalogue"
	"github.com/zkmigrate/zkmigrate/internal/english"
)

// checkUncarried flags what the admin protocol cannot recreate: SCRAM
// credentials without passwords, delegation tokens, topic ids, and
// tiered-storage topics (whose remote data is keyed by topic id).
func checkUncarried(c *run) {
	for _, u := range c.s.ScramUsers {
		var mechs []string
		for _, cr := range u.Credentials {
			if (cr.Secret == nil || !cr.Secret.Known()) && !c.opts.ScramPasswords[ScramKey{u.Name, cr.Mechanism}] {
				mechs = append(mechs, cr.Mechanism)
			}
		}
		if len(mechs) > 0 {
			c.add("CARRY-SCRAM", "scram-user:User:"+u.Name,
				fmt.Sprintf("%s without a known password", strings.Join(mechs, ", ")), "")
		}
	}
	for _, t := range c.s.DelegationTokens {
		c.add(catalogue.IDDelegationToken, "delegation-token:"+t.TokenID,
			fmt.Sprintf("token owned by %s must be re-issued on the target", t.Owner), "")
	}
	var withID []string
	deleting := map[string]bool{}
	for _, t := range c.s.PendingDeletes {
		deleting[t] = true
	}
	for i := range c.s.Topics {
		t := &c.s.Topics[i]
		if t.Internal || catalogue.IsInternalTopic(t.Name) {
			continue
		}
		if t.ID != "" && !deleting[t.Name] {
			withID = append(withID, t.Name)
		}
		for _, cf := range t.Configs {
			if cf.Key == "remote.storage.enable" && catalogue.EqualValues(catalogue.ScopeTopic, cf.Key, cf.Value, "true") {
				id := t.ID
				if id == "" {
					id = "none"
				}
				c.add(catalogue.IDBlockTieredStorageTopic, "topic:"+t.Name, "remote.storage.enable=true (remote data keyed by topic id "+id+")", "")
			}
		}
	}
	// Whether read from ZooKeeper or through the brokers, a topic created
	// on the target through the admin protocol gets a new id.
	if len(withID) > 0 {
		c.add(catalogue.IDTopicIDChanges, "topics",
			fmt.Sprintf("%s will get new topic ids when recreated (%s)", english.N(len(withID), "topic"), sample(withID, 5)), "")
	}
}

// sample lists the first n names and how many more there are.
func sample(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:n], ", ") + ", and " + strconv.Itoa(len(names)-n) + " more"
}

// checkTopicHealth flags topics whose replication factor is below their
// effective min.insync.replicas.
func checkTopicHealth(c *run) {
	defVal, defFrom, hasDef := c.brokerDefault("min.insync.replicas")
	def, defErr := strconv.Atoi(strings.TrimSpace(defVal))
	for i := range c.s.Topics {
		t := &c.s.Topics[i]
		rf := t.ReplicationFactor()
		if rf == 0 {
			continue
		}
		minISR, from := 1, "default"
		if hasDef && defErr == nil {
			minISR, from = def, defFrom
		}
		for _, cf := range t.Configs {
			if cf.Key == "min.insync.replicas" {
				if n, err := strconv.Atoi(strings.TrimSpace(cf.Value)); err == nil {
					minISR, from = n, "topic override"
				}
			}
		}
		if rf < minISR {
			c.add("TOPIC-RF-BELOW-MIN-ISR", "topic:"+t.Name,
				fmt.Sprintf("replication factor %d is below min.insync.replicas=%d (%s)", rf, minISR, from), "")
		}
	}
}

// checkLegacyConsumers flags old /consumers offsets.
func checkLegacyConsumers(c *run) {
	for _, g := range c.s.ConsumerGroups {
		msg := "old Scala consumer group"
		if g.Offsets > 0 {
			msg = fmt.Sprintf("old Scala consumer group with %s", english.N(g.Offsets, "committed offset"))
		}
		if len(g.Topics) > 0 {
			msg += " on " + sample(g.Topics, 5)
		}
		c.add(catalogue.IDOutOfScopeOffsets, "consumer-group:"+g.Group, msg, "")
	}
}

// checkPolicy evaluates existing topics against the TopicActionPolicy.
func checkPolicy(c *run) {
	if c.opts.Policy == nil {
		return
	}
	for i := range c.s.Topics {
		t := &c.s.Topics[i]
		if t.Internal || catalogue.IsInternalTopic(t.Name) {
			continue
		}
		for _, v := range c.opts.Policy.CheckExisting(t) {
			msg := v.Message
			if v.Rule != "" {
				msg = "rule " + v.Rule + ": " + msg
			}
			c.add("POLICY-VIOLATION", "topic:"+t.Name, msg, "")
		}
	}
}
