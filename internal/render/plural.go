package render

import "strconv"

// N counts n of a thing in English: "1 change", "2 changes", "0 runs";
// plural is the plural form when it is not the noun and an "s".
func N(n int, noun string, plural ...string) string {
	if n == 1 {
		return "1 " + noun
	}
	if len(plural) > 0 {
		return strconv.Itoa(n) + " " + plural[0]
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
