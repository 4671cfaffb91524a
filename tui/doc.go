// Package tui is the interactive terminal UI of migrate, built with
// bubbletea v2: a plan review with selection, a confirmation, an apply with
// live progress, an audit history browser and a loading screen.
//
// It is a reader of the same values the text output reads: a *plan.Plan and
// apply events. It has no logic of its own about what to migrate: it shows a
// plan, lets the user choose among its changes, and runs the apply function
// it is given. It never reads a secret's value (secret.Secret prints its
// reference only, and the TUI never calls Reveal).
//
// The root model is a router (root.go) over screens that share a Common
// (sizes, styles, keys). All I/O runs in tea.Cmd functions.
package tui
