package principalmap

//go:generate sh -c "java testdata/java/GenCase.java > javacase_table.go"

import (
	"fmt"
	"strings"
)

// javaCase is String.toLowerCase(Locale.ENGLISH) (upper false) or
// toUpperCase(Locale.ENGLISH), which Kafka applies for a rule's /L and /U.
// Java maps with Unicode's full mappings (İ lowers to "i̇", ß uppers to
// "SS"), which javacase_table.go holds character by character as JDK 17 does
// them. The one mapping that depends on context, Σ lowered to ς at the end
// of a word (found with a BreakIterator), is refused rather than guessed.
func javaCase(s string, upper bool) (string, error) {
	if err := checkText(s); err != nil {
		return "", err
	}
	tab := javaLower
	if upper {
		tab = javaUpper
	} else if strings.ContainsRune(s, 'Σ') && s != "Σ" {
		return "", &inputError{fmt.Sprintf("%q has Σ, which Java lowers to σ or ς by its place in a word; not evaluated", s)}
	}
	var b strings.Builder
	for _, r := range s {
		if m, ok := tab[r]; ok {
			b.WriteString(m)
		} else {
			b.WriteRune(r)
		}
	}
	return b.String(), nil
}
