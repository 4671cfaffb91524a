package policy

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zkmigrate/zkmigrate/internal/secret"

	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// evalPolicy holds the three motivating rules of the design plus rules that
// exercise null pre/post, missing keys, topic matching and principals.
const evalPolicy = `version: 1
rules:
  - name: retention-floor
    actions: [CREATE, MODIFY]
    expr: |
      !("retention.ms" in post.configs) ||
      int(post.configs["retention.ms"]) < 0 ||
      int(post.configs["retention.ms"]) >= 86400000
    message: retention.ms must be at least one day
  - name: compacted-partitions-fixed
    actions: [MODIFY]
    expr: >-
      pre.partitions == post.partitions ||
      post.configs[?"cleanup.policy"].orValue("delete") != "compact"
    message: compacted topics may never change partition count
  - name: rf-or-minisr
    actions: [CREATE, MODIFY]
    expr: post.replication_factor >= 3 || post.configs[?"min.insync.replicas"].orValue("1") == "1"
    message: replication factor below 3 needs min.insync.replicas=1
  - name: no-delete-prod
    actions: [DELETE]
    topics: "prod-.*"
    expr: principal == "User:admin" && pre.configs[?"protected"].orValue("false") != "true"
    message: only User:admin deletes prod topics, and never protected ones
  - name: strict-key
    topics: strict-.*
    expr: post.configs["owner"] != ""
    message: strict topics need an owner
  - name: pre-needed
    actions: [CREATE]
    topics: pre-.*
    expr: pre.partitions > 0
    message: never true on CREATE
`

func st(parts int32, rf int, cfg map[string]string) *TopicState {
	s := &TopicState{Partitions: parts, ReplicationFactor: rf, Configs: cfg}
	for i := int32(0); i < parts; i++ {
		reps := make([]int32, rf)
		for j := range reps {
			reps[j] = int32(j)
		}
		s.Assignment = append(s.Assignment, reps)
	}
	return s
}

func TestEvaluate(t *testing.T) {
	p, err := Parse("eval.yaml", []byte(evalPolicy))
	if err != nil {
		t.Fatal(err)
	}
	failClosed := regexp.MustCompile(`^evaluation error: .*\(denied: the policy fails closed\)$`)
	tests := []struct {
		name     string
		req      Request
		want     Decision
		wantLike *regexp.Regexp // for evaluation errors: Rule must match want.Rule, Message this pattern
	}{
		{"create ok", Request{Action: Create, Topic: "a", Post: st(3, 3, nil)}, Decision{Allowed: true}, nil},
		{"create nil assignment and configs", Request{Action: Create, Topic: "a", Post: &TopicState{Partitions: 1, ReplicationFactor: 3}}, Decision{Allowed: true}, nil},
		{"create retention too low", Request{Action: Create, Topic: "a", Post: st(3, 3, map[string]string{"retention.ms": "1000"})},
			Decision{Rule: "retention-floor", Message: "retention.ms must be at least one day"}, nil},
		{"create retention infinite", Request{Action: Create, Topic: "a", Post: st(3, 3, map[string]string{"retention.ms": "-1"})}, Decision{Allowed: true}, nil},
		{"modify lowers retention below floor", Request{Action: Modify, Topic: "a",
			Pre: st(3, 3, map[string]string{"retention.ms": "604800000"}), Post: st(3, 3, map[string]string{"retention.ms": "60000"})},
			Decision{Rule: "retention-floor", Message: "retention.ms must be at least one day"}, nil},
		{"retention not a number fails closed", Request{Action: Create, Topic: "a", Post: st(1, 3, map[string]string{"retention.ms": "1d"})},
			Decision{Rule: "retention-floor"}, failClosed},
		{"modify compacted partitions", Request{Action: Modify, Topic: "keyed",
			Pre: st(3, 3, map[string]string{"cleanup.policy": "compact"}), Post: st(6, 3, map[string]string{"cleanup.policy": "compact"})},
			Decision{Rule: "compacted-partitions-fixed", Message: "compacted topics may never change partition count"}, nil},
		{"modify delete-policy partitions", Request{Action: Modify, Topic: "logs",
			Pre: st(3, 3, nil), Post: st(6, 3, nil)}, Decision{Allowed: true}, nil},
		{"create compacted is not a partition change", Request{Action: Create, Topic: "keyed", Post: st(6, 3, map[string]string{"cleanup.policy": "compact"})},
			Decision{Allowed: true}, nil},
		{"rf 2 with min isr 2", Request{Action: Create, Topic: "a", Post: st(1, 2, map[string]string{"min.insync.replicas": "2"})},
			Decision{Rule: "rf-or-minisr", Message: "replication factor below 3 needs min.insync.replicas=1"}, nil},
		{"rf 2 without min isr", Request{Action: Create, Topic: "a", Post: st(1, 2, nil)}, Decision{Allowed: true}, nil},
		{"modify min isr up on rf 2", Request{Action: Modify, Topic: "a", Pre: st(1, 2, nil), Post: st(1, 2, map[string]string{"min.insync.replicas": "2"})},
			Decision{Rule: "rf-or-minisr", Message: "replication factor below 3 needs min.insync.replicas=1"}, nil},
		{"delete prod by admin", Request{Action: Delete, Topic: "prod-orders", Principal: "User:admin", Pre: st(3, 3, nil)}, Decision{Allowed: true}, nil},
		{"delete prod by alice", Request{Action: Delete, Topic: "prod-orders", Principal: "User:alice", Pre: st(3, 3, nil)},
			Decision{Rule: "no-delete-prod", Message: "only User:admin deletes prod topics, and never protected ones"}, nil},
		{"delete protected prod by admin", Request{Action: Delete, Topic: "prod-orders", Principal: "User:admin", Pre: st(3, 3, map[string]string{"protected": "true"})},
			Decision{Rule: "no-delete-prod", Message: "only User:admin deletes prod topics, and never protected ones"}, nil},
		{"topic regex is anchored", Request{Action: Delete, Topic: "x-prod-orders", Principal: "User:alice", Pre: st(3, 3, nil)}, Decision{Allowed: true}, nil},
		{"delete ignores create rules with null post", Request{Action: Delete, Topic: "a", Pre: st(1, 1, map[string]string{"retention.ms": "1"})}, Decision{Allowed: true}, nil},
		{"missing key indexed fails closed", Request{Action: Create, Topic: "strict-a", Post: st(1, 3, nil)}, Decision{Rule: "strict-key"},
			regexp.MustCompile(`^evaluation error: no such key: owner \(denied: the policy fails closed\)$`)},
		{"present key indexed", Request{Action: Create, Topic: "strict-a", Post: st(1, 3, map[string]string{"owner": "team-a"})}, Decision{Allowed: true}, nil},
		{"null post on delete fails closed", Request{Action: Delete, Topic: "strict-a", Pre: st(1, 3, map[string]string{"owner": "x"})}, Decision{Rule: "strict-key"},
			regexp.MustCompile(`^evaluation error: .*\(post is null for DELETE\) \(denied: the policy fails closed\)$`)},
		{"null pre on create fails closed", Request{Action: Create, Topic: "pre-a", Post: st(1, 3, nil)}, Decision{Rule: "pre-needed"},
			regexp.MustCompile(`^evaluation error: .*\(pre is null for CREATE\) \(denied: the policy fails closed\)$`)},
		{"unknown action", Request{Action: "RENAME", Topic: "a", Pre: st(1, 3, nil), Post: st(1, 3, nil)}, Decision{}, regexp.MustCompile(`^unknown action "RENAME"`)},
		{"create without post", Request{Action: Create, Topic: "a"}, Decision{}, regexp.MustCompile(`^CREATE request without`)},
		{"modify without pre", Request{Action: Modify, Topic: "a", Post: st(1, 3, nil)}, Decision{}, regexp.MustCompile(`^MODIFY request without`)},
		{"delete without pre", Request{Action: Delete, Topic: "a"}, Decision{}, regexp.MustCompile(`^DELETE request without`)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := p.Evaluate(tc.req)
			if tc.wantLike != nil {
				if got.Allowed || got.Rule != tc.want.Rule || !tc.wantLike.MatchString(got.Message) {
					t.Fatalf("Evaluate = %+v, want a denial by %q matching %s", got, tc.want.Rule, tc.wantLike)
				}
				return
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Evaluate mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEvaluateEmptyPolicy(t *testing.T) {
	p, err := Parse("empty.yaml", []byte("version: 1\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range Actions {
		r := Request{Action: a, Topic: "t", Pre: st(1, 1, nil), Post: st(1, 1, nil)}
		if a == Create {
			r.Pre = nil
		}
		if a == Delete {
			r.Post = nil
		}
		if d := p.Evaluate(r); !d.Allowed || d.Rule != "" {
			t.Errorf("%s: got %+v, want allowed", a, d)
		}
	}
}

func TestNilPolicy(t *testing.T) {
	var p *Policy
	if d := p.Evaluate(Request{Action: Delete, Topic: "t", Pre: st(1, 1, nil)}); !d.Allowed {
		t.Errorf("nil policy Evaluate = %+v, want allowed", d)
	}
	if p.Notes() != nil || p.Adapters() != nil {
		t.Error("nil policy has notes or adapters")
	}
}

func TestEvaluateExisting(t *testing.T) {
	p, err := Parse("p.yaml", []byte(`version: 1
rules:
  - name: no-principal
    actions: [CREATE]
    expr: principal == "" && action == "CREATE" && pre == null && topic == "t1"
    message: existing topics are evaluated as anonymous CREATEs
`))
	if err != nil {
		t.Fatal(err)
	}
	if d := p.EvaluateExisting("t1", *st(1, 1, nil)); !d.Allowed {
		t.Errorf("EvaluateExisting(t1) = %+v, want allowed", d)
	}
	if d := p.EvaluateExisting("t2", *st(1, 1, nil)); d.Allowed || d.Rule != "no-principal" {
		t.Errorf("EvaluateExisting(t2) = %+v, want denied by no-principal", d)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string // each must appear in the error, in this order within one problem
	}{
		{"undefined field", "version: 1\nrules:\n  - name: typo\n    expr: post.partitons > 1\n",
			[]string{`bad.yaml:4: rule "typo": expr 1:5: undefined field 'partitons'`}},
		{"literal block position", "version: 1\nrules:\n  - name: multi\n    expr: |\n      post.partitions > 1 &&\n      post.configs.size() > \"x\"\n",
			[]string{`bad.yaml:6: rule "multi": expr 2:`, `no matching overload`}},
		{"type mismatch", "version: 1\nrules:\n  - name: mismatch\n    expr: post.partitions > \"3\"\n",
			[]string{`bad.yaml:4: rule "mismatch": expr 1:`, "no matching overload"}},
		{"not bool", "version: 1\nrules:\n  - name: int\n    expr: post.partitions\n",
			[]string{`bad.yaml:4: rule "int": expr is of type int; it must be a bool`}},
		{"syntax", "version: 1\nrules:\n  - name: syn\n    expr: post.partitions >\n",
			[]string{`bad.yaml:4: rule "syn": expr 1:`}},
		{"undeclared variable", "version: 1\nrules:\n  - name: var\n    expr: pots.partitions > 1\n",
			[]string{`bad.yaml:4: rule "var": expr 1:1: undeclared reference to 'pots'`}},
		{"missing version", "rules: []\n", []string{`bad.yaml:1: missing "version: 1"`}},
		{"wrong version", "version: 2\n", []string{`bad.yaml:1: version 2 is not supported`}},
		{"unknown key", "version: 1\nrules:\n  - name: a\n    expr: true\n    exprs: false\n", []string{`bad.yaml:5: rule "a": unknown key "exprs"`}},
		{"bad action", "version: 1\nrules:\n  - name: a\n    actions: [CREATE, ALTER]\n    expr: true\n", []string{`bad.yaml:4: rule "a": actions: unknown action "ALTER"`}},
		{"bad regex", "version: 1\nrules:\n  - name: a\n    topics: \"(\"\n    expr: true\n", []string{`bad.yaml:4: rule "a": topics: error parsing regexp`}},
		{"missing expr", "version: 1\nrules:\n  - name: a\n", []string{`bad.yaml:3: rule "a": missing expr`}},
		{"missing name", "version: 1\nrules:\n  - expr: true\n", []string{`bad.yaml:3: rule without a name`}},
		{"duplicate name", "version: 1\nrules:\n  - name: a\n    expr: true\n  - name: a\n    expr: true\n", []string{`bad.yaml:5: rule "a": name already used at bad.yaml:3`}},
		{"bad yaml", "version: 1\nrules: [\n", []string{`bad.yaml:2: did not find expected node content`}},
		{"empty", "", []string{`bad.yaml: empty policy file`}},
		{"adapter bad scope", "version: 1\nadapters:\n  - class: org.x.P\n    scope: delete\n", []string{`bad.yaml:4: adapter org.x.P: scope "delete"`}},
		{"adapter secret", "version: 1\nadapters:\n  - class: org.x.P\n    scope: create\n    config:\n      x.password: hunter2\n", []string{`bad.yaml:6: adapter org.x.P: config: x.password looks secret`}},
		{"two errors", "version: 1\nrules:\n  - name: a\n    expr: nope\n  - name: b\n    expr: post.nope\n",
			[]string{`bad.yaml:4: rule "a": expr 1:1: undeclared reference to 'nope'`, `; bad.yaml:6: rule "b": expr 1:5: undefined field 'nope'`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("bad.yaml", []byte(tc.src))
			var le *LoadError
			if !errors.As(err, &le) {
				t.Fatalf("Parse error = %v, want a *LoadError", err)
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") {
				t.Errorf("error spans lines: %q", msg)
			}
			rest := msg
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("error %q does not contain %q (in order)", msg, w)
				}
				rest = rest[i+len(w):]
			}
		})
	}
}

func TestAdaptersAndNotes(t *testing.T) {
	p, err := Parse("conv.yaml", []byte(`version: 1
rules: []
adapters:
  - class: org.x.CreatePolicy
    scope: create
    source: server.properties:12
    config:
      org.x.max.partitions: 100
  - class: org.x.AlterPolicy
    scope: alter-config
`))
	if err != nil {
		t.Fatal(err)
	}
	want := []Adapter{
		{Class: "org.x.CreatePolicy", Actions: []Action{Create}, Scope: ScopeCreate, Config: map[string]string{"org.x.max.partitions": "100"}, Source: "server.properties:12"},
		{Class: "org.x.AlterPolicy", Actions: []Action{Modify}, Scope: ScopeAlterConfig, Source: "conv.yaml:9"},
	}
	if diff := cmp.Diff(want, p.Adapters()); diff != "" {
		t.Errorf("Adapters mismatch (-want +got):\n%s", diff)
	}
	wantNotes := []string{
		"adapter org.x.CreatePolicy (CREATE) is enforced by the target's controllers, not by zkmigrate",
		"adapter org.x.AlterPolicy (MODIFY) is enforced by the target's controllers, not by zkmigrate",
	}
	if diff := cmp.Diff(wantNotes, p.Notes()); diff != "" {
		t.Errorf("Notes mismatch (-want +got):\n%s", diff)
	}
	// Adapters never deny.
	if d := p.Evaluate(Request{Action: Create, Topic: "t", Post: st(1000, 1, nil)}); !d.Allowed {
		t.Errorf("Evaluate with adapters only = %+v, want allowed", d)
	}
}

func TestFromTopic(t *testing.T) {
	sec := secret.Ref("zookeeper:/config/topics/t#x")
	top := &snapshot.Topic{
		Name: "t",
		Partitions: []snapshot.Partition{
			{ID: 0, Replicas: []int32{1, 2, 3}},
			{ID: 1, Replicas: []int32{2, 3, 4, 1}, Adding: []int32{4}, Removing: []int32{1}},
		},
		Configs: []snapshot.Config{
			{Key: "cleanup.policy", Value: "compact"},
			{Key: "custom.password", Value: "leak"},
			{Key: "x", Sensitive: true, Secret: &sec},
		},
	}
	want := TopicState{
		Partitions:        2,
		ReplicationFactor: 3,
		Assignment:        [][]int32{{1, 2, 3}, {2, 3, 4}},
		Configs:           map[string]string{"cleanup.policy": "compact"},
	}
	if diff := cmp.Diff(want, FromTopic(top)); diff != "" {
		t.Errorf("FromTopic mismatch (-want +got):\n%s", diff)
	}
}

// TestExamplesLoad keeps the shipped examples and the YAML blocks of
// docs/policy.md loadable.
func TestExamplesLoad(t *testing.T) {
	files, _ := filepath.Glob("../../examples/policy/*.yaml")
	if len(files) == 0 {
		t.Fatal("no examples under examples/policy")
	}
	for _, f := range files {
		if _, err := Load(f); err != nil {
			t.Errorf("Load(%s): %v", f, err)
		}
	}
	doc, err := os.ReadFile("../../docs/policy.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(string(doc), -1)
	if len(blocks) < 3 {
		t.Fatalf("docs/policy.md has %d yaml blocks, want at least 3", len(blocks))
	}
	for i, b := range blocks {
		if !strings.Contains(b[1], "version: 1") {
			continue // a fragment, not a whole file
		}
		if _, err := Parse("docs/policy.md block", []byte(b[1])); err != nil {
			t.Errorf("docs/policy.md yaml block %d: %v", i+1, err)
		}
	}
}

// TestMotivatingCases checks the decision table of docs/policy.md against
// its "three motivating cases" policy and examples/policy/topic-rules.yaml.
func TestMotivatingCases(t *testing.T) {
	doc, err := os.ReadFile("../../docs/policy.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(doc), "## The three motivating cases")
	if !ok {
		t.Fatal("docs/policy.md lacks the motivating cases section")
	}
	block := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindStringSubmatch(after)
	docPolicy, err := Parse("docs/policy.md", []byte(block[1]))
	if err != nil {
		t.Fatal(err)
	}
	example, err := Load("../../examples/policy/topic-rules.yaml")
	if err != nil {
		t.Fatal(err)
	}
	week := map[string]string{"retention.ms": "604800000"}
	tests := []struct {
		name string
		req  Request
		rule string // "" = allowed
	}{
		{"create with a week", Request{Action: Create, Topic: "t", Post: st(3, 3, week)}, ""},
		{"modify down to a minute", Request{Action: Modify, Topic: "t", Pre: st(3, 3, week), Post: st(3, 3, map[string]string{"retention.ms": "60000"})}, "retention-floor"},
		{"compacted partitions up", Request{Action: Modify, Topic: "keyed", Pre: st(6, 3, map[string]string{"cleanup.policy": "compact"}), Post: st(12, 3, map[string]string{"cleanup.policy": "compact"})}, "compacted-partitions-fixed"},
		{"uncompacted partitions up", Request{Action: Modify, Topic: "logs", Pre: st(6, 3, nil), Post: st(12, 3, nil)}, ""},
		{"rf 2 with min isr 2", Request{Action: Create, Topic: "t", Post: st(1, 2, map[string]string{"min.insync.replicas": "2"})}, "durable-replication"},
		{"rf 2 without override", Request{Action: Create, Topic: "t", Post: st(1, 2, nil)}, ""},
	}
	for _, p := range []*Policy{docPolicy, example} {
		for _, tc := range tests {
			d := p.Evaluate(tc.req)
			if d.Allowed != (tc.rule == "") || d.Rule != tc.rule {
				t.Errorf("%s: %s: got %+v, want rule %q", p.Source(), tc.name, d, tc.rule)
			}
		}
	}
}

// TestMissingKeyForms pins how each way of reading a config key behaves
// when the key is absent (configs hold overrides only) or the map is nil.
func TestMissingKeyForms(t *testing.T) {
	tests := []struct {
		expr    string
		allowed bool // with the key absent
		errs    bool // evaluation error (denied, fail closed)
	}{
		{`has(post.configs.owner)`, false, false},
		{`!has(post.configs.owner)`, true, false},
		{`"owner" in post.configs`, false, false},
		{`post.configs[?"owner"].orValue("nobody") == "nobody"`, true, false},
		{`post.configs[?"owner"].hasValue()`, false, false},
		{`post.configs["owner"] == "x"`, false, true},
		{`post.configs["owner"] == "x" || true`, true, false}, // CEL's || absorbs the error
		{`post.configs.size() == 0`, true, false},
		{`post.assignment.size() == 0`, true, false},
	}
	for _, tc := range tests {
		for _, cfg := range []map[string]string{nil, {}, {"other": "1"}} {
			src := "version: 1\nrules:\n  - name: r\n    expr: '" + strings.ReplaceAll(tc.expr, "'", "''") + "'\n"
			p, err := Parse("missing.yaml", []byte(src))
			if err != nil {
				t.Fatalf("%s: %v", tc.expr, err)
			}
			if tc.expr == `post.configs.size() == 0` && len(cfg) > 0 {
				continue
			}
			d := p.Evaluate(Request{Action: Create, Topic: "t", Post: &TopicState{Partitions: 1, ReplicationFactor: 1, Configs: cfg}})
			if d.Allowed != tc.allowed {
				t.Errorf("%s with configs %v: got %+v, want allowed=%v", tc.expr, cfg, d, tc.allowed)
			}
			if got := strings.HasPrefix(d.Message, "evaluation error: "); got != tc.errs {
				t.Errorf("%s with configs %v: message %q, want evaluation error=%v", tc.expr, cfg, d.Message, tc.errs)
			}
		}
	}
}

// TestEvaluateConcurrent: a Policy is shared by plan workers; run with -race.
func TestEvaluateConcurrent(t *testing.T) {
	p, err := Parse("eval.yaml", []byte(evalPolicy))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan Decision)
	for i := 0; i < 8; i++ {
		go func(i int) {
			var d Decision
			for j := 0; j < 200; j++ {
				d = p.Evaluate(Request{Action: Modify, Topic: "keyed", Pre: st(3, 3, map[string]string{"cleanup.policy": "compact"}), Post: st(int32(4+i), 3, map[string]string{"cleanup.policy": "compact"})})
			}
			done <- d
		}(i)
	}
	for i := 0; i < 8; i++ {
		if d := <-done; d.Allowed || d.Rule != "compacted-partitions-fixed" {
			t.Errorf("concurrent Evaluate = %+v, want denied by compacted-partitions-fixed", d)
		}
	}
}
