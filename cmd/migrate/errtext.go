package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/zkmigrate/zkmigrate/internal/cmdline"
	"github.com/zkmigrate/zkmigrate/internal/render"
)

// outputError words a view's refusal of an -o value as the flag's:
// `-o "yaml": want text, json or markdown`.
func outputError(err error) error {
	var oe *render.OutputError
	if !errors.As(err, &oe) {
		return err
	}
	want := make([]string, len(oe.Want))
	for i, o := range oe.Want {
		want[i] = string(o)
	}
	list := want[len(want)-1]
	if len(want) > 1 {
		list = strings.Join(want[:len(want)-1], ", ") + " or " + list
	}
	return fmt.Errorf("-o %q: want %s%s", oe.Output, list, cmdline.DidYouMean(string(oe.Output), want, ""))
}
