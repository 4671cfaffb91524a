package audit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/klauspost/compress/zstd"

	"github.com/zkmigrate/zkmigrate/internal/jsonfile"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/secret"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// wholePlanJSON is the redacted plan JSON as it was stored before plans were
// streamed: the whole document encoded, its newline trimmed, scrubbed at once.
func wholePlanJSON(t *testing.T, sc *scrubber, rp *plan.Plan) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := jsonfile.Encode(&b, rp); err != nil {
		t.Fatal(err)
	}
	text := strings.TrimSuffix(b.String(), "\n")
	if sc != nil {
		text = sc.scrubJSON(text)
	}
	return []byte(text)
}

// compressWhole is that text compressed as the plan JSON is (the plan
// file's encoder: jsonfile.NewWriter), in 1 MiB writes.
func compressWhole(t *testing.T, text []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	enc, err := jsonfile.NewWriter(&out)
	if err != nil {
		t.Fatal(err)
	}
	for len(text) > 0 {
		n := min(len(text), 1<<20)
		if _, err := enc.Write(text[:n]); err != nil {
			t.Fatal(err)
		}
		text = text[n:]
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// secretPlan is a plan of n topic changes whose configs hold secrets the
// scrubber knows (sealed and in plain values), key=value passwords inside
// string literals and URL passwords: about 500 bytes of JSON a change.
func secretPlan(n int, known string) *plan.Plan {
	p := &plan.Plan{Fingerprint: "fp"}
	for i := range n {
		pw := secret.New(fmt.Sprintf("zookeeper:/config/topics/t%d#ssl.key.password", i), fmt.Sprintf("sealed-%d-pw", i%5))
		p.Changes = append(p.Changes, plan.Change{
			ID: fmt.Sprintf("topic-config:t%d", i), Kind: plan.KindTopicConfig, Action: plan.ActionUpdate,
			Resource: plan.Resource{Type: "topic", Name: fmt.Sprintf("t%d", i)},
			After: &plan.State{Configs: []snapshot.Config{
				{Key: "ssl.key.password", Sensitive: true, Secret: &pw},
				{Key: "custom.jaas", Value: fmt.Sprintf(`x required, password="jaas-%d", token=tok%d;`, i, i)},
				{Key: "custom.url", Value: fmt.Sprintf("SASL_SSL://u%d:url-pw-%d@b1:9093,//v:w@h", i, i)},
				{Key: "custom.leak", Value: "leak " + known + fmt.Sprintf(" %d", i)},
				{Key: "retention.ms", Value: "604800000"},
			}},
		})
	}
	p.Findings = []snapshot.Finding{{ID: "f", Severity: "warning", Resource: "server.properties:1", Message: "has " + known + " and password=" + known}}
	return p
}

// TestPlanBlobIsWholeScrub: the streamed blob decompresses to exactly the
// bytes the whole-document path produced (and compresses to the same blob),
// cut every few bytes or every megabyte, with secrets that allow cuts and
// ones (a comma, a quote, a backslash) that make it scrub the whole text.
func TestPlanBlobIsWholeScrub(t *testing.T) {
	for _, tc := range []struct {
		name  string
		known string // a secret the scrubber knows
		n     int
		cut   int
		nilSc bool
	}{
		{name: "tiny pieces", known: "plain-secret-1", n: 300, cut: 7},
		{name: "megabyte pieces", known: "plain-secret-1", n: 6000, cut: 1 << 20},
		{name: "secret with a comma", known: "pw,with,commas", n: 300, cut: 7},
		{name: "secret with a quote", known: `pw"quote`, n: 300, cut: 7},
		{name: "secret with a backslash", known: `pw\back`, n: 300, cut: 7},
		{name: "no scrubber", known: "plain-secret-1", n: 300, cut: 7, nilSc: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := secretPlan(tc.n, tc.known)
			var sc *scrubber
			if !tc.nilSc {
				sc = &scrubber{}
				sc.add(planSecrets(p)...)
				sc.add(tc.known)
			}
			rp, _ := redactPlan(p)
			want := wholePlanJSON(t, sc, rp)
			if !tc.nilSc && (bytes.Contains(want, []byte("sealed-1-pw")) || bytes.Contains(want, []byte("jaas-1\\\""))) {
				t.Fatalf("the whole-document scrub left a secret: the comparison would be hollow")
			}
			blob, err := encodePlanBlobCut(sc, rp, tc.cut)
			if err != nil {
				t.Fatal(err)
			}
			got, err := planJSONBytes(blob)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				i := 0
				for i < min(len(got), len(want)) && got[i] == want[i] {
					i++
				}
				t.Fatalf("streamed plan JSON differs from the whole scrub at byte %d of %d/%d:\n got %.120q\nwant %.120q", i, len(got), len(want), got[max(0, i-40):], want[max(0, i-40):])
			}
			if !bytes.Equal(blob, compressWhole(t, want)) {
				t.Errorf("streamed blob (%d bytes) differs from the whole text compressed (%d bytes)", len(blob), len(compressWhole(t, want)))
			}
			// The same text written 5 bytes at a time: a cut can fall
			// after any comma.
			var raw bytes.Buffer
			if err := jsonfile.Encode(&raw, rp); err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			enc, err := zstd.NewWriter(&out, zstd.WithEncoderConcurrency(1))
			if err != nil {
				t.Fatal(err)
			}
			sw := newScrubWriter(sc, enc, tc.cut)
			for b := raw.Bytes(); len(b) > 0; b = b[min(5, len(b)):] {
				if _, err := sw.Write(b[:min(5, len(b))]); err != nil {
					t.Fatal(err)
				}
			}
			if err := sw.close(); err != nil {
				t.Fatal(err)
			}
			if err := enc.Close(); err != nil {
				t.Fatal(err)
			}
			if got, err := planJSONBytes(out.Bytes()); err != nil || !bytes.Equal(got, want) {
				t.Errorf("plan JSON written 5 bytes at a time differs from the whole scrub (%v)", err)
			}
		})
	}
}

// TestRecordPlanStoresWholeScrub: RecordPlan's stored blob decompresses to
// the redacted plan JSON the whole-document path produced, byte for byte,
// for a plan of more than a megabyte of JSON with secrets.
func TestRecordPlanStoresWholeScrub(t *testing.T) {
	ctx := context.Background()
	s, path := openTest(t)
	r, err := s.BeginRun(ctx, RunInfo{Command: "plan"})
	if err != nil {
		t.Fatal(err)
	}
	p := secretPlan(4000, "plain-secret-1")
	r.sc.add("plain-secret-1")
	sc := &scrubber{}
	sc.add(append(planSecrets(p), "plain-secret-1")...)
	rp, _ := redactPlan(p)
	want := wholePlanJSON(t, sc, rp)
	if len(want) < 1<<20 {
		t.Fatalf("plan JSON is %d bytes: too small to be cut", len(want))
	}
	if err := r.RecordPlan(ctx, p); err != nil {
		t.Fatal(err)
	}
	if got := storedPlanJSON(t, path); !bytes.Equal(got, want) {
		t.Errorf("stored plan JSON (%d bytes) differs from the whole-document scrub (%d bytes)", len(got), len(want))
	}
}

// scrubWhole runs text through a scrubWriter cut every cut bytes and
// written step bytes at a time, and returns the text it passed on
// (uncompressed) and the most it ever held.
func scrubPieces(t *testing.T, sc *scrubber, text []byte, cut, step int) (out []byte, held int) {
	t.Helper()
	var buf bytes.Buffer
	enc, err := zstd.NewWriter(&buf, zstd.WithEncoderConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	sw := newScrubWriter(sc, enc, cut)
	for b := text; len(b) > 0; b = b[min(step, len(b)):] {
		if _, err := sw.Write(b[:min(step, len(b))]); err != nil {
			t.Fatal(err)
		}
		held = max(held, len(sw.raw)+len(sw.rep))
	}
	if err := sw.close(); err != nil {
		t.Fatal(err)
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	dec, err := zstd.NewReader(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	out, err = dec.DecodeAll(buf.Bytes(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return out, held
}

// TestScrubWriterCutsWithQuotedSecrets: a known secret holding quotes or
// backslashes (a sasl.jaas.config value and its JSON-escaped form: the
// usual broker secret) no longer makes the plan JSON be held and scrubbed
// whole (it was: 71 MB at 50,000 topics, and three copies of it); the
// writer holds about two pieces, and the text is the whole scrub's.
func TestScrubWriterCutsWithQuotedSecrets(t *testing.T) {
	jaas := `org.apache.kafka.common.security.scram.ScramLoginModule required username="broker" password="pw-1";`
	p := &plan.Plan{Fingerprint: "fp"}
	for i := range 3000 {
		p.Changes = append(p.Changes, plan.Change{
			ID: fmt.Sprintf("broker-config:%d", i), Kind: plan.KindBrokerConfig, Action: plan.ActionUpdate,
			Resource: plan.Resource{Type: "broker", Name: fmt.Sprint(i)},
			After: &plan.State{Configs: []snapshot.Config{
				{Key: "listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config", Value: jaas, Sensitive: true},
				{Key: "custom.note", Value: fmt.Sprintf("copied from broker %d: %s", i, jaas)},
				{Key: "custom.url", Value: fmt.Sprintf("SASL_SSL://u%d:url-pw-%d@b1:9093", i, i)},
			}},
		})
	}
	p.Findings = append(p.Findings, snapshot.Finding{ID: "jaas", Message: "listener config " + jaas})
	sc := &scrubber{}
	sc.add(planSecrets(p)...)
	sc.add(jaas)
	rp, _ := redactPlan(p)
	var raw bytes.Buffer
	if err := jsonfile.Encode(&raw, rp); err != nil {
		t.Fatal(err)
	}
	want := wholePlanJSON(t, sc, rp)
	if bytes.Contains(want, []byte("pw-1")) || !bytes.Contains(raw.Bytes(), []byte(`password=\"pw-1\"`)) {
		t.Fatal("the test plan does not hold the JAAS secret, or the whole scrub left it: the comparison would be hollow")
	}
	const cut = 4096
	got, held := scrubPieces(t, sc, raw.Bytes(), cut, 512)
	got = bytes.TrimSuffix(got, []byte("\n"))
	if !bytes.Equal(got, want) {
		t.Fatalf("pieces differ from the whole scrub (%d vs %d bytes)", len(got), len(want))
	}
	if held > 3*cut {
		t.Errorf("the writer held %d bytes of %d; want about two pieces of %d", held, raw.Len(), cut)
	}
	// A secret holding a comma still makes it keep the whole text.
	sc.add("pw,comma")
	if _, held := scrubPieces(t, sc, raw.Bytes(), cut, 512); held < raw.Len()-1 {
		t.Errorf("with a secret holding a comma the writer held %d of %d bytes; want the whole text", held, raw.Len())
	}
}

// FuzzScrubWriter: any text, scrubbed in pieces cut anywhere the writer
// cuts and written in any sizes, comes out as scrubJSON of the whole text
// (minus one final newline), for known secrets holding quotes, backslashes,
// brackets or parts of [redacted].
func FuzzScrubWriter(f *testing.F) {
	f.Add(`{"a":"x password=\"s3cr\\\"t\", y","b":["u:p@h","//u:pw@h,"],"c":{"k\\":1},"d":"token=abc"}`+"\n", `s3cr"t`, 7, 3)
	f.Add(`{"v\\":1},{"w":"\":1}"},"ſecret=1","password=x,y"`, `\":1}`, 3, 1)
	f.Add(`["[redacted]","dact","zz[re","d]zz"]`, "dact", 2, 5)
	f.Add(`{"k":"org.apache.Login required password=\"pw-1\";","n":"//a:b@c"}`, `password=\"pw-1\"`, 16, 64)
	f.Fuzz(func(t *testing.T, text, secret string, cut, step int) {
		cut, step = 1+abs(cut)%64, 1+abs(step)%64
		sc := &scrubber{}
		sc.add(secret, "zkgen-pw", `q"uote`)
		want := sc.scrubJSON(strings.TrimSuffix(text, "\n"))
		got, _ := scrubPieces(t, sc, []byte(text), cut, step)
		if string(got) != want {
			t.Fatalf("cut %d, step %d: pieces give\n%q\nthe whole text\n%q", cut, step, got, want)
		}
	})
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// refRedactJSONText is redactJSONText as it was written first, byte by
// byte: the reference the faster scan is checked against.
func refRedactJSONText(s string) string {
	if strings.Contains(s, "@") && urlUserinfo.MatchString(s) {
		s = urlUserinfo.ReplaceAllString(s, "$1:"+Redacted+"@")
	}
	if !strings.Contains(s, "=") {
		return s
	}
	var b strings.Builder
	done := 0
	for i := 0; i < len(s); i++ {
		if s[i] != '"' {
			continue
		}
		start, eq := i+1, false
		for i++; i < len(s) && s[i] != '"'; i++ {
			switch s[i] {
			case '\\':
				i++
			case '=':
				eq = true
			}
		}
		lit := s[start:min(i, len(s))]
		if !eq || !mayMentionSecret(lit) {
			continue
		}
		if r := redactKeyValues(lit); r != lit {
			b.WriteString(s[done:start])
			b.WriteString(r)
			done = start + len(lit)
		}
	}
	if done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

// FuzzRedactJSONText: the literal scan that skips with IndexByte redacts
// any text exactly as the byte-by-byte scan did.
func FuzzRedactJSONText(f *testing.F) {
	for _, s := range []string{
		`{"a":"password=\"x\"","b":"tok\\"}`,
		`"x\\\"password=1\\\\" "token=2" "\=secret=3`,
		`{"k":"sasl.jaas.config=x required password=\"p\\\"w\";","u":"//a:b@c"}`,
		`"unterminated password=abc\`,
		`"a\\" password=x "b"`,
		`["to` + "\u212a" + `en=abc","ſecret=1","PASSWORD = x","user=u1","CN=token-svc,OU=x"]`,
		"{\"k\":\"my.Credential\t=\\\"v\\\"\"}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := redactJSONText(s), refRedactJSONText(s); got != want {
			t.Fatalf("redactJSONText(%q) =\n%q\nthe byte-by-byte scan gives\n%q", s, got, want)
		}
	})
}

// TestChangeStatesFromPlan records the same plans into a database of
// schema version 3 (states in the changes rows), 5 (a row per change, the
// states in the plan JSON) and the newest version (the changes in the plan
// JSON only) and checks that Changes reads back the same changes, states
// included, and where each version stores them.
func TestChangeStatesFromPlan(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		plan func() *plan.Plan
	}{
		{"golden plan (secrets, every kind of row)", goldenPlan},
		{"topics", func() *plan.Plan { return testPlan(70) }},
		{"no changes", func() *plan.Plan { return testPlan(0) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got [3][]ChangeRecord
			for i, v := range []int{3, 5, SchemaVersion()} {
				s, err := open(ctx, filepath.Join(t.TempDir(), "audit.db"), v)
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				r, err := s.BeginRun(ctx, RunInfo{Command: "plan"})
				if err != nil {
					t.Fatal(err)
				}
				r.AddSecrets("known-leak-1")
				p := tc.plan()
				if err := r.RecordPlan(ctx, p); err != nil {
					t.Fatal(err)
				}
				if _, err := r.Finish(ctx, "planned", 2); err != nil {
					t.Fatal(err)
				}
				if got[i], err = s.Changes(ctx, r.ID(), ChangeFilter{}); err != nil {
					t.Fatalf("Changes at version %d: %v", v, err)
				}
				if len(got[i]) != len(p.Changes) {
					t.Fatalf("version %d: %d changes read, want %d", v, len(got[i]), len(p.Changes))
				}
				var rowStates int
				if err := s.r.QueryRow(`SELECT count(*) FROM changes WHERE before_state IS NOT NULL OR after_state IS NOT NULL`).Scan(&rowStates); err != nil {
					t.Fatal(err)
				}
				if inRows := v < statesInPlanVersion; inRows != (rowStates > 0) && len(p.Changes) > 0 {
					t.Errorf("version %d: %d changes rows hold states", v, rowStates)
				}
				var rows int
				if err := s.r.QueryRow(`SELECT count(*) FROM changes`).Scan(&rows); err != nil {
					t.Fatal(err)
				}
				if want := len(p.Changes); v >= changesInPlanVersion && rows != 0 || v < changesInPlanVersion && rows != want {
					t.Errorf("version %d: %d changes rows for %d changes", v, rows, want)
				}
				bare, err := s.Changes(ctx, r.ID(), ChangeFilter{NoStates: true})
				if err != nil {
					t.Fatalf("Changes without states at version %d: %v", v, err)
				}
				for j := range got[i] {
					want := got[i][j]
					want.Before, want.After = nil, nil
					if diff := cmp.Diff(want, bare[j]); diff != "" {
						t.Errorf("version %d: change %d without states (-want +got):\n%s", v, j, diff)
					}
					got[i][j].Seq = 0 // chain positions differ
				}
			}
			for i := 1; i < len(got); i++ {
				if diff := cmp.Diff(got[0], got[i]); diff != "" {
					t.Errorf("changes read from the rows (-) and from the plan (+, recording %d) differ:\n%s", i, diff)
				}
			}
		})
	}
}

// FuzzScrubCheck: whatever the text, the known secret and how it is written
// and cut, a scrubCheck that says scrubbing changes nothing is right:
// scrubJSON leaves the text as it is.
func FuzzScrubCheck(f *testing.F) {
	f.Add(`{"a":"x password=\"s3cr\\\"t\", y","b":["u:p@h","//u:pw@h,"]}`, `s3cr"t`, 7, 3)
	f.Add(`{"id":"quota:user=u1","n":"//host:9092"}`+"\n", "zkgen-pw", 5, 2)
	f.Add(`["to`+"\u212a"+`en=abc","ſecret=1","PASSWORD = x"]`, "none", 4, 4)
	f.Add(`{"a":"b,c","d":"xpassw`+`,ord=1"}`, "b,c", 3, 1)
	f.Fuzz(func(t *testing.T, text, secret string, cut, step int) {
		cut, step = 1+abs(cut)%64, 1+abs(step)%64
		sc := &scrubber{}
		sc.add(secret, "zkgen-pw")
		c := newScrubCheck(sc)
		c.cut = cut
		for b := []byte(text); len(b) > 0; {
			n := min(step, len(b))
			c.Write(b[:n])
			b = b[n:]
		}
		if !c.close() {
			if got := sc.scrubJSON(text); got != text {
				t.Fatalf("cut %d, step %d: the check found nothing to scrub in\n%q\nscrubJSON makes it\n%q", cut, step, text, got)
			}
		}
	})
}

// TestRecordPlanEncoded: the plan JSON a PlanEncoder compressed is stored
// as it is when scrubbing would change nothing in it, and the plan is
// encoded, redacted and scrubbed again when it would (or redaction changes
// the plan, or the encoder fails); the encoder is called once either way,
// and no known secret reaches the database.
func TestRecordPlanEncoded(t *testing.T) {
	ctx := context.Background()
	clean := func() *plan.Plan { return testPlan(300) }
	plainSensitive := func(v string) func() *plan.Plan {
		return func() *plan.Plan {
			p := testPlan(20)
			p.Changes[7].After.Configs = append(p.Changes[7].After.Configs, snapshot.Config{Key: "ssl.key.password", Value: v, Sensitive: true})
			return p
		}
	}
	for _, tc := range []struct {
		name    string
		plan    func() *plan.Plan
		secrets []string
		fail    bool // the encoder fails
		shared  bool // the encoder's bytes are stored
	}{
		{"no secrets in the text", clean, nil, false, true},
		{"known secrets elsewhere", clean, []string{"zkgen-pw", `q"uote-pw`}, false, true},
		{"a known secret in the text", clean, []string{"orders-00042"}, false, false},
		{"a known secret with a comma", clean, []string{"a,b-secret"}, false, false},
		{"key=value secrets and URLs in the text", goldenPlan, []string{"known-leak-1"}, false, false},
		{"a sensitive value in plain text", plainSensitive("plain-pw-77"), nil, false, false},
		// Too short to be searched for as a known secret: only redaction
		// (the plan's own structure) keeps it out.
		{"a short sensitive value in plain text", plainSensitive("pw7"), nil, false, false},
		{"the encoder fails", clean, nil, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, path := openTest(t)
			r, err := s.BeginRun(ctx, RunInfo{Command: "plan"})
			if err != nil {
				t.Fatal(err)
			}
			r.AddSecrets(tc.secrets...)
			p := tc.plan()
			var calls int
			var encoded []byte
			err = r.RecordPlanEncoded(ctx, p, func(tap io.Writer) ([]byte, error) {
				calls++
				if tc.fail {
					return nil, errors.New("disk full")
				}
				var text bytes.Buffer
				if err := jsonfile.Encode(&text, p); err != nil {
					return nil, err
				}
				tap.Write(text.Bytes())
				encoded = compressWhole(t, text.Bytes())
				return encoded, nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if calls != 1 {
				t.Errorf("encoder called %d times, want once", calls)
			}
			if _, err := r.Finish(ctx, "planned", 2); err != nil {
				t.Fatal(err)
			}
			var stored []byte
			if err := s.r.QueryRow(`SELECT plan_json FROM plans`).Scan(&stored); err != nil {
				t.Fatal(err)
			}
			if got := bytes.Equal(stored, encoded); got != tc.shared {
				t.Errorf("stored the encoder's bytes: %v, want %v", got, tc.shared)
			}
			if !tc.shared {
				// What RecordPlan stores without an encoder.
				sc := &scrubber{}
				sc.add(tc.secrets...)
				sc.add(planSecrets(p)...)
				rp, _ := redactPlan(p)
				if want := wholePlanJSON(t, sc, rp); !bytes.Equal(decompress(t, stored), want) {
					t.Errorf("stored plan is not the plan redacted and scrubbed:\n%.300s\nwant\n%.300s", decompress(t, stored), want)
				}
			}
			if res, err := s.Verify(ctx, ""); err != nil || !res.OK {
				t.Fatalf("Verify = %+v, %v", res, err)
			}
			if cs, err := s.Changes(ctx, r.ID(), ChangeFilter{}); err != nil || len(cs) != len(p.Changes) || cs[0].After == nil {
				t.Fatalf("Changes = %d changes, %v; want %d with their states", len(cs), err, len(p.Changes))
			}
			if bytes.Contains(decompress(t, stored), []byte(`"value":"pw7"`)) {
				t.Errorf("the stored plan holds the sensitive value pw7")
			}
			s.Close()
			leaks := append(append([]string{}, tc.secrets...), "plain-pw-77", "known-leak-1", "jaas-pw-9", "url-pw-3")
			for _, f := range []string{path, path + "-wal"} {
				raw, err := os.ReadFile(f)
				if err != nil {
					continue
				}
				for _, sec := range leaks {
					if bytes.Contains(raw, []byte(sec)) || bytes.Contains(decompress(t, stored), []byte(sec)) {
						t.Errorf("%s or its plan holds the secret %q", filepath.Base(f), sec)
					}
				}
			}
		})
	}
}

// decompress is a stored plan blob's JSON.
func decompress(t *testing.T, blob []byte) []byte {
	t.Helper()
	b, err := planJSONBytes(blob)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestHasSecretKeyEq: an '=' the key=value patterns could match at is
// found (redactJSONText changes the first five cases), and ordinary '='
// signs are not. It may find one the patterns do not match (ſecret: no
// word boundary before ſ), never miss one (FuzzRedactJSONText).
func TestHasSecretKeyEq(t *testing.T) {
	for i, tc := range []struct {
		s    string
		want bool
	}{
		{`"password=x"`, true},
		{`"ssl.key.PASSWORD  = x"`, true},
		{`"my.Credential` + "\t" + `=v"`, true},
		{`"to` + "\u212a" + `en=abc"`, true}, // the Kelvin sign folds to k
		{`"a token=abc"`, true},
		{`"ſecret=1"`, true}, // ſ folds to s
		{`"user=u1","CN=token-svc,OU=x"`, false},
		{`"tok=1","en=2","password"`, false},
		{`{"a":"b"}`, false},
		{`"token"="x"`, false}, // a quote ends the key
	} {
		if got := hasSecretKeyEq(tc.s); got != tc.want {
			t.Errorf("hasSecretKeyEq(%q) = %v, want %v", tc.s, got, tc.want)
		}
		if i < 5 && redactJSONText(tc.s) == tc.s {
			t.Errorf("%q: redactJSONText changes nothing; the case proves nothing", tc.s)
		}
	}
}
