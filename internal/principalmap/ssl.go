package principalmap

import (
	"fmt"
	"strconv"
	"strings"
)

// SSL rules: Kafka's SslPrincipalMapper (clients/src/main/java/org/apache/
// kafka/common/security/ssl/SslPrincipalMapper.java), which turns a client
// certificate's distinguished name (X500Principal.getName(), RFC 2253) into
// the principal's name under ssl.principal.mapping.rules.

// Kafka splits and parses the rules with these two patterns; they are
// evaluated here through the same translation as the rules' own patterns.
const (
	sslRulePattern = `(DEFAULT)|RULE:((\\.|[^\\/])*)/((\\.|[^\\/])*)/([LU]?).*?|(.*?)`
)

var (
	sslRuleSplitter = mustJava(`\s*(` + sslRulePattern + `)\s*(,\s*|$)`)
	sslRuleParser   = mustJava(sslRulePattern)
	sslBackRef      = mustJava(`\$(\d+)`)
)

func mustJava(p string) *javaRegex {
	j, err := compileJava(p)
	if err != nil {
		panic(fmt.Sprintf("principalmap: %s: %v", p, err))
	}
	return j
}

// sslRules is a parsed ssl.principal.mapping.rules value.
type sslRules struct {
	rules []sslRule
}

type sslRule struct {
	text        string // as written, for How
	isDefault   bool
	pattern     *javaRegex
	replacement string
	lower       bool
	upper       bool
}

// RuleError is a rule that Kafka refuses (Unsupported false: the broker would
// not start with it) or that Kafka accepts and this tool cannot evaluate
// exactly as Kafka does (Unsupported true).
type RuleError struct {
	Rule        string
	Msg         string
	Unsupported bool
	// Class is the Java exception Kafka throws for a rule it refuses
	// (IllegalArgumentException, PatternSyntaxException,
	// NumberFormatException); empty when Unsupported.
	Class string
}

func (e *RuleError) Error() string {
	return fmt.Sprintf("rule %q: %s", e.Rule, e.Msg)
}

// parseSSLRules parses a value of ssl.principal.mapping.rules as
// SslPrincipalMapper.fromRules does: the value trimmed, split into rules
// (RULE:pattern/replacement/[LU] or DEFAULT, commas between them), each
// checked to its end; an empty value has no rules at all.
func parseSSLRules(value string) (*sslRules, error) {
	trimmed := javaTrim(value)
	if err := sslRuleSplitter.checkInput(trimmed); err != nil {
		return nil, &RuleError{Rule: value, Msg: err.Error(), Unsupported: true}
	}
	var texts []string
	_ = sslRuleSplitter.findAll(trimmed, func(loc []int) error {
		texts = append(texts, group(trimmed, loc, 1))
		return nil
	})
	out := &sslRules{}
	for _, text := range texts {
		loc, err := parseRule(sslRuleParser, text)
		if err != nil {
			return nil, err
		}
		switch {
		case loc[2] >= 0: // DEFAULT
			out.rules = append(out.rules, sslRule{text: text, isDefault: true})
		case loc[4] >= 0:
			pat, repl, lu := group(text, loc, 2), group(text, loc, 4), group(text, loc, 6)
			j, err := compileJava(pat)
			if err != nil {
				return nil, patternRuleError(text, err)
			}
			if err := checkText(repl); err != nil {
				return nil, &RuleError{Rule: text, Msg: "replacement: " + err.Error(), Unsupported: true}
			}
			out.rules = append(out.rules, sslRule{text: text, pattern: j, replacement: repl, lower: lu == "L", upper: lu == "U"})
		default: // an empty rule is ignored
		}
	}
	return out, nil
}

// parseRule matches one rule's text with Kafka's rule pattern as Kafka does
// (Matcher.lookingAt, then the whole text must have been taken): the
// groups, or Kafka's "Invalid rule" refusal.
func parseRule(parser *javaRegex, text string) ([]int, error) {
	if err := parser.checkInput(text); err != nil {
		return nil, &RuleError{Rule: text, Msg: err.Error(), Unsupported: true}
	}
	loc := parser.find(text, 0)
	if loc == nil || loc[0] != 0 {
		return nil, &RuleError{Rule: text, Msg: "invalid rule", Class: "IllegalArgumentException"}
	}
	if loc[1] != len(text) {
		return nil, &RuleError{Rule: text, Msg: fmt.Sprintf("invalid rule: unmatched substring %q", text[loc[1]:]), Class: "IllegalArgumentException"}
	}
	return loc, nil
}

// patternRuleError words a pattern's refusal for its rule.
func patternRuleError(rule string, err error) *RuleError {
	pe, ok := err.(*patternError)
	if ok && pe.kind == errMalformed {
		return &RuleError{Rule: rule, Msg: "pattern: " + err.Error(), Class: "PatternSyntaxException"}
	}
	return &RuleError{Rule: rule, Msg: "pattern: " + err.Error(), Unsupported: true}
}

// group returns submatch i of s, "" when it did not take part.
func group(s string, loc []int, i int) string {
	if loc[2*i] < 0 {
		return ""
	}
	return s[loc[2*i]:loc[2*i+1]]
}

// javaTrim is String.trim: every character up to U+0020 off both ends.
func javaTrim(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return r <= ' ' })
}

// name maps a distinguished name as SslPrincipalMapper.getName does: the
// first rule whose pattern matches the whole name gives
// name.replaceAll(pattern, replacement), lowered or uppered in English;
// DEFAULT gives the name itself. An error is a *noMatchError when no rule
// applies, a *javaError for an exception Kafka would throw (authentication
// fails), an *inputError for a name this tool cannot evaluate exactly.
func (r *sslRules) name(dn string) (string, string, error) {
	for _, rule := range r.rules {
		if rule.isDefault {
			return dn, rule.text, nil
		}
		if err := rule.pattern.checkInput(dn); err != nil {
			return "", rule.text, err
		}
		if !rule.pattern.matches(dn) {
			continue
		}
		repl, err := escapeLiteralBackReferences(rule.replacement, rule.pattern.groups)
		if err != nil {
			return "", rule.text, err
		}
		out, err := rule.pattern.replace(dn, repl, true)
		if err != nil {
			return "", rule.text, err
		}
		if rule.lower || rule.upper {
			if out, err = javaCase(out, rule.upper); err != nil {
				return "", rule.text, err
			}
		}
		return out, rule.text, nil
	}
	return "", "", &noMatchError{Name: dn, Rules: "ssl.principal.mapping.rules"}
}

// escapeLiteralBackReferences is the Rule method of that name (taken by
// Kafka from Apache NiFi): a $n naming a group the pattern does not have is
// made literal ("\$n"), after cutting digits off its end while that names no
// group ($12 with one group is $1 and "2"). Kafka finds the references in
// the original replacement and inserts each backslash at the reference's
// position in the string already changed, so after one insertion later ones
// land one character early; that is reproduced.
func escapeLiteralBackReferences(unescaped string, groups int) (string, error) {
	if groups == 0 {
		return unescaped, nil
	}
	value := []rune(unescaped)
	var err error
	_ = sslBackRef.findAll(unescaped, func(loc []int) error {
		num := unescaped[loc[2]:loc[3]]
		if strings.HasPrefix(num, "0") {
			return nil
		}
		idx, perr := strconv.ParseInt(num, 10, 32)
		if perr != nil {
			err = &javaError{"NumberFormatException", fmt.Sprintf("For input string: %q", num)}
			return err
		}
		for idx > int64(groups) && idx >= 10 {
			idx /= 10
		}
		if idx > int64(groups) {
			at := len([]rune(unescaped[:loc[2]])) - 1 // the '$', in characters
			value = append(value[:at:at], append([]rune{'\\'}, value[at:]...)...)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	return string(value), nil
}

// noMatchError is Kafka's NoMatchingRule: no rule applies to Name.
type noMatchError struct {
	Name  string
	Rules string // the key whose rules were tried
}

func (e *noMatchError) Error() string {
	return fmt.Sprintf("no rule of %s applies to %q", e.Rules, e.Name)
}
