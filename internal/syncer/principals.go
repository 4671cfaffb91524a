package syncer

import "sync"

// principalCache remembers what a Principals answered: a change round with
// a principal map looks up every source user of the model (Config.
// Principals, decoded.merged), and a map's rules are regular expressions.
// It forgets everything once it holds principalCacheMax names of a kind,
// so a long sync over ever new names does not grow it without bound.
type principalCache struct {
	p          Principals
	mu         sync.Mutex
	users      map[string]string
	principals map[string]string
}

const principalCacheMax = 1 << 16

func newPrincipalCache(p Principals) *principalCache {
	return &principalCache{p: p, users: map[string]string{}, principals: map[string]string{}}
}

func (c *principalCache) TargetUser(name string) string {
	return c.lookup(c.users, name, c.p.TargetUser)
}

func (c *principalCache) TargetPrincipal(p string) string {
	return c.lookup(c.principals, p, c.p.TargetPrincipal)
}

func (c *principalCache) lookup(m map[string]string, k string, f func(string) string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := m[k]
	if !ok {
		if len(m) >= principalCacheMax {
			clear(m)
		}
		v = f(k)
		m[k] = v
	}
	return v
}
