package cliflags

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseBrokerIDMap parses --broker-id-map "1=101,2=102": source broker id
// to target broker id.
func ParseBrokerIDMap(s string) (map[int32]int32, error) {
	if s == "" {
		return nil, nil
	}
	m := map[int32]int32{}
	for _, pair := range strings.Split(s, ",") {
		pair = strings.TrimSpace(pair)
		if pair == "" {
			continue
		}
		from, to, ok := strings.Cut(pair, "=")
		if !ok {
			return nil, fmt.Errorf("--broker-id-map: %q is not from=to", pair)
		}
		f, err1 := strconv.ParseInt(from, 10, 32)
		t, err2 := strconv.ParseInt(to, 10, 32)
		if err1 != nil || err2 != nil || f < 0 || t < 0 {
			return nil, fmt.Errorf("--broker-id-map: %q: broker ids must be non-negative integers", pair)
		}
		if _, dup := m[int32(f)]; dup {
			return nil, fmt.Errorf("--broker-id-map: broker %d mapped twice", f)
		}
		m[int32(f)] = int32(t)
	}
	return m, nil
}
