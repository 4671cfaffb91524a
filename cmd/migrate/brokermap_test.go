package main

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zkmigrate/zkmigrate/internal/plan"
)

func TestParseBrokerIDMap(t *testing.T) {
	tests := []struct {
		in      string
		want    map[int32]int32
		wantErr string
	}{
		{"", nil, ""},
		{"1=101, 2=102", map[int32]int32{1: 101, 2: 102}, ""},
		{"1=101,,", map[int32]int32{1: 101}, ""},
		{"1", nil, `"1" is not from=to`},
		{"a=1", nil, "non-negative integers"},
		{"1=-2", nil, "non-negative integers"},
		{"1=2,1=3", nil, "broker 1 mapped twice"},
	}
	for _, tt := range tests {
		got, err := parseBrokerIDMap(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.HasPrefix(err.Error(), "--broker-id-map: ") {
				t.Errorf("parseBrokerIDMap(%q) error = %v, want --broker-id-map: ...%s", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !cmp.Equal(got, tt.want) {
			t.Errorf("parseBrokerIDMap(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}

// FuzzParseBrokerIDMap: any flag value parses or is refused by name, and a
// parsed map holds only non-negative ids.
func FuzzParseBrokerIDMap(f *testing.F) {
	for _, s := range []string{"1=101,2=102", "", "1", "1=2,1=3", " 3 = 4 "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := parseBrokerIDMap(s)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "--broker-id-map: ") {
				t.Fatalf("error %q does not name the flag", err)
			}
			return
		}
		for from, to := range m {
			if from < 0 || to < 0 {
				t.Fatalf("%q parsed to %d=%d", s, from, to)
			}
		}
	})
}

// TestPlanErrorText: a plan error that names an option is shown with the
// flag of that option, and an endpoint error with the flags of its side,
// also when wrapped.
func TestPlanErrorText(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{&plan.Error{Option: "broker_id_map", Msg: "has no entry for source broker 3"}, "plan: --broker-id-map has no entry for source broker 3"},
		{fmt.Errorf("computing: %w", &plan.Error{Option: "topics", Msg: `"(": bad`}), `computing: plan: --topics "(": bad`},
		{&plan.Error{Msg: "source and target snapshots are required"}, "plan: source and target snapshots are required"},
		{&plan.Error{Option: "new_thing", Msg: "is bad"}, "plan: option new_thing is bad"},
		{fmt.Errorf("plan.json: %w", &plan.EndpointError{Side: "target", Msg: "give the target the plan was made against"}), "plan.json: give the target the plan was made against (--bootstrap-server)"},
		{&plan.EndpointError{Side: "source", Msg: "give the source the plan was made from"}, "give the source the plan was made from (--zookeeper, --zk-data-dir or --snapshot)"},
		{errors.New("other"), "other"},
	}
	for _, tt := range tests {
		if got := planErrorText(tt.err); got != tt.want {
			t.Errorf("planErrorText(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}
