#!/usr/bin/env bash
# tui-demo-tmux.sh: smoke test of the interactive TUI in a real terminal.
#
# Starts the demo in a detached tmux session of 100x30, sends keys
# (navigate, exclude a group, confirm, apply), captures the pane and greps
# it for the expected text at every step. Exits non-zero on a mismatch or
# when a step takes longer than STEP_TIMEOUT seconds. Needs tmux and Go.
#
#   DEMO_CMD   command to run (default: a build of ./tui/cmd/tuidemo; once
#              `migrate demo` exists, DEMO_CMD="./migrate demo" runs it)
#   STEP_TIMEOUT  seconds to wait for each screen (default 30)
#   KEEP_PANES    directory to keep the captured panes in (default: a temp dir)
set -euo pipefail
cd "$(dirname "$0")/.."

command -v tmux >/dev/null || { echo "tui-demo-tmux: tmux is not installed (apt-get install -y tmux)" >&2; exit 1; }
STEP_TIMEOUT=${STEP_TIMEOUT:-30}
work=$(mktemp -d)
panes=${KEEP_PANES:-$work}
mkdir -p "$panes"
session="zkm-tui-demo-$$"

cleanup() {
	tmux kill-session -t "$session" 2>/dev/null || true
	[ -n "${KEEP_PANES:-}" ] || rm -rf "$work"
}
trap cleanup EXIT

if [ -z "${DEMO_CMD:-}" ]; then
	timeout 600 go build -o "$work/tuidemo" ./tui/cmd/tuidemo
	DEMO_CMD="$work/tuidemo -delay 200ms"
fi

# The pane stays open after the program exits so that its exit code and
# last output can be checked.
tmux new-session -d -s "$session" -x 100 -y 30 \
	"$DEMO_CMD; echo \"DEMO-EXIT=\$?\"; sleep 600"

step=0
# expect TEXT...: wait until the pane shows every TEXT, else fail.
expect() {
	step=$((step + 1))
	local deadline=$((SECONDS + STEP_TIMEOUT)) file
	file="$panes/step-$step.txt"
	while :; do
		tmux capture-pane -p -t "$session" >"$file" 2>/dev/null || true
		local ok=1
		for t in "$@"; do
			grep -qF -- "$t" "$file" || { ok=0; break; }
		done
		[ $ok = 1 ] && { echo "ok $step: $*"; return 0; }
		if [ $SECONDS -ge $deadline ]; then
			echo "FAIL step $step: pane does not show: $*" >&2
			echo "---- pane ----" >&2
			cat "$file" >&2
			exit 1
		fi
		sleep 0.2
	done
}

keys() { tmux send-keys -t "$session" "$@"; }

expect "Plan review" "selected" "space include/exclude"
keys j j j                    # navigate into the first group
expect "4/"
keys x                        # exclude the whole group under the cursor
expect "excluded all of"
keys Enter                    # go to the confirmation
expect "Apply these" "not in the selection"
keys y                        # apply
expect "Apply" "done/total"
expect "Apply finished" "audit run id"
keys Enter                    # leave the end screen
expect "DEMO-EXIT="
# The demo exits 0, or 3 when a resource failed (the fake apply fails one).
code=$(sed -n 's/.*DEMO-EXIT=\([0-9]*\).*/\1/p' "$panes/step-$step.txt" | tail -1)
case "$code" in
0 | 3) ;;
*) echo "FAIL: the demo exited with $code" >&2; cat "$panes/step-$step.txt" >&2; exit 1 ;;
esac
echo "tui-demo-tmux: all $step steps passed (panes in $panes)"
