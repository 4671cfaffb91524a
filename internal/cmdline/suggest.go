package cmdline

import (
	"errors"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Suggest returns the candidate a mistyped word most likely meant: the
// closest within two edits (a letter added, dropped, changed or two
// swapped), or one the word starts or ends with a plural "s" of; "" when
// none is that close, or two are equally close.
func Suggest(typed string, candidates []string) string {
	t := strings.ToLower(typed)
	best, bestD, tie := "", 3, false
	for _, c := range candidates {
		lc := strings.ToLower(c)
		d := distance(t, lc)
		if t == lc+"s" || t == lc+"es" {
			d = 1
		}
		switch {
		case d < bestD:
			best, bestD, tie = c, d, false
		case d == bestD && c != best:
			tie = true
		}
	}
	if best == "" || tie || bestD >= len(t) {
		return ""
	}
	return best
}

// DidYouMean is "; did you mean X?" for Suggest's answer, or "".
func DidYouMean(typed string, candidates []string, prefix string) string {
	if s := Suggest(typed, candidates); s != "" {
		return "; did you mean " + prefix + s + "?"
	}
	return ""
}

// distance is the optimal string alignment distance of a and b: edits
// (insert, delete, substitute) and swaps of two neighbouring letters.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range rb {
		d[0][j+1] = j + 1
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}

// FlagErrorTextFor is FlagErrorText for an error of cmd's flags: an
// unknown flag gets the suggestion of one of cmd's flags
// ("unknown flag --bootsrap-server; did you mean --bootstrap-server?").
func FlagErrorTextFor(cmd *cobra.Command, err error) string {
	text := FlagErrorText(err)
	var notExist *pflag.NotExistError
	if cmd == nil || !errors.As(err, &notExist) || notExist.GetSpecifiedShortnames() != "" {
		return text
	}
	var names []string
	add := func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	}
	cmd.LocalFlags().VisitAll(add)
	cmd.InheritedFlags().VisitAll(add)
	return text + DidYouMean(notExist.GetSpecifiedName(), names, "--")
}
