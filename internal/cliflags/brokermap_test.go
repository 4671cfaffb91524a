package cliflags

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
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
		got, err := ParseBrokerIDMap(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.HasPrefix(err.Error(), "--broker-id-map: ") {
				t.Errorf("ParseBrokerIDMap(%q) error = %v, want --broker-id-map: ...%s", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !cmp.Equal(got, tt.want) {
			t.Errorf("ParseBrokerIDMap(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
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
		m, err := ParseBrokerIDMap(s)
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
