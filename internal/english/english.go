// Package english counts things in English: "1 change", "2 changes". It is
// a leaf: it imports nothing of the project, so every package may use it.
package english

import "strconv"

// N counts n of a thing in English: "1 change", "2 changes", "0 runs";
// plural is the plural form when it is not the noun and an "s"
// (N(2, "entry", "entries") is "2 entries").
func N(n int, noun string, plural ...string) string {
	if n == 1 {
		return "1 " + noun
	}
	if len(plural) > 0 {
		return strconv.Itoa(n) + " " + plural[0]
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// Agree picks the word that agrees with a count of n: one for 1, many
// otherwise ("1 change is", "2 changes are": Agree(n, "is", "are")).
func Agree(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
