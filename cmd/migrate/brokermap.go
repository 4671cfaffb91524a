package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/zkmigrate/zkmigrate/internal/plan"
)

// parseBrokerIDMap parses --broker-id-map "1=101,2=102": source broker id
// to target broker id.
func parseBrokerIDMap(s string) (map[int32]int32, error) {
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

// optionFlags are the flags of the plan options a *plan.Error can name (by
// their names in plan.Options' JSON).
var optionFlags = map[string]string{
	"broker_id_map": "--broker-id-map",
	"topics":        "--topics",
	"principals":    "--principals",
	"placement":     "--placement",
}

// sideFlags are the flags that choose each side of a plan.
var sideFlags = map[string]string{"source": "--zookeeper, --zk-data-dir or --snapshot", "target": "--bootstrap-server"}

// planErrorText renders a *plan.Error in err with the flag of the option it
// names ("--broker-id-map has no entry for source broker 3, ..."), and a
// *plan.EndpointError with the flags of its side; other errors as they are.
func planErrorText(err error) string {
	var ee *plan.EndpointError
	if errors.As(err, &ee) {
		if flags, ok := sideFlags[ee.Side]; ok {
			return strings.Replace(err.Error(), ee.Msg, ee.Msg+" ("+flags+")", 1)
		}
	}
	var pe *plan.Error
	if !errors.As(err, &pe) || pe.Option == "" {
		return err.Error()
	}
	flag, ok := optionFlags[pe.Option]
	if !ok {
		flag = "option " + pe.Option
	}
	return strings.Replace(err.Error(), pe.Error(), "plan: "+flag+" "+pe.Msg, 1)
}
