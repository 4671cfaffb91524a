package zkgen

import (
	"fmt"
	"math/rand/v2"
	"strconv"
)

var (
	teams = []string{"payments", "orders", "inventory", "search", "ads", "identity", "billing", "fraud",
		"logistics", "catalog", "checkout", "growth", "ml", "data", "platform", "mobile", "web", "risk",
		"support", "shipping", "pricing", "reviews", "notifications", "analytics", "crm", "ledger", "auth",
		"media", "recs", "geo"}
	domains = []string{"user", "order", "cart", "payment", "invoice", "shipment", "product", "session",
		"click", "device", "account", "refund", "coupon", "review", "message", "email", "sms", "location",
		"price", "stock"}
	events = []string{"created", "updated", "deleted", "viewed", "completed", "failed", "requested",
		"approved", "rejected", "shipped", "delivered", "cancelled", "snapshot", "changelog", "audit",
		"metrics", "state", "commands", "events", "dlq"}
	apps = []string{"ingest", "enricher", "router", "aggregator", "sink", "api", "worker", "indexer",
		"scorer", "exporter", "gateway", "scheduler", "projector", "notifier", "archiver"}
	envs  = []string{"dev", "staging", "prod", "qa"}
	first = []string{"alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy",
		"mallory", "niaj", "olivia", "peggy", "rupert", "sybil", "trent", "victor", "walter", "zoe"}
	last = []string{"smith", "jones", "garcia", "miller", "davis", "martin", "lee", "walker", "hall",
		"young", "king", "wright", "lopez", "hill", "scott", "green", "adams", "baker", "nelson", "carter"}
)

func pick(rng *rand.Rand, s []string) string { return s[rng.IntN(len(s))] }

// uniq hands out names that were not handed out before: on a clash it
// appends a short numeric suffix.
type uniq map[string]bool

func (u uniq) take(name string, sep string) string {
	for i := 2; u[name]; i++ {
		if c := name + sep + strconv.Itoa(i); !u[c] {
			name = c
		}
	}
	u[name] = true
	return name
}

// topicName draws a realistic topic name: team.domain.event-vN mostly, with
// the other shapes real clusters accumulate (dashes, underscores, env
// prefixes, Kafka Connect and Kafka Streams internal topics).
func topicName(rng *rand.Rand) string {
	t, d, e := pick(rng, teams), pick(rng, domains), pick(rng, events)
	switch r := rng.IntN(100); {
	case r < 55:
		return fmt.Sprintf("%s.%s.%s-v%d", t, d, e, 1+rng.IntN(3))
	case r < 65:
		return fmt.Sprintf("%s.%s-%s", t, d, e)
	case r < 72:
		return fmt.Sprintf("%s_%s_%s", t, d, e)
	case r < 80:
		return fmt.Sprintf("%s.%s.%s.%s", pick(rng, envs), t, d, e)
	case r < 84:
		return fmt.Sprintf("connect-%s-%s", t, pick(rng, []string{"offsets", "configs", "status"}))
	case r < 90:
		return fmt.Sprintf("%s-%s-KSTREAM-AGGREGATE-STATE-STORE-%010d-changelog", t, pick(rng, apps), rng.IntN(100))
	case r < 94:
		return fmt.Sprintf("%s-%s-KSTREAM-REPARTITION-%010d-repartition", t, pick(rng, apps), rng.IntN(100))
	case r < 97:
		return fmt.Sprintf("%s%s%s", title(d), title(e), "Event")
	default:
		return fmt.Sprintf("%s.%s.%s.dlq", t, pick(rng, apps), d)
	}
}

func title(s string) string {
	if s == "" {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

// userName draws a SASL user name. Several shapes need URL-encoding in
// /config/users: e-mail addresses, X.500 names with '=' ',' and spaces,
// plain spaces, '~' '*' and non-ASCII letters.
func userName(rng *rand.Rand) string {
	switch r := rng.IntN(100); {
	case r < 62:
		return fmt.Sprintf("svc-%s-%s", pick(rng, teams), pick(rng, apps))
	case r < 74:
		return fmt.Sprintf("%s.%s@corp.example.com", pick(rng, first), pick(rng, last))
	case r < 84:
		return fmt.Sprintf("CN=%s.%s.svc,OU=%s,O=Example Corp,C=US", pick(rng, apps), pick(rng, teams), pick(rng, teams))
	case r < 88:
		return fmt.Sprintf("%s batch user", title(pick(rng, teams)))
	case r < 91:
		return fmt.Sprintf("ops~%s*", pick(rng, first))
	case r < 94:
		return pick(rng, []string{"jürgen.müller", "françois.dupont", "søren.kierkegaard", "josé.núñez"})
	case r < 97:
		return fmt.Sprintf("%s+%s/%s", pick(rng, first), pick(rng, teams), pick(rng, apps))
	default:
		return fmt.Sprintf("app_%d", rng.IntN(1000))
	}
}

// clientID draws a client.id: Java client defaults, application names and a
// few that need encoding.
func clientID(rng *rand.Rand) string {
	switch r := rng.IntN(100); {
	case r < 35:
		return fmt.Sprintf("%s-%s-producer", pick(rng, teams), pick(rng, apps))
	case r < 65:
		return fmt.Sprintf("consumer-%s.%s-%d", pick(rng, teams), pick(rng, apps), 1+rng.IntN(8))
	case r < 80:
		return fmt.Sprintf("%s.%s", pick(rng, teams), pick(rng, apps))
	case r < 88:
		return "rdkafka"
	case r < 93:
		return fmt.Sprintf("%s %s (prod)", pick(rng, teams), pick(rng, apps))
	case r < 97:
		return fmt.Sprintf("%s~%d", pick(rng, apps), rng.IntN(100))
	default:
		return fmt.Sprintf("%s*%s", pick(rng, teams), pick(rng, apps))
	}
}

func groupName(rng *rand.Rand) string {
	switch r := rng.IntN(10); {
	case r < 6:
		return fmt.Sprintf("%s.%s-consumer", pick(rng, teams), pick(rng, apps))
	case r < 8:
		return fmt.Sprintf("%s-%s", pick(rng, teams), pick(rng, apps))
	default:
		return fmt.Sprintf("connect-%s-%s-sink", pick(rng, teams), pick(rng, domains))
	}
}

func transactionalID(rng *rand.Rand) string {
	return fmt.Sprintf("%s-%s-tx-%d", pick(rng, teams), pick(rng, apps), rng.IntN(64))
}

func ipv4(rng *rand.Rand) string {
	return fmt.Sprintf("10.%d.%d.%d", rng.IntN(256), rng.IntN(256), 1+rng.IntN(254))
}

func ipv6(rng *rand.Rand) string {
	return fmt.Sprintf("2001:db8:%x::%x", rng.IntN(0x10000), 1+rng.IntN(0xffff))
}
