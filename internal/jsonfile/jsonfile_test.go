package jsonfile_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/klauspost/compress/zstd"

	"github.com/zkmigrate/zkmigrate/internal/infile"
	"github.com/zkmigrate/zkmigrate/internal/jsonfile"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/secret"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

var cmpOpts = cmp.AllowUnexported(secret.Secret{})

// fixtures are files in today's plain-JSON format (written by
// json.Encoder with two-space indentation): snapshots and saved plans.
func fixtures(t testing.TB) (snapshots, plans []string) {
	t.Helper()
	for _, glob := range []string{"../zkread/testdata/golden/*.json", "../check/testdata/legacy.snapshot.json", "../kread/testdata/*.json", "../zkread/testdata/handmade.json"} {
		m, _ := filepath.Glob(glob)
		snapshots = append(snapshots, m...)
	}
	plans, _ = filepath.Glob("../plan/testdata/*.json")
	if len(snapshots) < 5 || len(plans) < 5 {
		t.Fatalf("fixtures missing: %d snapshots, %d plans", len(snapshots), len(plans))
	}
	return snapshots, plans
}

// edge is a struct with the field shapes encoding/json treats specially.
type edge struct {
	Nil      []int                `json:"nil"`
	Empty    []int                `json:"empty"`
	NilOmit  []int                `json:"nil_omit,omitempty"`
	Items    []item               `json:"items,omitempty"`
	Entity   snapshot.QuotaEntity `json:"entity"`
	Secrets  []secret.Secret      `json:"secrets,omitempty"`
	Ptr      *item                `json:"ptr,omitempty"`
	Map      map[string]float64   `json:"map,omitempty"`
	Raw      json.RawMessage      `json:"raw,omitempty"`
	Bytes    []byte               `json:"bytes,omitempty"`
	HTML     string               `json:"html"`
	NoTag    int
	Skipped  int `json:"-"`
	private  int
	Nested   [][]int32 `json:"nested"`
	ZeroLast int       `json:"zero_last,omitempty"`
}

type item struct {
	A string `json:"a"`
	B []int  `json:"b,omitempty"`
}

func edgeValues() []edge {
	return []edge{
		{},
		{Empty: []int{}, Items: []item{}},
		{Nil: nil, Empty: []int{1}, Items: []item{{A: "x"}, {A: "<&>", B: []int{1, 2}}},
			Entity: snapshot.QuotaEntity{{Type: "user", Name: "alice"}}, Secrets: []secret.Secret{secret.New("ref", "value")},
			Ptr: &item{A: "p"}, Map: map[string]float64{"b": 1, "a": 2.5}, Raw: json.RawMessage(`{"k": [1, 2]}`), Bytes: []byte("bin"),
			HTML: "<script>&", NoTag: 7, Skipped: 9, private: 3, Nested: [][]int32{{1, 2}, {}, nil}, ZeroLast: 0},
	}
}

// encodeStd is what the tool wrote before: json.Encoder, indented or not.
func encodeStd(t testing.TB, v any, indent bool) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	if indent {
		enc.SetIndent("", "  ")
	}
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// values decodes every fixture with encoding/json (today's reader).
func values(t testing.TB) map[string]any {
	t.Helper()
	snaps, plans := fixtures(t)
	out := map[string]any{}
	for _, f := range snaps {
		var s snapshot.Snapshot
		if err := json.Unmarshal(readFile(t, f), &s); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[f] = &s
	}
	for _, f := range plans {
		var p plan.Plan
		if err := json.Unmarshal(readFile(t, f), &p); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[f] = &p
	}
	for i, e := range edgeValues() {
		out["edge"+string(rune('0'+i))] = &e
	}
	return out
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestEncodeIsEncodingJSON(t *testing.T) {
	for name, v := range values(t) {
		t.Run(filepath.Base(name), func(t *testing.T) {
			for _, indent := range []bool{false, true} {
				var got bytes.Buffer
				var err error
				if indent {
					err = jsonfile.EncodeIndent(&got, v)
				} else {
					err = jsonfile.Encode(&got, v)
				}
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(string(encodeStd(t, v, indent)), got.String()); diff != "" {
					t.Errorf("indent=%v: differs from json.Encoder (-want +got):\n%s", indent, diff)
				}
			}
		})
	}
}

// TestOldFixturesEncodeUnchanged: the plain snapshot fixtures were
// written by json.Encoder; EncodeIndent of what they decode to gives them
// back. (The plan goldens are plan -o json's view, which adds each
// change's fields to the model: TestEncodeIsEncodingJSON covers them.)
func TestOldFixturesEncodeUnchanged(t *testing.T) {
	snaps, _ := fixtures(t)
	for _, f := range snaps {
		if strings.Contains(f, "/check/") || strings.Contains(f, "handmade.json") {
			continue // written by hand, not by json.Encoder
		}
		v := values(t)[f]
		var got bytes.Buffer
		if err := jsonfile.EncodeIndent(&got, v); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), readFile(t, f)) {
			t.Errorf("%s: EncodeIndent of its decoded value differs from the file", f)
		}
	}
}

func TestDecodeIsUnmarshal(t *testing.T) {
	for name, v := range values(t) {
		t.Run(filepath.Base(name), func(t *testing.T) {
			for _, indent := range []bool{false, true} {
				data := encodeStd(t, v, indent)
				switch v.(type) {
				case *snapshot.Snapshot:
					var got snapshot.Snapshot
					if err := jsonfile.Decode(bytes.NewReader(data), &got); err != nil {
						t.Fatal(err)
					}
					if diff := cmp.Diff(v, &got, cmpOpts); diff != "" {
						t.Errorf("(-unmarshal +decode):\n%s", diff)
					}
				case *plan.Plan:
					var got plan.Plan
					if err := jsonfile.Decode(bytes.NewReader(data), &got); err != nil {
						t.Fatal(err)
					}
					if diff := cmp.Diff(v, &got, cmpOpts); diff != "" {
						t.Errorf("(-unmarshal +decode):\n%s", diff)
					}
				case *edge:
					var want, got edge
					if err := json.Unmarshal(data, &want); err != nil {
						t.Fatal(err)
					}
					if err := jsonfile.Decode(bytes.NewReader(data), &got); err != nil {
						t.Fatal(err)
					}
					if diff := cmp.Diff(want, got, cmpOpts, cmp.AllowUnexported(edge{})); diff != "" {
						t.Errorf("(-unmarshal +decode):\n%s", diff)
					}
				}
			}
		})
	}
}

// TestDecodeEdgeCases compares Decode with json.Unmarshal on inputs that
// are not what Encode writes.
func TestDecodeEdgeCases(t *testing.T) {
	cases := []struct {
		name, in string
		wantErr  bool
	}{
		{"null", `null`, false},
		{"empty object", ` {} `, false},
		{"unknown keys skipped", `{"x": {"y": [1, {"z": 2}]}, "items": [{"a": "1"}], "w": [1]}`, false},
		{"case-insensitive keys", `{"ITEMS": [{"A": "1"}], "Html": "h", "notag": 3}`, false},
		{"duplicate array key replaces", `{"items": [{"a": "1"}, {"a": "2"}], "items": [{"a": "3"}]}`, false},
		{"duplicate struct key merges", `{"ptr": {"a": "1", "b": [1]}, "ptr": {"a": "2"}}`, false},
		{"null array", `{"items": null, "empty": null}`, false},
		{"many elements", `{"items": [` + strings.Repeat(`{"a": "x"},`, 99) + `{"a": "y"}]}`, false},
		{"array of wrong type", `{"items": "no", "html": "kept"}`, true},
		{"array given an object", `{"items": {"a": [1, 2]}, "html": "kept"}`, true},
		{"element of wrong type", `{"items": [{"a": 1}, {"a": "kept"}], "html": "kept"}`, true},
		{"field of wrong type", `{"html": 5, "items": [{"a": "kept"}]}`, true},
		{"huge number as array", `{"items": 1e999, "html": "kept"}`, true},
		{"not an object", `[1, 2]`, true},
		{"a string", `"x"`, true},
		{"truncated", `{"items": [{"a": "1"}`, true},
		{"truncated after key", `{"items"`, true},
		{"missing colon", `{"items" [1]}`, true},
		{"trailing data", `{"html": "x"} {"html": "y"}`, true},
		{"trailing garbage", `{"html": "x"} x`, true},
		{"empty input", ``, true},
		{"comma after last", `{"items": [{"a": "1"},]}`, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var want, got edge
			errWant := json.Unmarshal([]byte(c.in), &want)
			errGot := jsonfile.Decode(strings.NewReader(c.in), &got)
			if (errGot != nil) != c.wantErr || (errWant != nil) != c.wantErr {
				t.Fatalf("errors: Decode %v, Unmarshal %v; want error %v", errGot, errWant, c.wantErr)
			}
			if errWant == nil || isTypeError(errWant) {
				if diff := cmp.Diff(want, got, cmpOpts, cmp.AllowUnexported(edge{})); diff != "" {
					t.Errorf("(-unmarshal +decode):\n%s", diff)
				}
			}
		})
	}
}

func isTypeError(err error) bool {
	_, ok := err.(*json.UnmarshalTypeError)
	return ok
}

// TestWriteRead: every fixture written by Write (zstd) reads back to the
// same value, and the same value comes from the plain, gzip and zstd forms.
func TestWriteRead(t *testing.T) {
	dir := t.TempDir()
	snaps, plans := fixtures(t)
	for _, f := range append(snaps, plans...) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			plain := readFile(t, f)
			gz := filepath.Join(dir, "gz")
			var gb bytes.Buffer
			zw := gzip.NewWriter(&gb)
			zw.Write(plain)
			zw.Close()
			if err := os.WriteFile(gz, gb.Bytes(), 0o600); err != nil {
				t.Fatal(err)
			}
			zs := filepath.Join(dir, "zst")
			enc, _ := zstd.NewWriter(nil)
			if err := os.WriteFile(zs, enc.EncodeAll(plain, nil), 0o600); err != nil {
				t.Fatal(err)
			}
			isPlan := strings.Contains(f, "/plan/")
			newV := func() any {
				if isPlan {
					return &plan.Plan{}
				}
				return &snapshot.Snapshot{}
			}
			want := newV()
			if err := json.Unmarshal(plain, want); err != nil {
				t.Fatal(err)
			}
			written := filepath.Join(dir, "written")
			if err := jsonfile.Write(written, 0o600, want); err != nil {
				t.Fatal(err)
			}
			wb := readFile(t, written)
			if got := jsonfile.Detect(wb); got != jsonfile.Zstd {
				t.Fatalf("Write wrote %s, want zstd", got)
			}
			if fi, _ := os.Stat(written); fi.Mode().Perm() != 0o600 {
				t.Errorf("mode %v, want 0600", fi.Mode().Perm())
			}
			for _, path := range []string{f, gz, zs, written} {
				got := newV()
				if err := jsonfile.Read(path, infile.Snapshot, got); err != nil {
					t.Fatalf("%s: %v", path, err)
				}
				if diff := cmp.Diff(want, got, cmpOpts); diff != "" {
					t.Errorf("%s (-want +got):\n%s", path, diff)
				}
			}
		})
	}
}

func TestReadErrorsNameTheFile(t *testing.T) {
	dir := t.TempDir()
	var full bytes.Buffer
	zw, _ := zstd.NewWriter(&full)
	zw.Write(readFile(t, "../check/testdata/legacy.snapshot.json"))
	zw.Close()
	cases := map[string][]byte{
		"truncated-zstd": full.Bytes()[:full.Len()/2],
		"bad-zstd":       append([]byte{0x28, 0xb5, 0x2f, 0xfd}, bytes.Repeat([]byte{0xff}, 64)...),
		"bad-gzip":       {0x1f, 0x8b, 0, 0},
		"not-json":       []byte("hello"),
		"empty":          {},
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name)
			if err := os.WriteFile(path, data, 0o600); err != nil {
				t.Fatal(err)
			}
			var s snapshot.Snapshot
			err := jsonfile.Read(path, infile.Snapshot, &s)
			if err == nil || !strings.Contains(err.Error(), path) {
				t.Fatalf("Read(%s) = %v, want an error naming the file", name, err)
			}
		})
	}
	if err := jsonfile.Read(filepath.Join(dir, "absent"), infile.Snapshot, &snapshot.Snapshot{}); err == nil {
		t.Error("a missing file read without error")
	}
}

func TestWriteFailureLeavesNoFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out")
	if err := jsonfile.Write(path, 0o600, &struct{ C chan int }{}); err == nil {
		t.Fatal("encoding a channel succeeded")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("a failed write left %v", entries)
	}
}

// FuzzDecode: Decode agrees with json.Unmarshal, the reader of today's
// files, on every input: both fail or both succeed with the same value.
func FuzzDecode(f *testing.F) {
	snaps, plans := fixtures(f)
	for _, p := range append(snaps[:2], plans[:2]...) {
		f.Add(readFile(f, p))
	}
	f.Add([]byte(`{"topics": [{"name": "a", "partitions": [{"id": 0, "replicas": [1]}]}], "TOPICS": null}`))
	f.Add([]byte(`{"changes": [{"id": "x", "after": {"assignment": [[1, 2]]}}], "format": 1}`))
	for _, c := range fastCases {
		f.Add([]byte(c.in))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, mk := range []func() any{func() any { return &snapshot.Snapshot{} }, func() any { return &plan.Plan{} }, func() any { return &edge{} }} {
			want := mk()
			errWant := json.Unmarshal(data, want)
			// Whole, and 5 bytes at a time: elements then run past what
			// is buffered.
			for _, r := range []io.Reader{bytes.NewReader(data), &pieces{s: string(data), n: 5}} {
				got := mk()
				errGot := jsonfile.Decode(r, got)
				if (errWant == nil) != (errGot == nil) {
					t.Fatalf("%T: Unmarshal error %v, Decode error %v", want, errWant, errGot)
				}
				if errWant == nil {
					if diff := cmp.Diff(want, got, cmpOpts, cmp.AllowUnexported(edge{})); diff != "" {
						t.Fatalf("%T (-unmarshal +decode):\n%s", want, diff)
					}
				}
			}
		}
	})
}

// largeSnapshot has arrays of several batches, so that encoding and
// decoding run on every processor.
func largeSnapshot(n int) *snapshot.Snapshot {
	s := &snapshot.Snapshot{Format: 1, Source: snapshot.SourceZooKeeper}
	for i := range n {
		s.Topics = append(s.Topics, snapshot.Topic{Name: fmt.Sprintf("t-%05d", i), Partitions: []snapshot.Partition{{ID: 0, Replicas: []int32{1, int32(i % 7)}}},
			Configs: []snapshot.Config{{Key: "retention.ms", Value: fmt.Sprint(i)}}})
		s.ACLs = append(s.ACLs, snapshot.ACL{ResourceType: "Topic", ResourceName: fmt.Sprintf("t-%05d", i), PatternType: "LITERAL", Principal: "User:<a&b>", Host: "*", Operation: "Read", Permission: "Allow"})
	}
	ref := secret.Ref("zookeeper:/config/users/u#SCRAM-SHA-256")
	s.ScramUsers = []snapshot.ScramUser{{Name: "u", Credentials: []snapshot.ScramCredential{{Mechanism: "SCRAM-SHA-256", Iterations: 4096, Secret: &ref}}}}
	return s
}

func TestLargeArraysInBatches(t *testing.T) {
	s := largeSnapshot(3*512 + 17)
	for _, indent := range []bool{false, true} {
		var got bytes.Buffer
		enc := jsonfile.Encode
		if indent {
			enc = jsonfile.EncodeIndent
		}
		if err := enc(&got, s); err != nil {
			t.Fatal(err)
		}
		want := encodeStd(t, s, indent)
		if !bytes.Equal(got.Bytes(), want) {
			t.Fatalf("indent=%v: batched encoding differs from json.Encoder", indent)
		}
		var dec snapshot.Snapshot
		if err := jsonfile.Decode(bytes.NewReader(want), &dec); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(s, &dec, cmpOpts); diff != "" {
			t.Fatalf("indent=%v: batched decoding (-want +got):\n%s", indent, diff)
		}
	}
}

// TestLargeArrayErrors: errors deep in a large array are reported as
// json.Unmarshal reports them: a type error after decoding the rest, a
// syntax error or a failing UnmarshalJSON as an error.
func TestLargeArrayErrors(t *testing.T) {
	var b bytes.Buffer
	if err := jsonfile.Encode(&b, largeSnapshot(2000)); err != nil {
		t.Fatal(err)
	}
	good := b.String()
	nth := func(s, sub string, n int) int { // index of the n-th occurrence
		at := -1
		for range n {
			at += 1 + strings.Index(s[at+1:], sub)
		}
		return at
	}
	typeErr := good[:nth(good, `"name":"t-`, 1500)] + `"name":15,"x":"` + good[nth(good, `"name":"t-`, 1500)+len(`"name":"`):]
	syntax := good[:nth(good, `"principal"`, 1300)] + `"principal" "x",` + good[nth(good, `"principal"`, 1300)+len(`"principal":`):]
	badSecret := strings.Replace(good, `"secret":{"ref":"`, `"secret":{"ref":7,"x":"`, 1)
	cases := map[string]string{"type error at 1500": typeErr, "syntax error at 1300": syntax, "secret of the wrong type": badSecret}
	for name, in := range cases {
		t.Run(name, func(t *testing.T) {
			var want, got snapshot.Snapshot
			errWant := json.Unmarshal([]byte(in), &want)
			errGot := jsonfile.Decode(strings.NewReader(in), &got)
			if errWant == nil || errGot == nil {
				t.Fatalf("Unmarshal error %v, Decode error %v: want both to fail", errWant, errGot)
			}
			if isTypeError(errWant) != isTypeError(errGot) {
				t.Fatalf("Unmarshal error %v, Decode error %v: not of the same kind", errWant, errGot)
			}
			if strings.HasPrefix(name, "type error") { // what else is decoded after an error in UnmarshalJSON is unspecified
				if diff := cmp.Diff(&want, &got, cmpOpts); diff != "" {
					t.Errorf("after a type error (-unmarshal +decode):\n%s", diff)
				}
			}
		})
	}
}

// TestCompressed: the name decides how a file is written: .json plain,
// anything else zstd; Write follows it.
func TestCompressed(t *testing.T) {
	dir := t.TempDir()
	for name, want := range map[string]string{"s.json": jsonfile.Plain, "S.Json": jsonfile.Plain, "s.zst": jsonfile.Zstd, "s.json.zst": jsonfile.Zstd, "snapshot": jsonfile.Zstd, "s.json.bak": jsonfile.Zstd} {
		if got := jsonfile.Compressed(name); got != (want == jsonfile.Zstd) {
			t.Errorf("Compressed(%q) = %v", name, got)
		}
		path := filepath.Join(dir, name)
		if err := jsonfile.Write(path, 0o600, &struct {
			A int `json:"a"`
		}{1}); err != nil {
			t.Fatal(err)
		}
		b := readFile(t, path)
		if got := jsonfile.Detect(b); got != want {
			t.Errorf("Write(%q) wrote %s, want %s", name, got, want)
		}
		if want == jsonfile.Plain && string(b) != "{\"a\":1}\n" {
			t.Errorf("Write(%q) wrote %q", name, b)
		}
	}
}
