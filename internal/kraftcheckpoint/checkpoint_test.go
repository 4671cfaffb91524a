package kraftcheckpoint

import (
	"bytes"
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/zkmigrate/zkmigrate/internal/testkit/golden"
)

// The fixtures were written by Kafka 4.1.1's own `kafka-storage format`
// (kafka.tools.StorageTool, metadata.version 4.1-IV1); the -scram one with
// --add-scram 'SCRAM-SHA-256=[name=admin,iterations=8192,password=admin-secret]'
// --add-scram 'SCRAM-SHA-512=[name=admin,iterations=4096,password=admin-secret]'.
const (
	fixturePlain = "testdata/kafka41-format-plain.checkpoint"
	fixtureScram = "testdata/kafka41-format-scram.checkpoint"
)

var kafka41Features = []FeatureLevel{
	{"metadata.version", 27}, {"eligible.leader.replicas.version", 1}, {"group.version", 1}, {"transaction.version", 2},
}

func read(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// scramKeys derives a SCRAM credential's keys from a password (RFC 5802),
// as Kafka's ScramFormatter does.
func scramKeys(t testing.TB, m Mechanism, password string, salt []byte, iterations int) (stored, server []byte) {
	t.Helper()
	h := sha256.New
	if m == ScramSHA512 {
		h = sha512.New
	}
	salted, err := pbkdf2.Key(h, password, salt, iterations, h().Size())
	if err != nil {
		t.Fatal(err)
	}
	mac := func(key []byte, s string) []byte {
		m := hmac.New(h, key)
		m.Write([]byte(s))
		return m.Sum(nil)
	}
	sum := func(f func() hash.Hash, b []byte) []byte { x := f(); x.Write(b); return x.Sum(nil) }
	return sum(h, mac(salted, "Client Key")), mac(salted, "Server Key")
}

// TestParseKafkaFormat reads what Kafka 4.1's format wrote: the feature
// levels, and SCRAM records whose keys are the ones the password derives.
func TestParseKafkaFormat(t *testing.T) {
	for _, tc := range []struct {
		file  string
		scram []string
	}{
		{fixturePlain, nil},
		{fixtureScram, []string{"User:admin SCRAM-SHA-256 (8192 iterations)", "User:admin SCRAM-SHA-512 (4096 iterations)"}},
	} {
		t.Run(filepath.Base(tc.file), func(t *testing.T) {
			data := read(t, tc.file)
			c, err := Parse(data)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(kafka41Features, c.Features()); d != "" {
				t.Errorf("features (-want +got):\n%s", d)
			}
			if mv, ok := c.MetadataVersion(); !ok || mv != 27 {
				t.Errorf("metadata.version = %d, %v", mv, ok)
			}
			var got []string
			for _, s := range c.Scram() {
				got = append(got, s.String())
				stored, server := scramKeys(t, s.Mechanism, "admin-secret", s.Salt, int(s.Iterations))
				if !bytes.Equal(stored, s.StoredKey) || !bytes.Equal(server, s.ServerKey) {
					t.Errorf("%s: the keys read are not those of the password", s)
				}
			}
			if d := cmp.Diff(tc.scram, got); d != "" {
				t.Errorf("SCRAM (-want +got):\n%s", d)
			}
			if len(c.Batches) != 3 || !c.Batches[0].Control || c.Batches[1].Control || !c.Batches[2].Control {
				t.Errorf("want header, data, footer batches; got %d", len(c.Batches))
			}
			if !bytes.Equal(c.Bytes(), data) {
				t.Error("Bytes() differs from the file read")
			}
		})
	}
}

func cred(name string, m Mechanism, seed byte, iterations int32) ScramCredential {
	size := 32
	if m == ScramSHA512 {
		size = 64
	}
	return ScramCredential{Name: name, Mechanism: m, Salt: bytes.Repeat([]byte{seed}, 16),
		StoredKey: bytes.Repeat([]byte{seed + 1}, size), ServerKey: bytes.Repeat([]byte{seed + 2}, size), Iterations: iterations}
}

// TestAppendRoundTrip: appending keeps every batch before the footer byte
// for byte, the new records parse back equal, the footer comes last, and
// the result matches the golden file (checked once with Kafka's own
// kafka-dump-log --cluster-metadata-decoder).
func TestAppendRoundTrip(t *testing.T) {
	data := read(t, fixtureScram)
	c, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	add := []ScramCredential{cred("alice", ScramSHA256, 1, 8192), cred("CN=foo,OU=bar", ScramSHA512, 7, 4096), cred("User With Space", ScramSHA512, 9, 4096)}
	out, err := c.Append(add, time.UnixMilli(1764590000000))
	if err != nil {
		t.Fatal(err)
	}
	keep := len(data) - len(c.Batches[2].raw)
	if !bytes.Equal(out[:keep], data[:keep]) {
		t.Error("the header and data batches were not kept byte for byte")
	}
	c2, err := Parse(out)
	if err != nil {
		t.Fatalf("parse what Append wrote: %v", err)
	}
	if d := cmp.Diff(c.Features(), c2.Features()); d != "" {
		t.Errorf("features changed (-before +after):\n%s", d)
	}
	want := append(c.Scram(), add...)
	if d := cmp.Diff(want, c2.Scram(), cmp.Comparer(func(a, b ScramCredential) bool {
		return a.Name == b.Name && a.Mechanism == b.Mechanism && a.Iterations == b.Iterations &&
			bytes.Equal(a.Salt, b.Salt) && bytes.Equal(a.StoredKey, b.StoredKey) && bytes.Equal(a.ServerKey, b.ServerKey)
	})); d != "" {
		t.Errorf("SCRAM credentials (-want +got):\n%s", d)
	}
	last := c2.Batches[len(c2.Batches)-1]
	if last.BaseOffset != 10 || last.Records[0].Control != ControlSnapshotFooter || !bytes.Equal(last.Records[0].Value, c.Batches[2].Records[0].Value) {
		t.Errorf("footer at offset %d, want 10 with its record unchanged", last.BaseOffset)
	}
	// Check a new testdata/appended.checkpoint with Kafka's kafka-dump-log
	// before accepting it with -update.
	golden.Assert(t, "testdata/appended.checkpoint", out)
	// Appending nothing gives a checkpoint equal to the original but for the
	// footer's timestamps.
	same, err := c.Append(nil, time.UnixMilli(0))
	if err != nil {
		t.Fatal(err)
	}
	if c3, err := Parse(same); err != nil || len(c3.Records()) != len(c.Records()) || !bytes.Equal(same[:keep], data[:keep]) {
		t.Errorf("append nothing: %v", err)
	}
}

// TestAppendSplitsBatches: many credentials go into several batches, none
// above MaxBatchBytes, offsets contiguous.
func TestAppendSplitsBatches(t *testing.T) {
	c, err := Parse(read(t, fixturePlain))
	if err != nil {
		t.Fatal(err)
	}
	var add []ScramCredential
	for i := range 10000 {
		add = append(add, cred(fmt.Sprintf("user-%05d", i), ScramSHA512, byte(i), 4096))
	}
	out, err := c.Append(add, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	c2, err := Parse(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(c2.Scram()) != 10000 || len(c2.Batches) < 5 {
		t.Errorf("%d credentials in %d batches", len(c2.Scram()), len(c2.Batches))
	}
	for _, b := range c2.Batches {
		if len(b.raw) > MaxBatchBytes+batchHeaderSize+256 {
			t.Errorf("batch at offset %d is %d bytes", b.BaseOffset, len(b.raw))
		}
	}
}

// rebatch rewrites the batch at index i of a parsed fixture through fn on
// its raw bytes, then fixes its CRC unless keepCRC.
func rebatch(t *testing.T, data []byte, i int, keepCRC bool, fn func(b []byte) []byte) []byte {
	t.Helper()
	c, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	var out []byte
	for j, b := range c.Batches {
		raw := append([]byte(nil), b.raw...)
		if j == i {
			raw = fn(raw)
			if !keepCRC {
				binary.BigEndian.PutUint32(raw[offLength:], uint32(len(raw)-logOverhead))
				binary.BigEndian.PutUint32(raw[offCRC:], crc32.Checksum(raw[offAttributes:], crc32c))
			}
		}
		out = append(out, raw...)
	}
	return out
}

// TestParseRefuses: every way a checkpoint can be damaged or unexpected is
// an error naming what is wrong.
func TestParseRefuses(t *testing.T) {
	data := read(t, fixtureScram)
	topic := encodeBatch(1, 0, false, 0, []encRecord{{value: []byte{1, 14, 0, 0}}}) // a ClientQuotaRecord v0 frame
	headerAndTopic := append(append([]byte(nil), data[:len(rawBatch(t, data, 0))]...), topic...)
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "holds no record batch"},
		{"truncated header", data[:40], "truncated"},
		{"truncated batch", data[:len(data)-3], "truncated"},
		{"salt byte flipped", flip(data, bytes.Index(data, []byte("admin"))+8), "CRC32C mismatch"},
		{"crc flipped", flip(data, offCRC), "CRC32C mismatch"},
		{"magic 1", rebatch(t, data, 1, true, func(b []byte) []byte { b[offMagic] = 1; return b }), "magic 1"},
		{"compressed", rebatch(t, data, 1, false, func(b []byte) []byte { b[offAttributes+1] |= 1; return b }), "compressed"},
		{"transactional", rebatch(t, data, 1, false, func(b []byte) []byte { b[offAttributes+1] |= attrTransactional; return b }), "transactional"},
		{"no footer", data[:len(data)-len(rawBatch(t, data, 2))], "not the snapshot footer"},
		{"no header", data[len(rawBatch(t, data, 0)):], "starts at offset 1, want 0"},
		{"unknown record type", append(headerAndTopic, rawBatch(t, data, 2)...), "ClientQuotaRecord version 0: not a record this tool knows"},
		{"offset gap", rebatch(t, data, 2, false, func(b []byte) []byte { b[offBaseOffset+7]++; return b }), "starts at offset 8, want 7"},
		{"record version 1", rebatch(t, data, 1, false, func(b []byte) []byte {
			i := bytes.Index(b, []byte{1, 12, 0}) // the first FeatureLevelRecord's frame
			b[i+2] = 1
			return b
		}), "FeatureLevelRecord version 1"},
		{"unknown control type", rebatch(t, data, 2, false, func(b []byte) []byte {
			i := bytes.Index(b[batchHeaderSize:], []byte{0, 0, 0, 4}) + batchHeaderSize
			b[i+3] = 5
			return b
		}), "control record type 5"},
		{"records count", rebatch(t, data, 1, false, func(b []byte) []byte { b[offRecordsCount+3]++; return b }), "records with last offset delta"},
		{"trailing garbage in a record", rebatch(t, data, 2, false, func(b []byte) []byte { return append(b, 0) }), "bytes after the last of its"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Parse(tc.data)
			if err == nil {
				t.Fatalf("parsed %d batches, want an error", len(c.Batches))
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not contain %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "19t7") || strings.Contains(err.Error(), "=") && strings.Contains(err.Error(), "salt=") {
				t.Errorf("error shows credential bytes: %v", err)
			}
		})
	}
}

func rawBatch(t *testing.T, data []byte, i int) []byte {
	c, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	return c.Batches[i].raw
}

func flip(data []byte, i int) []byte {
	out := append([]byte(nil), data...)
	out[i] ^= 0x40
	return out
}

// TestValidate refuses credentials Kafka could not use.
func TestValidate(t *testing.T) {
	good := cred("alice", ScramSHA256, 1, 4096)
	for _, tc := range []struct {
		name string
		edit func(c *ScramCredential)
		want string
	}{
		{"no name", func(c *ScramCredential) { c.Name = "" }, "without a user name"},
		{"mechanism", func(c *ScramCredential) { c.Mechanism = 3 }, "unknown SCRAM mechanism 3"},
		{"no salt", func(c *ScramCredential) { c.Salt = nil }, "empty salt"},
		{"short key", func(c *ScramCredential) { c.StoredKey = c.StoredKey[:20] }, "stored key of 20 bytes"},
		{"sha-512 with sha-256 keys", func(c *ScramCredential) { c.Mechanism = ScramSHA512 }, "want 64 each"},
		{"iterations", func(c *ScramCredential) { c.Iterations = 0 }, "0 iterations"},
	} {
		c := good
		tc.edit(&c)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	if err := good.Validate(); err != nil {
		t.Errorf("good credential: %v", err)
	}
}

// TestCredentialNeverPrintsKeys: fmt shows the user and mechanism only.
func TestCredentialNeverPrintsKeys(t *testing.T) {
	c := cred("alice", ScramSHA256, 'k', 4096)
	c.Salt = []byte("SALTSALTSALT")
	for _, s := range []string{fmt.Sprint(c), fmt.Sprintf("%v %+v %#v %s %q %x", c, c, c, c, c, c), fmt.Sprint([]ScramCredential{c}), fmt.Sprintf("%+v", struct{ C ScramCredential }{c})} {
		for _, secret := range [][]byte{c.Salt, c.StoredKey, c.ServerKey} {
			for _, enc := range []string{string(secret), hex.EncodeToString(secret), base64.StdEncoding.EncodeToString(secret)} {
				if strings.Contains(s, enc) {
					t.Errorf("%q shows key bytes", s)
				}
			}
		}
		if !strings.Contains(s, "User:alice SCRAM-SHA-256") {
			t.Errorf("%q does not name the user", s)
		}
	}
}

// TestDelegationTokenRoundTrip: a DelegationTokenRecord written by
// AppendValues reads back field for field (renewers none, one and two).
func TestDelegationTokenRoundTrip(t *testing.T) {
	c, err := Parse(read(t, fixturePlain))
	if err != nil {
		t.Fatal(err)
	}
	toks := []DelegationToken{
		{Owner: "User:admin", Requester: "User:admin", IssueTimestamp: 1, MaxTimestamp: 3, ExpirationTime: 2, TokenID: "tok-a"},
		{Owner: "User:alice", Requester: "User:CN=foo,OU=bar", Renewers: []string{"User:bob"}, IssueTimestamp: 1764590000000, MaxTimestamp: 1765194800000, ExpirationTime: 1764676400000, TokenID: "tok-b"},
		{Owner: "User:x", Requester: "User:x", Renewers: []string{"User:a", "User:User With Space"}, TokenID: "Zm9v-token"},
	}
	var values [][]byte
	for _, tk := range toks {
		values = append(values, DelegationTokenValue(tk))
	}
	out, err := c.AppendValues(values, time.UnixMilli(0))
	if err != nil {
		t.Fatal(err)
	}
	c2, err := Parse(out)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(toks, c2.Tokens()); d != "" {
		t.Errorf("tokens (-want +got):\n%s", d)
	}
	if d := cmp.Diff(c.Features(), c2.Features()); d != "" {
		t.Errorf("features changed:\n%s", d)
	}
}

// TestTopicRoundTrip: TopicRecord and PartitionRecord (version 0) written
// by AppendValues read back field for field.
func TestTopicRoundTrip(t *testing.T) {
	c, err := Parse(read(t, fixturePlain))
	if err != nil {
		t.Fatal(err)
	}
	tp := Topic{Name: "payments", ID: [16]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}}
	parts := []Partition{
		{Partition: 0, TopicID: tp.ID, Replicas: []int32{1, 2}, ISR: []int32{1, 2}, Removing: []int32{}, Adding: []int32{}, Leader: 1},
		{Partition: 1, TopicID: tp.ID, Replicas: []int32{2}, ISR: []int32{2}, Removing: []int32{}, Adding: []int32{}, Leader: 2, LeaderEpoch: 3, PartitionEpoch: 4},
	}
	values := [][]byte{TopicValue(tp)}
	for _, p := range parts {
		values = append(values, PartitionValue(p))
	}
	out, err := c.AppendValues(values, time.UnixMilli(0))
	if err != nil {
		t.Fatal(err)
	}
	c2, err := Parse(out)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]Topic{tp}, c2.Topics()); d != "" {
		t.Errorf("topics (-want +got):\n%s", d)
	}
	var got []Partition
	for _, r := range c2.Records() {
		if r.Part != nil {
			got = append(got, *r.Part)
		}
	}
	if d := cmp.Diff(parts, got); d != "" {
		t.Errorf("partitions (-want +got):\n%s", d)
	}
}
