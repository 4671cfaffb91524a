package jsonfile_test

import (
	"bytes"
	"encoding/json"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"

	"github.com/zkmigrate/zkmigrate/internal/jsonfile"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// fastCases are elements in and just outside the plain form the element
// decoders take (fast.go); each must decode as json.Unmarshal decodes it,
// by the decoder or by json.Unmarshal after it gives up.
var fastCases = []struct{ name, in string }{
	{"plain", `{"topics": [{"name": "a", "id": "x", "partitions": [{"id": 0, "replicas": [1, 2]}], "configs": [{"key": "k", "value": "v"}], "internal": true}]}`},
	{"compact", `{"topics":[{"name":"a","partitions":[{"id":0,"replicas":[1,2],"adding":[3],"removing":[],"state":{"leader":1,"leader_epoch":2,"isr":[1],"controller_epoch":3,"leader_recovery_state":1,"partition_epoch":4}}]}]}`},
	{"whitespace everywhere", "{\"topics\" :\t[ { \"name\" : \"a\" ,\r\n \"partitions\" : [ { \"id\" : 0 , \"replicas\" : [ 1 , 2 ] } ] } ] }"},
	{"empty lists", `{"topics": [{"name": "a", "partitions": [], "configs": []}], "acls": [], "pending_deletes": []}`},
	{"null list", `{"topics": [{"name": "a", "partitions": null}]}`},
	{"null string", `{"acls": [{"resource_type": null, "principal": "User:a"}]}`},
	{"null state", `{"topics": [{"name": "a", "partitions": [{"id": 0, "replicas": [1], "state": null}]}]}`},
	{"escapes", `{"acls": [{"principal": "User:\u003ca\u0026b\u003e", "host": "\"*\"\\\/\n"}]}`},
	{"surrogates", `{"acls": [{"principal": "User:\ud83d\ude00", "host": "\ud800"}]}`},
	{"utf-8", `{"acls": [{"principal": "User:zoë", "host": "日本"}], "pending_deletes": ["é"]}`},
	{"invalid utf-8", "{\"acls\": [{\"principal\": \"User:\xff\xfe\", \"host\": \"a\xc3\"}], \"pending_deletes\": [\"\xe2\x82\"]}"},
	{"control character", "{\"acls\": [{\"principal\": \"a\tb\"}]}"},
	{"del character", "{\"acls\": [{\"principal\": \"a\x7fb\"}]}"},
	{"unknown key", `{"acls": [{"principal": "a", "extra": [1, {"x": "}"}]}]}`},
	{"key in other case", `{"acls": [{"Principal": "a", "HOST": "h"}]}`},
	{"key with escape", `{"acls": [{"princip\u0061l": "a"}]}`},
	{"duplicate key", `{"acls": [{"principal": "a", "principal": "b"}]}`},
	{"duplicate list key", `{"topics": [{"name": "a", "partitions": [{"id": 0, "replicas": [1, 2, 3]}], "partitions": [{"replicas": [4]}]}]}`},
	{"int32 limits", `{"topics": [{"name": "a", "partitions": [{"id": 2147483647, "replicas": [-2147483648, 0, -0]}]}]}`},
	{"int32 overflow", `{"topics": [{"name": "a", "partitions": [{"id": 2147483648, "replicas": [1]}]}]}`},
	{"int32 underflow", `{"topics": [{"name": "a", "partitions": [{"id": 0, "replicas": [-2147483649]}]}]}`},
	{"int8 limits", `{"topics": [{"name": "a", "partitions": [{"id": 0, "replicas": [], "state": {"leader_recovery_state": -128}}, {"id": 1, "replicas": [], "state": {"leader_recovery_state": 128}}]}]}`},
	{"int64", `{"delegation_tokens": [{"token_id": "t", "issue_timestamp": 9223372036854775807, "max_timestamp": -9223372036854775808, "expiry_timestamp": 99999999999999999999}]}`},
	{"fraction", `{"topics": [{"name": "a", "partitions": [{"id": 1.0, "replicas": [1]}]}]}`},
	{"exponent", `{"topics": [{"name": "a", "partitions": [{"id": 1e2, "replicas": [1E0]}]}]}`},
	{"leading zero", `{"topics": [{"name": "a", "partitions": [{"id": 01, "replicas": [1]}]}]}`},
	{"minus alone", `{"topics": [{"name": "a", "partitions": [{"id": -, "replicas": [1]}]}]}`},
	{"plus sign", `{"topics": [{"name": "a", "partitions": [{"id": +1, "replicas": [1]}]}]}`},
	{"string for int", `{"topics": [{"name": "a", "partitions": [{"id": "1", "replicas": ["1"]}]}]}`},
	{"int for string", `{"topics": [{"name": 1, "partitions": []}], "pending_deletes": [1, "b"]}`},
	{"bool", `{"topics": [{"name": "a", "internal": false}, {"name": "b", "internal": true}]}`},
	{"bad bool", `{"topics": [{"name": "a", "internal": tru}]}`},
	{"bool as string", `{"topics": [{"name": "a", "internal": "true"}]}`},
	{"object for list", `{"topics": [{"name": "a", "partitions": {"id": 0}}]}`},
	{"list for object", `{"topics": [{"name": "a", "partitions": [{"id": 0, "state": [1]}]}]}`},
	{"trailing comma in element", `{"topics": [{"name": "a",}]}`},
	{"trailing comma in list", `{"topics": [{"name": "a", "partitions": [{"id": 0, "replicas": [1,]}]}]}`},
	{"missing comma", `{"topics": [{"name": "a" "id": "b"}]}`},
	{"missing colon", `{"topics": [{"name" "a"}]}`},
	{"unclosed element", `{"topics": [{"name": "a"]}`},
	{"garbage after element", `{"topics": [{"name": "a"}x]}`},
	{"number then garbage", `{"pending_deletes": ["a"], "topics": [{"name": "a", "partitions": [{"id": 0x1}]}]}`},
	{"secret", `{"scram_users": [{"name": "u", "credentials": [{"mechanism": "SCRAM-SHA-256", "iterations": 4096, "secret": {"ref": "r"}}]}], "brokers": [{"id": 1, "endpoints": ["PLAINTEXT://h:1"]}]}`},
	{"quota", `{"quotas": [{"entity": [{"type": "user", "name": "a"}, {"type": "client-id", "default": true}], "values": {"producer_byte_rate": 1.5}}]}`},
	{"truncated", `{"topics": [{"name": "a", "partitions": [{"id": 0, "replicas": [1`},
}

func TestFastDecodeIsUnmarshal(t *testing.T) {
	for _, c := range fastCases {
		t.Run(c.name, func(t *testing.T) {
			var want snapshot.Snapshot
			errWant := json.Unmarshal([]byte(c.in), &want)
			// Whole, and cut into pieces of every size, so that elements
			// run past the end of what is buffered.
			for _, r := range readers(c.in) {
				var got snapshot.Snapshot
				errGot := jsonfile.Decode(r, &got)
				if (errWant == nil) != (errGot == nil) || isTypeError(errWant) != isTypeError(errGot) {
					t.Fatalf("Unmarshal error %v, Decode error %v", errWant, errGot)
				}
				if errWant == nil || isTypeError(errWant) {
					if diff := cmp.Diff(&want, &got, cmpOpts); diff != "" {
						t.Fatalf("(-unmarshal +decode):\n%s", diff)
					}
				}
			}
		})
	}
}

// readers gives s whole, one byte at a time, and in pieces of a few bytes.
func readers(s string) []io.Reader {
	out := []io.Reader{strings.NewReader(s), iotest.OneByteReader(strings.NewReader(s)), iotest.DataErrReader(strings.NewReader(s))}
	for _, n := range []int{2, 3, 7, 13} {
		out = append(out, &pieces{s: s, n: n})
	}
	return out
}

// pieces reads s n bytes at a time.
type pieces struct {
	s string
	n int
}

func (p *pieces) Read(b []byte) (int, error) {
	if p.s == "" {
		return 0, io.EOF
	}
	k := copy(b[:min(len(b), p.n)], p.s)
	p.s = p.s[k:]
	return k, nil
}

// The elements Encode writes most are decoded by their own decoders, not
// left to json.Unmarshal: that is what makes loading a large snapshot fast.
func TestFastDecoderTaken(t *testing.T) {
	for _, ty := range []reflect.Type{reflect.TypeFor[snapshot.Topic](), reflect.TypeFor[snapshot.ACL](), reflect.TypeFor[snapshot.Broker](),
		reflect.TypeFor[snapshot.DelegationToken](), reflect.TypeFor[string](), reflect.TypeFor[plan.Blocker]()} {
		if !jsonfile.HasDecoder(ty) {
			t.Errorf("%v: no decoder of its own", ty)
		}
	}
	for _, ty := range []reflect.Type{reflect.TypeFor[[]byte](),
		reflect.TypeFor[map[string]int](), reflect.TypeFor[float64](), reflect.TypeFor[json.RawMessage](), reflect.TypeFor[any]()} {
		if jsonfile.HasDecoder(ty) {
			t.Errorf("%v: has a decoder of its own, but json.Unmarshal decodes it differently", ty)
		}
	}
	s := largeSnapshot(3000)
	for i := range s.Topics {
		s.Topics[i].Partitions[0].State = &snapshot.PartitionState{Leader: 1, ISR: []int32{1, 2}}
		s.Topics[i].Internal = i%2 == 0
	}
	for _, indent := range []bool{false, true} {
		data := encodeStd(t, s, indent)
		counts, stop := jsonfile.CountFallbacks()
		var got snapshot.Snapshot
		err := jsonfile.Decode(iotest.HalfReader(bytes.NewReader(data)), &got)
		stop()
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(s, &got, cmpOpts); diff != "" {
			t.Fatalf("(-want +got):\n%s", diff)
		}
		for _, ty := range []reflect.Type{reflect.TypeFor[snapshot.Topic](), reflect.TypeFor[snapshot.ACL]()} {
			if counts[ty] > 0 {
				t.Errorf("indent=%v: %d %v elements left to json.Unmarshal", indent, counts[ty], ty)
			}
		}
		if counts[reflect.TypeFor[snapshot.ScramUser]()] != 1 {
			t.Errorf("indent=%v: the SCRAM user (a secret inside) not left to json.Unmarshal: %v", indent, counts)
		}
	}
}
