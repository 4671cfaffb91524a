package policy

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"cel.dev/cel-go/cel"
	"go.yaml.in/yaml/v3"

	"github.com/zkmigrate/zkmigrate/internal/catalogue"
	"github.com/zkmigrate/zkmigrate/internal/infile"
)

// FormatVersion is the version of the policy file schema.
const FormatVersion = 1

// LoadError lists every problem found in a policy file, each naming
// file:line and, for rules, the rule and the position in its expression.
type LoadError struct {
	Problems []string
}

func (e *LoadError) Error() string {
	return "policy: " + strings.Join(e.Problems, "; ")
}

// Load reads, type-checks and compiles a policy file.
func Load(path string) (*Policy, error) {
	b, err := infile.ReadAll(path, infile.Policy)
	if err != nil {
		return nil, err
	}
	p, err := Parse(path, b)
	return p, infile.Wrap(path, infile.Policy, err)
}

// Parse type-checks and compiles a policy from data; name is used in
// errors and as the adapters' default source.
func Parse(name string, data []byte) (*Policy, error) {
	checkEnv, runEnv, err := envs()
	if err != nil {
		return nil, fmt.Errorf("policy: cel environment: %v", err)
	}
	l := &loader{name: name, lines: strings.Split(string(data), "\n"), check: checkEnv, run: runEnv}
	p := &Policy{source: name, digest: digest(data)}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, &LoadError{Problems: []string{yamlError(name, err)}}
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, &LoadError{Problems: []string{fmt.Sprintf("%s: empty policy file (want at least \"version: %d\")", name, FormatVersion)}}
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, &LoadError{Problems: []string{l.at(root, "a policy file is a mapping with version, rules and adapters")}}
	}
	var version *yaml.Node
	l.fields(root, "policy file", map[string]func(v *yaml.Node){
		"version": func(v *yaml.Node) { version = v },
		"rules": func(v *yaml.Node) {
			l.list(v, "rules", func(item *yaml.Node) {
				if r, ok := l.rule(item); ok {
					p.rules = append(p.rules, r)
				}
			})
		},
		"adapters": func(v *yaml.Node) {
			l.list(v, "adapters", func(item *yaml.Node) {
				if a, ok := l.adapter(item); ok {
					p.adapters = append(p.adapters, a)
				}
			})
		},
	})
	switch {
	case version == nil:
		l.errorf(root, "missing \"version: %d\"", FormatVersion)
	case version.Value != strconv.Itoa(FormatVersion):
		l.errorf(version, "version %s is not supported (this tool reads version %d)", version.Value, FormatVersion)
	}
	seen := map[string]string{}
	for _, r := range p.rules {
		if w, dup := seen[r.name]; dup {
			l.problems = append(l.problems, fmt.Sprintf("%s: rule %q: name already used at %s", r.where, r.name, w))
		}
		seen[r.name] = r.where
	}
	if len(l.problems) > 0 {
		return nil, &LoadError{Problems: l.problems}
	}
	return p, nil
}

type loader struct {
	name       string
	lines      []string
	check, run *cel.Env
	problems   []string
}

func (l *loader) where(n *yaml.Node) string { return fmt.Sprintf("%s:%d", l.name, n.Line) }

func (l *loader) at(n *yaml.Node, msg string) string { return l.where(n) + ": " + msg }

func (l *loader) errorf(n *yaml.Node, format string, args ...any) {
	l.problems = append(l.problems, l.at(n, fmt.Sprintf(format, args...)))
}

// fields walks a mapping, calling the handler of each known key and
// reporting unknown and repeated keys.
func (l *loader) fields(m *yaml.Node, what string, handlers map[string]func(v *yaml.Node)) {
	if m.Kind != yaml.MappingNode {
		l.errorf(m, "%s: want a mapping", what)
		return
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		h, ok := handlers[k.Value]
		if !ok {
			known := make([]string, 0, len(handlers))
			for n := range handlers {
				known = append(known, n)
			}
			slices.Sort(known)
			l.errorf(k, "%s: unknown key %q (known: %s)", what, k.Value, strings.Join(known, ", "))
			continue
		}
		if seen[k.Value] {
			l.errorf(k, "%s: key %q repeated", what, k.Value)
			continue
		}
		seen[k.Value] = true
		h(v)
	}
}

func (l *loader) list(n *yaml.Node, what string, each func(*yaml.Node)) {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return
	}
	if n.Kind != yaml.SequenceNode {
		l.errorf(n, "%s: want a list", what)
		return
	}
	for _, item := range n.Content {
		each(item)
	}
}

func (l *loader) str(n *yaml.Node, what string) (string, bool) {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		l.errorf(n, "%s: want a string", what)
		return "", false
	}
	return n.Value, true
}

func (l *loader) actions(n *yaml.Node, what string) (uint8, []Action, bool) {
	if n.Kind != yaml.SequenceNode {
		l.errorf(n, "%s: actions: want a list of CREATE, MODIFY, DELETE", what)
		return 0, nil, false
	}
	var bits uint8
	for _, a := range n.Content {
		b := Action(a.Value).bit()
		if a.Kind != yaml.ScalarNode || b == 0 {
			l.errorf(a, "%s: actions: unknown action %q (want CREATE, MODIFY or DELETE)", what, a.Value)
			return 0, nil, false
		}
		bits |= b
	}
	if bits == 0 {
		l.errorf(n, "%s: actions: empty list (leave actions out to mean all three)", what)
		return 0, nil, false
	}
	return bits, actionList(bits), true
}

func actionList(bits uint8) []Action {
	var out []Action
	for _, a := range Actions {
		if bits&a.bit() != 0 {
			out = append(out, a)
		}
	}
	return out
}

func (l *loader) rule(n *yaml.Node) (rule, bool) {
	r := rule{actions: 7, where: l.where(n)}
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == "name" {
				r.name = n.Content[i+1].Value
			}
		}
	}
	what := "rule"
	if r.name != "" {
		what = fmt.Sprintf("rule %q", r.name)
	}
	before := len(l.problems)
	var exprNode *yaml.Node
	l.fields(n, what, map[string]func(v *yaml.Node){
		"name": func(v *yaml.Node) {
			if s, ok := l.str(v, what+": name"); ok && strings.TrimSpace(s) == "" {
				l.errorf(v, "%s: empty name", what)
			}
		},
		"actions": func(v *yaml.Node) { r.actions, _, _ = l.actions(v, what) },
		"topics": func(v *yaml.Node) {
			s, ok := l.str(v, what+": topics")
			if !ok {
				return
			}
			re, err := regexp.Compile(`^(?:` + s + `)$`)
			if err != nil {
				l.errorf(v, "%s: topics: %v", what, err)
				return
			}
			r.topics = re
		},
		"expr":    func(v *yaml.Node) { exprNode = v },
		"message": func(v *yaml.Node) { r.message, _ = l.str(v, what+": message") },
	})
	if n.Kind != yaml.MappingNode {
		return r, false
	}
	if r.name == "" {
		l.errorf(n, "rule without a name")
	}
	if exprNode == nil {
		l.errorf(n, "%s: missing expr (a CEL expression that must be true to allow)", what)
	} else if src, ok := l.str(exprNode, what+": expr"); ok {
		r.prg = l.compile(exprNode, src, what)
	}
	if r.message == "" {
		r.message = fmt.Sprintf("denied by rule %q", r.name)
	}
	return r, len(l.problems) == before
}

// compile type-checks src against the typed environment, then builds the
// program from the dynamic one. Errors name the file line the expression
// position falls on and the position within the expression.
func (l *loader) compile(n *yaml.Node, src, what string) cel.Program {
	if strings.TrimSpace(src) == "" {
		l.errorf(n, "%s: empty expr", what)
		return nil
	}
	ast, iss := l.check.Compile(src)
	if iss.Err() != nil {
		for _, e := range iss.Errors() {
			line := n.Line
			if n.Style&(yaml.LiteralStyle) != 0 {
				line = n.Line + e.Location.Line()
			}
			l.problems = append(l.problems, fmt.Sprintf("%s:%d: %s: expr %d:%d: %s", l.name, line, what, e.Location.Line(), e.Location.Column()+1, e.Message))
		}
		return nil
	}
	if t := ast.OutputType(); !t.IsExactType(cel.BoolType) && !t.IsExactType(cel.DynType) {
		l.errorf(n, "%s: expr is of type %s; it must be a bool (true allows)", what, t)
		return nil
	}
	rast, iss := l.run.Compile(src)
	if iss.Err() != nil {
		l.errorf(n, "%s: expr: %v", what, oneLine(iss.Err().Error()))
		return nil
	}
	prg, err := l.run.Program(rast, cel.EvalOptions(cel.OptOptimize))
	if err != nil {
		l.errorf(n, "%s: expr: %v", what, oneLine(err.Error()))
		return nil
	}
	return prg
}

func oneLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

func (l *loader) adapter(n *yaml.Node) (Adapter, bool) {
	a := Adapter{Source: l.where(n)}
	what := "adapter"
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == "class" {
				what = fmt.Sprintf("adapter %s", n.Content[i+1].Value)
			}
		}
	}
	before := len(l.problems)
	var bits uint8
	l.fields(n, what, map[string]func(v *yaml.Node){
		"class": func(v *yaml.Node) { a.Class, _ = l.str(v, what+": class") },
		"scope": func(v *yaml.Node) {
			s, ok := l.str(v, what+": scope")
			if ok && s != ScopeCreate && s != ScopeAlterConfig {
				l.errorf(v, "%s: scope %q (want %q or %q)", what, s, ScopeCreate, ScopeAlterConfig)
			}
			a.Scope = s
		},
		"actions": func(v *yaml.Node) { bits, a.Actions, _ = l.actions(v, what) },
		"source":  func(v *yaml.Node) { a.Source, _ = l.str(v, what+": source") },
		"config": func(v *yaml.Node) {
			if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
				return
			}
			if v.Kind != yaml.MappingNode {
				l.errorf(v, "%s: config: want a mapping of property → value", what)
				return
			}
			a.Config = map[string]string{}
			for i := 0; i+1 < len(v.Content); i += 2 {
				k, val := v.Content[i], v.Content[i+1]
				if catalogue.LooksSensitive(k.Value) {
					l.errorf(k, "%s: config: %s looks secret; a policy file must not hold secrets (set it on the controllers)", what, k.Value)
					continue
				}
				if s, ok := l.str(val, what+": config: "+k.Value); ok {
					a.Config[k.Value] = s
				}
			}
		},
	})
	if n.Kind != yaml.MappingNode {
		return a, false
	}
	if a.Class == "" {
		l.errorf(n, "adapter without a class")
	}
	if a.Scope == "" {
		l.errorf(n, "%s: missing scope (%q or %q)", what, ScopeCreate, ScopeAlterConfig)
	}
	if bits == 0 {
		switch a.Scope {
		case ScopeCreate:
			a.Actions = []Action{Create}
		case ScopeAlterConfig:
			a.Actions = []Action{Modify}
		}
	}
	return a, len(l.problems) == before
}

// yamlError turns "yaml: line 3: ..." into "file:3: ...".
func yamlError(name string, err error) string {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if n, tail, ok := strings.Cut(rest, ": "); ok {
			if _, err := strconv.Atoi(n); err == nil {
				return fmt.Sprintf("%s:%s: %s", name, n, oneLine(tail))
			}
		}
	}
	return fmt.Sprintf("%s: %s", name, oneLine(msg))
}
