package zkread

import "unicode/utf8"

// topicJSON is the decoded /brokers/topics/<t> znode.
type topicJSON struct {
	Version    flexInt            `json:"version"`
	Partitions map[string][]int32 `json:"partitions"`
	Adding     map[string][]int32 `json:"adding_replicas"`
	Removing   map[string][]int32 `json:"removing_replicas"`
	TopicID    *string            `json:"topic_id"`
}

// decodeTopic decodes a topic znode. Topic znodes are the most numerous
// the reader decodes, so the exact shape Kafka writes takes a fast path;
// anything else (escapes, unknown keys, null, other spellings) goes through
// encoding/json, which decides. FuzzTopicFastPath checks that both agree.
func decodeTopic(data []byte) (topicJSON, error) {
	if z, ok := fastTopic(data); ok {
		return z, nil
	}
	var z topicJSON
	return z, decodeJSON(data, &z)
}

type scanner struct {
	b []byte
	i int
}

func (s *scanner) ws() {
	for s.i < len(s.b) && (s.b[s.i] == ' ' || s.b[s.i] == '\t' || s.b[s.i] == '\n' || s.b[s.i] == '\r') {
		s.i++
	}
}

func (s *scanner) next(c byte) bool {
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

func (s *scanner) peek(c byte) bool {
	s.ws()
	return s.i < len(s.b) && s.b[s.i] == c
}

// str reads a string without escapes or control characters.
func (s *scanner) str() (string, bool) {
	if !s.next('"') {
		return "", false
	}
	start := s.i
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			v := s.b[start:s.i]
			s.i++
			if !utf8.Valid(v) {
				return "", false
			}
			return string(v), true
		case c == '\\' || c < 0x20:
			return "", false
		}
		s.i++
	}
	return "", false
}

// int reads an integer in int32 range (no fraction, exponent or leading
// zero).
func (s *scanner) int() (int64, bool) {
	s.ws()
	neg := false
	if s.i < len(s.b) && s.b[s.i] == '-' {
		neg = true
		s.i++
	}
	start := s.i
	var n int64
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		n = n*10 + int64(s.b[s.i]-'0')
		if n > 1<<31 {
			return 0, false
		}
		s.i++
	}
	digits := s.i - start
	if digits == 0 || digits > 1 && s.b[start] == '0' {
		return 0, false
	}
	if s.i < len(s.b) && (s.b[s.i] == '.' || s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		return 0, false
	}
	if neg {
		n = -n
	}
	if n > 1<<31-1 || n < -1<<31 {
		return 0, false
	}
	return n, true
}

func (s *scanner) ints() ([]int32, bool) {
	if !s.next('[') {
		return nil, false
	}
	out := []int32{}
	if s.next(']') {
		return out, true
	}
	for {
		n, ok := s.int()
		if !ok {
			return nil, false
		}
		out = append(out, int32(n))
		if s.next(']') {
			return out, true
		}
		if !s.next(',') {
			return nil, false
		}
	}
}

func (s *scanner) partitionMap() (map[string][]int32, bool) { return scanMap(s, s.ints) }

// scanMap reads {"k":value,...}, each value read by value.
func scanMap[V any](s *scanner, value func() (V, bool)) (map[string]V, bool) {
	if !s.next('{') {
		return nil, false
	}
	m := map[string]V{}
	if s.next('}') {
		return m, true
	}
	for {
		k, ok := s.str()
		if !ok || !s.next(':') {
			return nil, false
		}
		v, ok := value()
		if !ok {
			return nil, false
		}
		m[k] = v
		if s.next('}') {
			return m, true
		}
		if !s.next(',') {
			return nil, false
		}
	}
}

func fastTopic(data []byte) (topicJSON, bool) {
	var z topicJSON
	s := &scanner{b: data}
	if !s.next('{') || s.peek('}') {
		return z, false
	}
	var seen [5]bool // version, partitions, adding, removing, topic_id
	for {
		k, ok := s.str()
		if !ok || !s.next(':') {
			return z, false
		}
		i := topicKeyIndex(k)
		if i < 0 || seen[i] {
			return z, false
		}
		seen[i] = true
		switch k {
		case "version":
			v, ok := s.int()
			if !ok {
				return z, false
			}
			z.Version = flexInt{v: v, set: true}
		case "partitions":
			if z.Partitions, ok = s.partitionMap(); !ok {
				return z, false
			}
		case "adding_replicas":
			if z.Adding, ok = s.partitionMap(); !ok {
				return z, false
			}
		case "removing_replicas":
			if z.Removing, ok = s.partitionMap(); !ok {
				return z, false
			}
		case "topic_id":
			id, ok := s.str()
			if !ok {
				return z, false
			}
			z.TopicID = &id
		default:
			return z, false
		}
		if s.next('}') {
			break
		}
		if !s.next(',') {
			return z, false
		}
	}
	s.ws()
	if s.i != len(s.b) {
		return z, false
	}
	return z, true
}

func topicKeyIndex(k string) int {
	switch k {
	case "version":
		return 0
	case "partitions":
		return 1
	case "adding_replicas":
		return 2
	case "removing_replicas":
		return 3
	case "topic_id":
		return 4
	}
	return -1
}

// configJSON is a decoded /config/<type>/<entity> znode.
type configJSON struct {
	Version flexInt           `json:"version"`
	Config  map[string]string `json:"config"`
}

// fastConfig decodes {"version":1,"config":{"k":"v",...}} in the exact
// shape Kafka writes; anything else is left to encoding/json.
func fastConfig(data []byte) (configJSON, bool) {
	var z configJSON
	var ok bool
	z.Version, ok = versionedObject(data, "config", func(s *scanner) bool {
		z.Config, ok = scanMap(s, s.str)
		return ok
	})
	return z, ok
}

// versionedObject scans {"version":N,"<key>":...} with each key at most
// once, in either order and nothing else; body reads key's value.
func versionedObject(data []byte, key string, body func(*scanner) bool) (flexInt, bool) {
	var v flexInt
	s := &scanner{b: data}
	if !s.next('{') || s.peek('}') {
		return v, false
	}
	var seenVersion, seenKey bool
	for {
		k, ok := s.str()
		if !ok || !s.next(':') {
			return v, false
		}
		switch {
		case k == "version" && !seenVersion:
			seenVersion = true
			n, ok := s.int()
			if !ok {
				return v, false
			}
			v = flexInt{v: n, set: true}
		case k == key && !seenKey:
			seenKey = true
			if !body(s) {
				return v, false
			}
		default:
			return v, false
		}
		if s.next('}') {
			break
		}
		if !s.next(',') {
			return v, false
		}
	}
	s.ws()
	return v, s.i == len(s.b)
}

// aclsJSON is a decoded ACL znode.
type aclsJSON struct {
	Version flexInt        `json:"version"`
	ACLs    []aclEntryJSON `json:"acls"`
}

type aclEntryJSON struct {
	Principal  string `json:"principal"`
	Permission string `json:"permissionType"`
	Operation  string `json:"operation"`
	Host       string `json:"host"`
}

// decodeACLs decodes an ACL znode, taking the fast path for the exact
// shape Kafka writes. FuzzACLFastPath checks that both paths agree.
func decodeACLs(data []byte) (aclsJSON, error) {
	if z, ok := fastACLs(data); ok {
		return z, nil
	}
	var z aclsJSON
	return z, decodeJSON(data, &z)
}

// fastACLs decodes {"version":1,"acls":[{"principal":..,"permissionType":..,
// "operation":..,"host":..},...]} with each key at most once; anything else
// is left to encoding/json.
func fastACLs(data []byte) (aclsJSON, bool) {
	var z aclsJSON
	var ok bool
	z.Version, ok = versionedObject(data, "acls", func(s *scanner) bool {
		z.ACLs, ok = s.aclEntries()
		return ok
	})
	return z, ok
}

func (s *scanner) aclEntries() ([]aclEntryJSON, bool) {
	if !s.next('[') {
		return nil, false
	}
	out := []aclEntryJSON{}
	if s.next(']') {
		return out, true
	}
	for {
		e, ok := s.aclEntry()
		if !ok {
			return nil, false
		}
		out = append(out, e)
		if s.next(']') {
			return out, true
		}
		if !s.next(',') {
			return nil, false
		}
	}
}

func (s *scanner) aclEntry() (aclEntryJSON, bool) {
	var e aclEntryJSON
	if !s.next('{') {
		return e, false
	}
	if s.next('}') {
		return e, true
	}
	var seen [4]bool
	for {
		k, ok := s.str()
		if !ok || !s.next(':') {
			return e, false
		}
		v, ok := s.str()
		if !ok {
			return e, false
		}
		var i int
		switch k {
		case "principal":
			i, e.Principal = 0, v
		case "permissionType":
			i, e.Permission = 1, v
		case "operation":
			i, e.Operation = 2, v
		case "host":
			i, e.Host = 3, v
		default:
			return e, false
		}
		if seen[i] {
			return e, false
		}
		seen[i] = true
		if s.next('}') {
			return e, true
		}
		if !s.next(',') {
			return e, false
		}
	}
}
