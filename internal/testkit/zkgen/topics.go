package zkgen

import (
	"math/rand/v2"
	"strconv"
	"strings"
)

// removedTopicKeys are topic-level keys Kafka 4.0 no longer accepts.
var removedTopicKeys = map[string]string{
	"message.format.version":              "2.8-IV1",
	"message.downconversion.enable":       "false",
	"message.timestamp.difference.max.ms": "86400000",
}

// topicShape marks the rare topics every reader must cope with.
type topicShape int

const (
	shapeNormal      topicShape = iota
	shapeNoID                   // written by a pre-2.8 controller: v1 or v2, no topic_id
	shapeDeleting               // listed in /admin/delete_topics
	shapeReassigning            // an API reassignment (KIP-455) in flight
	shapeRemovedKey             // a normal topic forced to carry message.format.version
)

func (g *gen) topics(emit func([]Node) error) error {
	n := g.cfg.Topics
	if n == 0 {
		return nil
	}
	rng := g.rng(2)
	brokers := g.cfg.Brokers
	ppt := g.cfg.PartitionsPerTopic

	// names: internal topics first at realistic sizes, then regular ones
	var internal []string
	if n >= 100 {
		internal = []string{"__consumer_offsets", "__transaction_state"}
	}
	taken := uniq{}
	for _, t := range internal {
		taken[t] = true
	}
	regular := n - len(internal)
	g.topicNames = make([]string, 0, regular)
	if regular >= 20 {
		g.topicNames = append(g.topicNames, taken.take("_schemas", "-"))
	}
	for len(g.topicNames) < regular {
		g.topicNames = append(g.topicNames, taken.take(topicName(rng), "-"))
	}

	// the rare shapes, at distinct regular indexes
	shapes := make(map[int]topicShape)
	pickShape := func(count int, s topicShape) {
		for placed := 0; placed < count && len(shapes) < regular; {
			i := rng.IntN(regular)
			if _, ok := shapes[i]; !ok {
				shapes[i] = s
				placed++
			}
		}
	}
	atLeastOne := func(per int) int {
		if regular < 10 {
			return 0
		}
		return max(1, regular/per)
	}
	pickShape(atLeastOne(200), shapeNoID)
	pickShape(atLeastOne(500), shapeDeleting)
	if brokers >= 2 && regular >= 10 {
		pickShape(2, shapeReassigning)
	}
	pickShape(atLeastOne(1000), shapeRemovedKey)

	// partition counts: a tenth of each group of four is skewed (three
	// single-partition topics and one wide one), keeping the average
	counts := make([]int, regular)
	for i := range counts {
		counts[i] = ppt
	}
	for gi := 0; gi+4 <= regular && ppt >= 2; gi += 4 {
		if rng.IntN(10) == 0 {
			wide := gi + rng.IntN(4)
			for j := gi; j < gi+4; j++ {
				counts[j] = 1
			}
			counts[wide] = ppt + 3*(ppt-1)
		}
	}

	for _, t := range internal {
		cfg := map[string]string{"cleanup.policy": "compact", "compression.type": "producer", "segment.bytes": "104857600"}
		if t == "__transaction_state" {
			cfg = map[string]string{"cleanup.policy": "compact", "min.insync.replicas": "2", "segment.bytes": "104857600", "unclean.leader.election.enable": "false", "compression.type": "uncompressed"}
		}
		g.sum.InternalTopics++
		if err := emit(g.topic(rng, t, 50, min(3, brokers), shapeNormal, cfg)); err != nil {
			return err
		}
	}
	for i, t := range g.topicNames {
		rf := min(3, brokers)
		switch r := rng.IntN(100); {
		case r < 5:
			rf = 1
		case r < 15:
			rf = min(2, brokers)
		}
		s := shapes[i]
		if s == shapeReassigning {
			rf = max(1, min(rf, brokers-1))
		}
		cfg := topicConfig(rng, t)
		if s == shapeRemovedKey {
			cfg["message.format.version"] = removedTopicKeys["message.format.version"]
		}
		if err := emit(g.topic(rng, t, counts[i], rf, s, cfg)); err != nil {
			return err
		}
	}
	return nil
}

// topicConfig draws /config/topics/<t>: most topics have no overrides.
func topicConfig(rng *rand.Rand, name string) map[string]string {
	cfg := map[string]string{}
	if name == "_schemas" || strings.HasPrefix(name, "connect-") || strings.HasSuffix(name, "-changelog") {
		cfg["cleanup.policy"] = "compact"
	}
	if rng.IntN(100) < 62 {
		return cfg
	}
	if rng.IntN(100) < 45 {
		cfg["retention.ms"] = pick(rng, []string{"3600000", "86400000", "259200000", "604800000", "2592000000", "-1"})
	}
	if rng.IntN(100) < 22 {
		cfg["cleanup.policy"] = pick(rng, []string{"compact", "compact", "compact,delete"})
	}
	if rng.IntN(100) < 20 {
		cfg["min.insync.replicas"] = pick(rng, []string{"2", "2", "1"})
	}
	if rng.IntN(100) < 10 {
		cfg["max.message.bytes"] = pick(rng, []string{"2097152", "5242880", "10485760"})
	}
	if rng.IntN(100) < 10 {
		cfg["compression.type"] = pick(rng, []string{"lz4", "zstd", "snappy", "producer"})
	}
	if rng.IntN(100) < 8 {
		cfg["retention.bytes"] = pick(rng, []string{"1073741824", "10737418240", "-1"})
	}
	if rng.IntN(100) < 5 {
		cfg["segment.bytes"] = pick(rng, []string{"1073741824", "268435456", "524288"}) // the last is below Kafka 4.1's 1 MiB floor
	}
	if rng.IntN(100) < 3 {
		cfg["message.timestamp.type"] = "LogAppendTime"
	}
	if rng.IntN(100) < 2 {
		cfg["remote.storage.enable"] = "true"
		cfg["local.retention.ms"] = "86400000"
	}
	if rng.IntN(100) < 4 {
		k := pick(rng, []string{"message.format.version", "message.format.version", "message.downconversion.enable", "message.timestamp.difference.max.ms"})
		cfg[k] = removedTopicKeys[k]
	}
	return cfg
}

// topic builds one topic's znodes: the assignment, the partitions parent,
// each partition and its state, the config, and for a pending delete the
// /admin/delete_topics entry.
func (g *gen) topic(rng *rand.Rand, name string, parts, rf int, s topicShape, cfg map[string]string) []Node {
	brokers := g.cfg.Brokers
	start := rng.IntN(brokers)
	z := topicZNode{Version: 3, Partitions: make(map[string][]int, parts)}
	switch s {
	case shapeNoID:
		z.Version = 1 + rng.IntN(2)
		g.sum.TopicsWithoutID++
	default:
		z.TopicID = newUUID(rng)
	}
	base := "/brokers/topics/" + name
	nodes := make([]Node, 0, 3+2*parts+1)
	nodes = append(nodes, Node{Path: base}, Node{Path: base + "/partitions"})
	var throttledLeader, throttledFollower []string
	for p := range parts {
		replicas := make([]int, rf)
		for j := range replicas {
			replicas[j] = 1 + (start+p+j)%brokers
		}
		key := strconv.Itoa(p)
		z.Partitions[key] = replicas
		st := partitionState{ControllerEpoch: 1 + rng.IntN(g.controllerEpoch), Leader: replicas[0], Version: 1,
			LeaderEpoch: rng.IntN(30), ISR: append([]int(nil), replicas...)}
		switch r := rng.IntN(1000); {
		case r < 20 && rf > 1:
			st.ISR = st.ISR[:rf-1]
		case r < 22:
			st.Leader = -1
			st.ISR = replicas[rf-1:]
		case r < 23:
			st.LeaderRecoveryState = 1
		}
		if s == shapeDeleting {
			st.Leader = -2
		}
		if s == shapeReassigning && p < 2 {
			// move the first replica away to a broker not yet in the set
			var add int
			for b := 1; b <= brokers; b++ {
				if !containsInt(replicas, b) {
					add = b
					break
				}
			}
			target := append(append([]int(nil), replicas[1:]...), add)
			full := append(append([]int(nil), target...), replicas[0])
			z.Partitions[key] = full
			if z.AddingReplicas == nil {
				z.AddingReplicas, z.RemovingReplicas = map[string][]int{}, map[string][]int{}
			}
			z.AddingReplicas[key] = []int{add}
			z.RemovingReplicas[key] = []int{replicas[0]}
			for _, b := range replicas {
				throttledLeader = append(throttledLeader, key+":"+strconv.Itoa(b))
			}
			throttledFollower = append(throttledFollower, key+":"+strconv.Itoa(add))
			g.sum.ReassigningParts++
		}
		pp := base + "/partitions/" + key
		nodes = append(nodes, Node{Path: pp}, Node{pp + "/state", mustJSON(st)})
	}
	nodes[0].Data = z.encode()
	if s == shapeReassigning {
		g.sum.Reassigning++
		cfg["leader.replication.throttled.replicas"] = strings.Join(throttledLeader, ",")
		cfg["follower.replication.throttled.replicas"] = strings.Join(throttledFollower, ",")
	}
	nodes = append(nodes, Node{"/config/topics/" + name, configZNode(cfg)})
	if s == shapeDeleting {
		nodes = append(nodes, Node{Path: "/admin/delete_topics/" + name})
		g.sum.PendingDeletes++
	}
	g.sum.Topics++
	g.sum.Partitions += parts
	g.sum.TopicConfigs++
	if len(cfg) > 0 {
		g.sum.TopicConfigsNonEmpty++
	}
	for k := range cfg {
		if _, ok := removedTopicKeys[k]; ok {
			g.sum.TopicRemovedKeys++
		}
	}
	return nodes
}

func containsInt(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
