package zkgen

import (
	"math/rand/v2"
	"strconv"
)

// brokerConfigs writes /config/brokers/<default> and one per broker. Each
// broker carries an encrypted keystore password; broker 1 also an encrypted
// sasl.jaas.config.
func (g *gen) brokerConfigs(emit func([]Node) error) error {
	rng := g.rng(3)
	def := map[string]string{
		"log.retention.ms":           "604800000",
		"min.insync.replicas":        "2",
		"log.cleaner.threads":        "2",
		"max.connections.per.ip":     "1000",
		"log.message.format.version": "2.8", // removed in Kafka 4.0
	}
	if err := emit([]Node{{"/config/brokers/" + Default, configZNode(def)}}); err != nil {
		return err
	}
	g.sum.BrokerConfigs++
	secret := g.cfg.encoderSecret()
	for id := 1; id <= g.cfg.Brokers; id++ {
		cfg := map[string]string{
			"leader.replication.throttled.rate":   strconv.Itoa((10 + rng.IntN(90)) * 1048576),
			"follower.replication.throttled.rate": strconv.Itoa((10 + rng.IntN(90)) * 1048576),
			"listener.name.sasl_ssl.ssl.keystore.password": encryptPassword(rng, secret,
				"zkgen-keystore-"+strconv.Itoa(id)+"-"+strconv.FormatInt(g.cfg.Seed, 36)),
		}
		g.sum.BrokerPasswords++
		if id == 1 {
			cfg["listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config"] = encryptPassword(rng, secret,
				`org.apache.kafka.common.security.scram.ScramLoginModule required username="broker" password="zkgen-broker-`+strconv.FormatInt(g.cfg.Seed, 36)+`";`)
			g.sum.BrokerPasswords++
		}
		if rng.IntN(2) == 0 {
			cfg["log.cleaner.io.max.bytes.per.second"] = strconv.Itoa((50 + rng.IntN(50)) * 1048576)
		}
		if err := emit([]Node{{"/config/brokers/" + strconv.Itoa(id), configZNode(cfg)}}); err != nil {
			return err
		}
		g.sum.BrokerConfigs++
	}
	return nil
}

// userNode is one /config/users/<u> znode in the making.
type userNode struct {
	name    string            // raw name, or Default
	cfg     map[string]string // nil: a parent created only for /clients children (null data)
	clients []clientQuota
	seen    map[string]bool
}

type clientQuota struct {
	name string // raw client id, or Default
	cfg  map[string]string
}

func entityPath(name string) string {
	if name == Default {
		return Default
	}
	return Sanitize(name)
}

func quotaConfig(rng *rand.Rand) map[string]string {
	cfg := map[string]string{}
	mb := func() string { return strconv.Itoa((1 + rng.IntN(100)) * 1048576) }
	if rng.IntN(100) < 70 {
		cfg["producer_byte_rate"] = mb()
	}
	if rng.IntN(100) < 60 || len(cfg) == 0 {
		cfg["consumer_byte_rate"] = mb()
	}
	if rng.IntN(100) < 20 {
		cfg["request_percentage"] = pick(rng, []string{"25.0", "50.0", "100.0", "200.0"})
	}
	if rng.IntN(100) < 8 {
		cfg["controller_mutation_rate"] = pick(rng, []string{"5.0", "10.0", "50.0"})
	}
	return cfg
}

// quotasAndUsers writes SCRAM users, user / client-id / user+client-id / ip
// quota entities (the first of each shape is the <default> entity when
// there are at least ten entities).
func (g *gen) quotasAndUsers(emit func([]Node) error) error {
	rng := g.rng(4)
	q := g.cfg.QuotaEntities
	nIP, nUC, nClient := q/10, q/5, 3*q/10
	nUser := q - nIP - nUC - nClient
	defaults := q >= 10

	var users []*userNode
	byName := map[string]*userNode{}
	userTaken := uniq{Default: true}
	newUser := func(name string) *userNode {
		u := &userNode{name: name, seen: map[string]bool{}}
		users = append(users, u)
		byName[name] = u
		return u
	}

	// SCRAM users
	var pool [2][]string
	if g.cfg.ScramUsers > 0 {
		pool = scramPool(g.cfg.Seed, min(ScramPoolSize, g.cfg.ScramUsers))
	}
	var scram []*userNode
	for range g.cfg.ScramUsers {
		u := newUser(userTaken.take(userName(rng), "-"))
		u.cfg = map[string]string{}
		var mechs []int
		switch r := rng.IntN(10); {
		case r < 5:
			mechs = []int{0, 1}
		case r < 8:
			mechs = []int{1}
		default:
			mechs = []int{0}
		}
		for _, m := range mechs {
			u.cfg[scramMechs[m].name] = pool[m][rng.IntN(len(pool[m]))]
			g.sum.ScramCredentials++
		}
		g.sum.ScramUsers++
		scram = append(scram, u)
		g.userNames = append(g.userNames, u.name)
	}

	// user quotas: the default, then a quarter on SCRAM users, then new users
	for i := range nUser {
		var u *userNode
		switch overlap := min(nUser/4, len(scram)); {
		case i == 0 && defaults:
			u = newUser(Default)
			u.cfg = map[string]string{}
			g.sum.Quotas.Defaults++
		case i-1 < overlap && i >= 1:
			u = scram[i-1]
		default:
			u = newUser(userTaken.take(userName(rng), "-"))
			u.cfg = map[string]string{}
		}
		for k, v := range quotaConfig(rng) {
			u.cfg[k] = v
		}
		g.sum.Quotas.User++
	}

	// user+client-id quotas
	for i := range nUC {
		var u *userNode
		client := ""
		switch r := rng.IntN(100); {
		case i == 0 && defaults:
			u, client = byName[Default], Default
			if u == nil {
				u = newUser(Default) // null-data parent
			}
		case r < 10:
			if u = byName[Default]; u == nil {
				u = newUser(Default)
			}
		case r < 55 && len(users) > 0:
			u = users[rng.IntN(len(users))]
		default:
			u = newUser(userTaken.take(userName(rng), "-")) // parent only, null data
		}
		if client == "" {
			if rng.IntN(100) < 5 && !u.seen[Default] {
				client = Default
			} else {
				client = clientID(rng)
				for i := 2; u.seen[client]; i++ {
					client = clientID(rng) + "-" + strconv.Itoa(i)
				}
			}
		}
		u.seen[client] = true
		u.clients = append(u.clients, clientQuota{client, quotaConfig(rng)})
		if u.name == Default || client == Default {
			g.sum.Quotas.Defaults++
		}
		g.sum.Quotas.UserClient++
	}
	for _, u := range users {
		base := "/config/users/" + entityPath(u.name)
		n := []Node{{Path: base}}
		if u.cfg != nil {
			n[0].Data = configZNode(u.cfg)
		}
		if len(u.clients) > 0 {
			n = append(n, Node{Path: base + "/clients"})
			for _, c := range u.clients {
				n = append(n, Node{base + "/clients/" + entityPath(c.name), configZNode(c.cfg)})
			}
		}
		if err := emit(n); err != nil {
			return err
		}
	}

	// client-id quotas
	clientTaken := uniq{Default: true}
	for i := range nClient {
		name := Default
		if i == 0 && defaults {
			g.sum.Quotas.Defaults++
		} else {
			name = clientTaken.take(clientID(rng), "-")
		}
		if err := emit([]Node{{"/config/clients/" + entityPath(name), configZNode(quotaConfig(rng))}}); err != nil {
			return err
		}
		g.sum.Quotas.Client++
	}

	// ip quotas: IPv4 stored raw (AdminZkClient.changeIpConfig), IPv6
	// sanitized (the admin API path)
	ipTaken := uniq{Default: true}
	for i := range nIP {
		node := Default
		if i == 0 && defaults {
			g.sum.Quotas.Defaults++
		} else {
			ip := ipv4(rng)
			if rng.IntN(100) >= 85 {
				ip = ipv6(rng)
			}
			for ipTaken[ip] {
				ip = ipv4(rng)
			}
			ipTaken[ip] = true
			node = Sanitize(ip) // a no-op for IPv4
		}
		cfg := map[string]string{"connection_creation_rate": strconv.Itoa(5 + rng.IntN(200))}
		if err := emit([]Node{{"/config/ips/" + node, configZNode(cfg)}}); err != nil {
			return err
		}
		g.sum.Quotas.IP++
	}
	return nil
}
