package tui

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// Every list of the TUI (the review, the confirmation, the history, the
// sync screen, the apply's errors) shows a change's identity whole: a row
// that does not fit its width wraps onto more lines instead of being cut.
// Descriptions (a change's fields, a reason) may be condensed to the lines
// the identity takes, always saying what was left out; `d` shows them all.

// breakAfter are the characters a wrapped line may end after, best first:
// a line ends after a space or comma when one falls in its second half,
// else after one of ";:=/", else after "-" or ".".
var breakAfter = []string{" ,", ";:=/", "-."}

// wrapCells breaks plain text into lines no wider than w cells, keeping
// every character in order (joined, the lines are s again, so two
// different texts never wrap alike): a line ends after the best break
// (breakAfter) in its second half, else it is cut at w cells.
func wrapCells(s string, w int) []string {
	w = max(w, 1)
	if ansi.StringWidth(s) <= w {
		return []string{s}
	}
	var out []string
	for s != "" {
		cells, cut := 0, len(s)
		brk := make([]int, len(breakAfter))
		for i, r := range s {
			n := utf8.RuneLen(r)
			if n < 0 {
				n = 1
			}
			rw := ansi.StringWidth(s[i : i+n])
			if cells+rw > w {
				cut = i
				break
			}
			cells += rw
			if cells*2 >= w {
				for c, set := range breakAfter {
					if strings.ContainsRune(set, r) {
						brk[c] = i + n
					}
				}
			}
		}
		if cut == len(s) {
			out = append(out, s)
			break
		}
		for _, b := range brk {
			if b > 0 {
				cut = b
				break
			}
		}
		if cut == 0 { // one character wider than w
			_, cut = utf8.DecodeRuneInString(s)
		}
		out = append(out, s[:cut])
		s = s[cut:]
	}
	return out
}

// hang wraps text to w cells after a first-line prefix, indenting the
// following lines by the prefix's width.
func hang(prefix, text string, w int) []string {
	pw := ansi.StringWidth(prefix)
	lines := wrapCells(text, w-pw)
	pad := strings.Repeat(" ", pw)
	for i := range lines {
		if i == 0 {
			lines[i] = prefix + lines[i]
		} else {
			lines[i] = pad + lines[i]
		}
	}
	return lines
}

// condense wraps prose into at most n lines of w cells; when it needs more,
// the last line ends with more (for example "(d: more)") instead.
func condense(text string, w, n int, more string) []string {
	return capLines(wrapCells(text, w), max(n, 1), w, more)
}

// capLines keeps at most n lines, ending the last with more when it left
// lines out.
func capLines(lines []string, n, w int, more string) []string {
	if len(lines) <= n {
		return lines
	}
	lines = append([]string(nil), lines[:n]...)
	last := []rune(lines[n-1])
	mw := ansi.StringWidth(more) + 1
	for len(last) > 0 && ansi.StringWidth(string(last))+mw > w {
		last = last[:len(last)-1]
	}
	// End at a word when there is one to end at.
	if i := strings.LastIndexByte(string(last), ' '); i > len(string(last))/2 {
		last = []rune(string(last)[:i])
	}
	lines[n-1] = strings.TrimRight(string(last), " ") + " " + more
	return lines
}

// listParts joins whole parts with ", " into at most n lines of w cells;
// the parts that do not fit are counted ("+3 more"), never cut. When not
// even the first part fits, it may take one more line, and when it still
// does not, the keys alone are listed the same way.
func listParts(parts, keys []string, w, n int) []string {
	n = max(n, 1)
	if len(parts) == 0 {
		return nil
	}
	try := func(parts []string, lines int) []string {
		for k := len(parts); k > 0; k-- {
			text := strings.Join(parts[:k], ", ")
			if rest := len(parts) - k; rest > 0 {
				text += fmt.Sprintf(", +%d more", rest)
			}
			if out := wrapCells(text, w); len(out) <= lines {
				return out
			}
		}
		return nil
	}
	for _, t := range []struct {
		parts []string
		lines int
	}{{parts, n}, {parts, n + 1}, {keys, n + 1}} {
		if out := try(t.parts, t.lines); out != nil {
			return out
		}
	}
	return wrapCells(fmt.Sprintf("%d fields", len(parts)), w)
}

// columns lays out cells side by side: cell i's lines go in a column of
// widths[i] cells (the last column takes what its lines hold), separated
// by sep; the row is as tall as its tallest cell.
func columns(sep string, widths []int, cells ...[]string) []string {
	h := 0
	for _, c := range cells {
		h = max(h, len(c))
	}
	out := make([]string, h)
	for l := 0; l < h; l++ {
		var b strings.Builder
		for i, c := range cells {
			if i > 0 {
				b.WriteString(sep)
			}
			s := ""
			if l < len(c) {
				s = c[l]
			}
			if i < len(cells)-1 {
				s = pad(s, widths[i])
			}
			b.WriteString(s)
		}
		out[l] = strings.TrimRight(b.String(), " ")
	}
	return out
}

// pad pads text (which may be styled) with spaces to w cells.
func pad(s string, w int) string {
	if n := w - ansi.StringWidth(s); n > 0 {
		return s + strings.Repeat(" ", n)
	}
	return s
}

// keepVisible returns the first item to draw so that item cur shows whole
// in h lines, moving as little as possible from offset; height gives an
// item's lines. It looks at no more than h items.
func keepVisible(offset, cur, h int, height func(i int) int) int {
	if cur < offset {
		return cur
	}
	offset = max(offset, cur-h+1) // every item takes a line at least
	used := 0
	for i := cur; i >= offset; i-- {
		used += height(i)
		if used > h && i < cur {
			return i + 1
		}
	}
	return offset
}

// lastOffset is the largest first item that still fills h lines with the
// items up to n-1 (so that scrolling stops at the end of a list).
func lastOffset(n, h int, height func(i int) int) int {
	used := 0
	for i := n - 1; i >= 0; i-- {
		used += height(i)
		if used >= h {
			if used > h && i < n-1 {
				return i + 1
			}
			return i
		}
	}
	return 0
}
