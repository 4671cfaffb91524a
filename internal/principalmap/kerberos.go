package principalmap

import (
	"fmt"
	"strconv"
)

// Kerberos rules: Kafka's KerberosShortNamer, KerberosRule and KerberosName
// (clients/src/main/java/org/apache/kafka/common/security/kerberos/), which
// turn a Kerberos principal primary[/instance]@REALM into the principal's
// name under sasl.kerberos.principal.to.local.rules.

var (
	krbRuleParser = mustJava(`((DEFAULT)|((RULE:\[(\d*):([^\]]*)](\(([^)]*)\))?(s/([^/]*)/([^/]*)/(g)?)?/?(L|U)?)))`)
	krbNameParser = mustJava(`([^/@]*)(/([^/@]*))?@([^/@]*)`)
	krbParameter  = mustJava(`([^$]*)(\$(\d*))?`)
	krbNonSimple  = mustJava(`[/@]`)
	listSplitter  = mustJava(`\s*,\s*`)
)

// krbRules is a parsed sasl.kerberos.principal.to.local.rules value
// with the default realm Kafka would take from the JVM's Kerberos
// configuration.
type krbRules struct {
	realm string
	rules []krbRule
}

type krbRule struct {
	text       string
	isDefault  bool
	components int
	format     string
	match      *javaRegex // nil: none
	from       *javaRegex // nil: no substitution
	to         string
	repeat     bool
	lower      bool
	upper      bool
}

// splitList splits a LIST config value as Kafka's ConfigDef does: trimmed,
// empty for an empty value, else split at commas with the whitespace around
// them, empty pieces kept.
func splitList(value string) []string {
	trimmed := javaTrim(value)
	if trimmed == "" {
		return nil
	}
	var out []string
	last := 0
	_ = listSplitter.findAll(trimmed, func(loc []int) error {
		out = append(out, trimmed[last:loc[0]])
		last = loc[1]
		return nil
	})
	return append(out, trimmed[last:])
}

// parseKerberosRules parses rules as KerberosShortNamer.fromUnparsedRules
// does, with realm as the default realm.
func parseKerberosRules(realm string, rules []string) (*krbRules, error) {
	out := &krbRules{realm: realm}
	for _, text := range rules {
		loc, err := parseRule(krbRuleParser, text)
		if err != nil {
			return nil, err
		}
		if loc[4] >= 0 {
			out.rules = append(out.rules, krbRule{text: text, isDefault: true})
			continue
		}
		n, err := strconv.ParseInt(group(text, loc, 5), 10, 32)
		if err != nil {
			return nil, &RuleError{Rule: text, Msg: fmt.Sprintf("component count %q is not a number", group(text, loc, 5)), Class: "NumberFormatException"}
		}
		r := krbRule{text: text, components: int(n), format: group(text, loc, 6),
			to: group(text, loc, 11), repeat: group(text, loc, 12) == "g",
			lower: group(text, loc, 13) == "L", upper: group(text, loc, 13) == "U"}
		if err := checkText(r.format); err != nil {
			return nil, &RuleError{Rule: text, Msg: "format: " + err.Error(), Unsupported: true}
		}
		if err := checkText(r.to); err != nil {
			return nil, &RuleError{Rule: text, Msg: "replacement: " + err.Error(), Unsupported: true}
		}
		if loc[16] >= 0 {
			if r.match, err = compileJava(group(text, loc, 8)); err != nil {
				return nil, patternRuleError(text, err)
			}
		}
		if loc[20] >= 0 {
			if r.from, err = compileJava(group(text, loc, 10)); err != nil {
				return nil, patternRuleError(text, err)
			}
		}
		out.rules = append(out.rules, r)
	}
	return out, nil
}

// isKerberosName reports whether name has the form
// primary[/instance]@REALM that KerberosName.parse splits.
func isKerberosName(name string) bool {
	return checkText(name) == nil && krbNameParser.matches(name)
}

// shortName maps a Kerberos name as KerberosShortNamer.shortName(
// KerberosName.parse(name)) does: a name without '@' is returned as it is;
// otherwise the first rule that gives a name wins. Errors are as for
// sslRules.Name, plus a *javaError (IllegalArgumentException) for a
// malformed name and Kafka's "non-simple name" (a result with '/' or '@'),
// which is a NoMatchingRule there.
func (k *krbRules) shortName(name string) (string, string, error) {
	if err := checkText(name); err != nil {
		return "", "", err
	}
	loc := krbNameParser.whole.FindStringSubmatchIndex(name)
	if loc == nil {
		for _, c := range name {
			if c == '@' {
				return "", "", &javaError{"IllegalArgumentException", "Malformed Kerberos name: " + name}
			}
		}
		return name, "", nil
	}
	params := []string{group(name, loc, 4), group(name, loc, 1)}
	if loc[4] >= 0 {
		params = append(params, group(name, loc, 3))
	}
	for _, r := range k.rules {
		out, ok, err := r.apply(k.realm, params)
		if err != nil {
			return "", r.text, err
		}
		if ok {
			return out, r.text, nil
		}
	}
	return "", "", &noMatchError{Name: name, Rules: "sasl.kerberos.principal.to.local.rules"}
}

// nonSimpleError is Kafka's "Non-simple name" NoMatchingRule: a rule gave a
// name with '/' or '@'.
type nonSimpleError struct {
	Result string
	Rule   string
}

func (e *nonSimpleError) Error() string {
	return fmt.Sprintf("rule %q gives %q, which has '/' or '@' (Kafka: non-simple name)", e.Rule, e.Result)
}

// apply is KerberosRule.apply: the short name and true when the rule
// applies.
func (r krbRule) apply(realm string, params []string) (string, bool, error) {
	var result string
	ok := false
	if r.isDefault {
		if realm == params[0] {
			result, ok = params[1], true
		}
	} else if len(params)-1 == r.components {
		base, err := replaceParameters(r.format, params)
		if err != nil {
			return "", false, err
		}
		matched := true
		if r.match != nil {
			if err := r.match.checkInput(base); err != nil {
				return "", false, err
			}
			matched = r.match.matches(base)
		}
		if matched {
			if r.from == nil {
				result, ok = base, true
			} else {
				if err := r.from.checkInput(base); err != nil {
					return "", false, err
				}
				if result, err = r.from.replace(base, r.to, r.repeat); err != nil {
					return "", false, err
				}
				ok = true
			}
		}
	}
	if !ok {
		return "", false, nil
	}
	if krbNonSimple.find(result, 0) != nil {
		return "", false, &nonSimpleError{Result: result, Rule: r.text}
	}
	if r.lower || r.upper {
		out, err := javaCase(result, r.upper)
		if err != nil {
			return "", false, err
		}
		result = out
	}
	return result, true, nil
}

// replaceParameters is KerberosRule.replaceParameters: $n in format becomes
// params[n] ($0 the realm, $1 the primary, $2 the instance).
func replaceParameters(format string, params []string) (string, error) {
	var out []byte
	start := 0
	for start < len(format) {
		loc := krbParameter.find(format, start)
		if loc == nil {
			break
		}
		out = append(out, group(format, loc, 1)...)
		if loc[6] >= 0 {
			digits := group(format, loc, 3)
			num, err := strconv.ParseInt(digits, 10, 32)
			if err != nil {
				return "", &javaError{"BadFormatString", "bad format in username mapping in " + digits}
			}
			if num < 0 || num >= int64(len(params)) {
				return "", &javaError{"BadFormatString", fmt.Sprintf("index %d from %s is outside of the valid range 0 to %d", num, format, len(params)-1)}
			}
			out = append(out, params[num]...)
		}
		start = loc[1]
	}
	return string(out), nil
}
