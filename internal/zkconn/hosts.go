package zkconn

import (
	"math/rand/v2"
	"slices"
	"sync"
)

// namedHosts is a go-zookeeper HostProvider that hands out the connect
// string's host:port entries as written, in a shuffled order. go-zookeeper's
// default provider resolves names to IP addresses first, so the dialer saw
// only addresses and TLS hostname verification failed against
// certificates that name the host, as ZooKeeper's usually do. Names are
// resolved by the dialer instead.
type namedHosts struct {
	mu         sync.Mutex
	servers    []string
	curr, last int
}

func (h *namedHosts) Init(servers []string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.servers = slices.Clone(servers)
	rand.Shuffle(len(h.servers), func(i, j int) { h.servers[i], h.servers[j] = h.servers[j], h.servers[i] })
	h.curr, h.last = -1, -1
	return nil
}

func (h *namedHosts) Len() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.servers)
}

// Next returns the next server; retryStart is true once every server has
// been tried since the last successful connection.
func (h *namedHosts) Next() (server string, retryStart bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.curr = (h.curr + 1) % len(h.servers)
	retryStart = h.curr == h.last
	if h.last == -1 {
		h.last = 0
	}
	return h.servers[h.curr], retryStart
}

func (h *namedHosts) Connected() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.last = h.curr
}
