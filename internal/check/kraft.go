package check

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/zkmigrate/zkmigrate/internal/catalogue"
	"github.com/zkmigrate/zkmigrate/internal/english"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// checkReadFindings reports the reader's findings under their own ids (the
// one vocabulary: check, snapshot and plan name a finding alike).
func checkReadFindings(c *run) {
	inconsistent := false
	for _, f := range c.s.Findings {
		// An admin-protocol read names each SCRAM user and broker password
		// it could not read; CARRY-SCRAM and KRAFT-PASSWORD-NO-SECRET
		// report the same items with the audit's options applied.
		if f.ID == catalogue.IDKReadScramKeys || (f.ID == catalogue.IDKReadSensitiveConfig && strings.HasPrefix(f.Resource, "broker ")) {
			continue
		}
		inconsistent = inconsistent || f.ID == catalogue.IDReadNotConsistent
		res := f.Resource
		switch {
		case res == "":
			res = "source"
		case f.ID == catalogue.IDNotificationsPending:
			res = "znode:" + res
		}
		c.pass(f, res)
	}
	if n := len(c.s.Read.Changed); n > 0 && !inconsistent { // a snapshot written before the reader said so itself
		c.add(catalogue.IDReadNotConsistent, "source",
			fmt.Sprintf("%s changed while the snapshot was read (for example %s); the snapshot is not point-in-time", english.N(n, "znode"), c.s.Read.Changed[0]), "")
	}
}

// checkMigrationState flags a KIP-866 migration already under way.
func checkMigrationState(c *run) {
	if m := c.s.Migration; m != nil {
		state := "the initial copy to KRaft has not finished"
		if m.KRaftMetadataOffset > 0 {
			state = fmt.Sprintf("the initial copy to KRaft has finished (metadata offset %d)", m.KRaftMetadataOffset)
		}
		c.add("KRAFT-MIGRATION-ZNODE", "znode:/migration",
			fmt.Sprintf("a KIP-866 migration exists (KRaft controller %d, epoch %d); %s", m.KRaftControllerID, m.KRaftControllerEpoch, state), "")
	}
	if ct := c.s.Controller; ct != nil && ct.KRaftControllerEpoch >= 0 {
		c.add("KRAFT-CONTROLLER", "znode:/controller",
			fmt.Sprintf("/controller is held by KRaft controller %d (kraftControllerEpoch %d)", ct.BrokerID, ct.KRaftControllerEpoch), "")
	}
}

// checkPendingWork flags pending deletions and reassignments.
func checkPendingWork(c *run) {
	for _, t := range c.s.PendingDeletes {
		msg := "topic is marked for deletion"
		if c.s.Topic(t) == nil {
			msg += " (its assignment is already gone)"
		}
		c.add(catalogue.IDTopicPendingDelete, "topic:"+t, msg, "")
	}
	for topic, parts := range byTopic(c.s.LegacyReassignments) {
		c.add(catalogue.IDLegacyReassignment, "topic:"+topic,
			fmt.Sprintf("/admin/reassign_partitions lists %s: %s", english.N(len(parts), "partition"), partList(parts)), "")
	}
	seen := map[string]bool{}
	for i := range c.s.Topics {
		t := &c.s.Topics[i]
		var parts []string
		for _, p := range t.Partitions {
			if len(p.Adding) > 0 || len(p.Removing) > 0 {
				parts = append(parts, fmt.Sprintf("%d (replicas %s, adding [%s], removing [%s])", p.ID, joinInts(p.Replicas), joinInts(p.Adding), joinInts(p.Removing)))
			}
		}
		if len(parts) > 0 {
			seen[t.Name] = true
			c.add(catalogue.IDTopicMidReassignment, "topic:"+t.Name,
				fmt.Sprintf("%s being reassigned: %s", english.N(len(parts), "partition"), strings.Join(parts, "; ")), "")
		}
	}
	for topic, parts := range byTopic(c.s.Reassignments) {
		if !seen[topic] {
			c.add(catalogue.IDTopicMidReassignment, "topic:"+topic,
				fmt.Sprintf("%s being reassigned: %s", english.N(len(parts), "partition"), partList(parts)), "")
		}
	}
}

func byTopic(as []snapshot.PartitionAssignment) map[string][]snapshot.PartitionAssignment {
	m := map[string][]snapshot.PartitionAssignment{}
	for _, a := range as {
		m[a.Topic] = append(m[a.Topic], a)
	}
	return m
}

func partList(as []snapshot.PartitionAssignment) string {
	parts := make([]string, len(as))
	for i, a := range as {
		parts[i] = fmt.Sprintf("%d → [%s]", a.Partition, joinInts(a.Replicas))
	}
	return strings.Join(parts, "; ")
}

// checkTopicIDs flags topics without ids (a ZooKeeper source only: a live
// cluster always has them).
func checkTopicIDs(c *run) {
	if c.s.Source == snapshot.SourceKafka {
		return
	}
	for _, t := range c.s.Topics {
		if t.ID == "" {
			c.add("KRAFT-TOPIC-NO-ID", "topic:"+t.Name, "topic has no topic id", "")
		}
	}
}

// removed returns the catalogue's removal of a broker key on the target.
func (c *run) removed(key string) (catalogue.RemovedKey, bool) {
	return catalogue.Removed(catalogue.ScopeBroker, key, c.target)
}

// removedIn names the release that dropped a key: "Kafka 4" for 4.0 and
// before (the key is gone from every Kafka 4), else "Kafka 4.1", ...
func removedIn(r catalogue.RemovedKey) string {
	if !r.Removed.AtLeast(catalogue.Version{Major: 4, Minor: 1}) {
		return "Kafka 4"
	}
	return "Kafka " + r.Removed.String()
}

const (
	standardAuthorizer  = "org.apache.kafka.metadata.authorizer.StandardAuthorizer"
	aclAuthorizer       = "kafka.security.authorizer.AclAuthorizer"
	simpleAclAuthorizer = "kafka.security.auth.SimpleAclAuthorizer"
)

// checkStaticConfigs audits the server.properties files.
func checkStaticConfigs(c *run) {
	if len(c.s.StaticConfigs) == 0 {
		if c.s.Source != snapshot.SourceKafka {
			c.add("KRAFT-NO-BROKER-CONFIG", "source", "no --broker-config given: authorizer, inter.broker.protocol.version, ZooKeeper-only settings and policy classes were not checked", "")
		}
		return
	}
	ibps := map[string][]string{} // value → files
	for _, sc := range c.s.StaticConfigs {
		res := "file:" + sc.File
		cfg := map[string]string{}
		for _, cf := range sc.Configs {
			if !cf.Sensitive {
				cfg[cf.Key] = cf.Value
			}
			key := cf.Key
			r, removed := c.removed(key)
			switch {
			case key == "control.plane.listener.name":
				c.add("KRAFT-CONTROL-PLANE-LISTENER", res, fmt.Sprintf("control.plane.listener.name=%s", cf.Value), "")
			case removed && r.ZooKeeperOnly:
				c.add("KRAFT-ZK-SETTING", res, "sets "+key+" (ZooKeeper only)", r.Replacement)
			case removed:
				c.add("K4-STATIC-CONFIG-REMOVED", res, "sets "+key+", removed in "+removedIn(r), r.Replacement)
			}
			if cf.Sensitive {
				continue
			}
			valueChecks(c, res, key, cf.Value)
		}
		switch a := strings.TrimSpace(cfg["authorizer.class.name"]); a {
		case "", standardAuthorizer:
		case aclAuthorizer, simpleAclAuthorizer:
			c.add("KRAFT-AUTHORIZER", res, "authorizer.class.name="+a, "")
		default:
			c.add("KRAFT-CUSTOM-AUTHORIZER", res, "authorizer.class.name="+a, "")
		}
		for _, k := range []string{"create.topic.policy.class.name", "alter.config.policy.class.name"} {
			if v := strings.TrimSpace(cfg[k]); v != "" {
				c.add("KRAFT-POLICY-CLASS", res, k+"="+v, "")
			}
		}
		if v, ok := cfg["inter.broker.protocol.version"]; ok {
			v = strings.TrimSpace(v)
			ibps[v] = append(ibps[v], sc.File)
			ibpChecks(c, res, v, cfg)
		}
	}
	if len(ibps) > 1 {
		vals := make([]string, 0, len(ibps))
		for v, files := range ibps {
			vals = append(vals, fmt.Sprintf("%s (%s)", v, strings.Join(files, ", ")))
		}
		slices.Sort(vals)
		c.add("KRAFT-IBP-MIXED", "brokers", "inter.broker.protocol.version differs: "+strings.Join(vals, "; "), "")
	}
}

// valueChecks flags broker config values below the target's floors
// (static or dynamic).
func valueChecks(c *run, res, key, value string) {
	f, ok := catalogue.FloorOf(catalogue.ScopeBroker, key, c.target)
	if !ok {
		return
	}
	n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
	if err != nil || n >= f.Min {
		return
	}
	switch {
	case key == "log.segment.bytes":
		c.add("K4-LOG-SEGMENT-BYTES", res, fmt.Sprintf("log.segment.bytes=%d is below the Kafka 4 minimum of %d", n, f.Min), "")
	case n == -1 && strings.HasPrefix(key, "remote.log.manager."):
		c.add("K4-REMOTE-THREAD-POOL", res, key+"=-1 is invalid in Kafka 4", "")
	case strings.HasPrefix(key, "remote.log.manager."):
		c.add("K4-REMOTE-THREAD-POOL", res, fmt.Sprintf("%s=%d is below the Kafka 4 minimum of %d", key, n, f.Min), "")
	default:
		c.add("K4-BROKER-CONFIG-BELOW-MINIMUM", res, fmt.Sprintf("%s=%d is below the Kafka %s minimum of %d", key, n, f.Since, f.Min), "")
	}
}

// ibpVersion is a parsed inter.broker.protocol.version: numbers and the IV
// suffix (-1 when absent, which means the release's latest).
type ibpVersion struct {
	nums []int
	iv   int
}

func parseIBP(s string) (ibpVersion, bool) {
	var v ibpVersion
	v.iv = -1
	main, iv, hasIV := strings.Cut(s, "-")
	if hasIV {
		n, err := strconv.Atoi(strings.TrimPrefix(iv, "IV"))
		if err != nil || !strings.HasPrefix(iv, "IV") {
			return v, false
		}
		v.iv = n
	}
	for _, p := range strings.Split(main, ".") {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return v, false
		}
		v.nums = append(v.nums, n)
	}
	if len(v.nums) < 2 {
		return v, false
	}
	if v.nums[0] == 0 { // 0.10.2 → (0, 10, 2); 3.4 → (3, 4, 0)
		return v, true
	}
	v.nums = append(v.nums[:2:2], 0)
	return v, true
}

// below reports whether v is older than major.minor-IV<iv>.
func (v ibpVersion) below(major, minor, iv int) bool {
	w := []int{major, minor, 0}
	for i := 0; i < 3; i++ {
		a := 0
		if i < len(v.nums) {
			a = v.nums[i]
		}
		if a != w[i] {
			return a < w[i]
		}
	}
	viv := v.iv
	if viv < 0 {
		viv = 1 << 20 // no IV: the release's latest
	}
	return viv < iv
}

// ibpChecks flags an IBP too old for Kafka 4 or for a KIP-866 migration.
func ibpChecks(c *run, res, v string, cfg map[string]string) {
	ibp, ok := parseIBP(v)
	if !ok {
		c.add("KRAFT-IBP-INVALID", res, fmt.Sprintf("inter.broker.protocol.version=%q is not a Kafka version", v), "")
		return
	}
	switch {
	case ibp.below(3, 3, 0):
		c.add("KRAFT-IBP-TOO-OLD", res, "inter.broker.protocol.version="+v+" (Kafka 4 needs 3.3 or later, KIP-866 3.4 or later)", "")
	case ibp.below(3, 6, 1):
		c.add("KRAFT-IBP-MIGRATION", res, "inter.broker.protocol.version="+v+" is below 3.6-IV1", "")
	}
	dirs := cfg["log.dirs"]
	if dirs == "" {
		dirs = cfg["log.dir"]
	}
	if n := len(nonEmpty(strings.Split(dirs, ","))); n > 1 && ibp.below(3, 7, 2) && !ibp.below(3, 3, 0) {
		c.add("KRAFT-JBOD-IBP", res, fmt.Sprintf("%d log.dirs with inter.broker.protocol.version=%s", n, v), "")
	}
}

func nonEmpty(ss []string) []string {
	out := ss[:0:0]
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			out = append(out, s)
		}
	}
	return out
}

// brokerRes names a dynamic broker config entity.
func brokerRes(broker string) string {
	if broker == "" {
		return "broker:<default>"
	}
	return "broker:" + broker
}

// checkBrokerConfigs audits the dynamic broker configs held in ZooKeeper.
func checkBrokerConfigs(c *run) {
	for _, bc := range c.s.BrokerConfigs {
		res := brokerRes(bc.Broker)
		for _, cf := range bc.Configs {
			if r, ok := c.removed(cf.Key); ok {
				c.add("K4-BROKER-CONFIG-REMOVED", res, "dynamic config "+cf.Key+" is removed in "+removedIn(r), r.Replacement)
			}
			if !cf.Sensitive {
				valueChecks(c, res, cf.Key, cf.Value)
			}
		}
	}
}

// checkTopicConfigs audits topic overrides.
func checkTopicConfigs(c *run) {
	for i := range c.s.Topics {
		t := &c.s.Topics[i]
		res := "topic:" + t.Name
		for _, cf := range t.Configs {
			if r, ok := catalogue.Removed(catalogue.ScopeTopic, cf.Key, c.target); ok {
				c.add("K4-TOPIC-CONFIG-REMOVED", res, fmt.Sprintf("%s=%s is removed in %s", cf.Key, cf.Value, removedIn(r)), r.Replacement)
			}
			topicFloorCheck(c, res, cf)
		}
	}
}

// checkPasswords flags encrypted broker passwords whose value is not known.
func checkPasswords(c *run) {
	for _, bc := range c.s.BrokerConfigs {
		for _, cf := range bc.Configs {
			if !cf.Sensitive || (cf.Secret != nil && cf.Secret.Known()) {
				continue
			}
			if c.s.Source == snapshot.SourceKafka {
				c.add("KRAFT-PASSWORD-NO-SECRET", brokerRes(bc.Broker), fmt.Sprintf("password config %s: the admin protocol never returns its value", cf.Key),
					"Read the source from ZooKeeper (--zookeeper) with --password-encoder-secret-file to carry it, or set it on the target by hand.")
				continue
			}
			why := "no password encoder secret was given"
			if c.opts.EncoderSecretKnown {
				why = "the password encoder secret given did not decrypt it"
			}
			c.add("KRAFT-PASSWORD-NO-SECRET", brokerRes(bc.Broker), fmt.Sprintf("password config %s is encrypted in ZooKeeper and %s", cf.Key, why), "")
		}
	}
}

// topicFloorCheck flags a topic value below a floor of the target or, for a
// target before the floor's release, of the next release that raises it
// (as a warning: the value is valid on the target, refused after it).
func topicFloorCheck(c *run, res string, cf snapshot.Config) {
	var floor catalogue.Floor
	found := false
	for _, f := range catalogue.Floors {
		if f.Scope == catalogue.ScopeTopic && f.Key == cf.Key {
			floor, found = f, true
			break
		}
	}
	if !found || cf.Key != "segment.bytes" {
		return
	}
	n, err := strconv.ParseInt(strings.TrimSpace(cf.Value), 10, 64)
	if err != nil || n >= floor.Min {
		return
	}
	if c.target.AtLeast(floor.Since) {
		c.add("K4-TOPIC-SEGMENT-BYTES", res, fmt.Sprintf("segment.bytes=%d is below the Kafka %s minimum of %d", n, c.target, floor.Min), "")
	} else {
		c.addSev("K4-TOPIC-SEGMENT-BYTES", SeverityWarning, res, fmt.Sprintf("segment.bytes=%d is valid on %s but refused from %s (minimum %d)", n, c.target, floor.Since, floor.Min), "")
	}
}
