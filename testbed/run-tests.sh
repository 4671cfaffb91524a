#!/usr/bin/env bash
# run-tests.sh — what `make test` (and so CI) runs:
#   1. install what is missing (Java and Maven from Debian, Go modules) and
#      check that go.mod and go.sum are tidy;
#   2. fetch the Kafka jars (cached in $TESTBED_DIR/lib39, lib41);
#   3. start ZooKeeper, Kafka 3.9 and Kafka 4.1 on fresh data dirs;
#   4. create the legacy state through Kafka 3.9, then the old releases'
#      (0.11, 1.1, 2.4, 2.8) through their own tools, one after another, each
#      in its chroot, its brokers stopped once it is written;
#   5. run go test on every package with the test bed's env vars;
#   6. run every fuzz target briefly, every benchmark once at a small size
#      (so they cannot rot), and the TUI smoke test in tmux;
#   7. stop the servers whatever happened, and exit non-zero if any step failed.
# CI_EXTRAS=0 skips step 6; FUZZTIME sets the budget per fuzz target
# (20000x: an execution count, not a duration; see fuzz_briefly).
# GO_TEST_FLAGS overrides the go test flags; GO_TEST_PKGS the packages.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
TB=testbed/testbed.sh
if ! command -v "${GO:-go}" >/dev/null && [[ -x /usr/local/go/bin/go ]]; then
	PATH=/usr/local/go/bin:$PATH
fi
GO=${GO:-go}
# -timeout 45m: a package that drives the real servers end to end (cmd/migrate)
# can pass go test's default 10 minutes on a loaded 2-core machine.
# -p 1: packages share one set of servers (and fault tests restart the
# target), so their test binaries run one at a time.
read -r -a FLAGS <<<"${GO_TEST_FLAGS:--count=1 -p 1 -timeout 45m}"
read -r -a PKGS <<<"${GO_TEST_PKGS:-./...}"

TBDIR=${TESTBED_DIR:-$ROOT/.testbed}
mkdir -p "$TBDIR"

step() {
	local name=$1 t0=$SECONDS
	shift
	echo "== $name" >&2
	"$@"
	echo "== $name: $((SECONDS - t0))s" >&2
}

install_missing() {
	local pkgs=()
	command -v javac >/dev/null || pkgs+=(default-jdk-headless) # the Java source launcher needs the JDK
	command -v mvn >/dev/null || pkgs+=(maven)
	command -v make >/dev/null || pkgs+=(make)
	command -v gcc >/dev/null || pkgs+=(gcc libc6-dev) # cgo: mattn/go-sqlite3
	command -v tmux >/dev/null || pkgs+=(tmux)        # the TUI smoke test
	if ((${#pkgs[@]})); then
		echo "installing ${pkgs[*]} (apt-get)" >&2
		apt-get update -qq
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${pkgs[@]}" >/dev/null
	fi
	"$GO" mod download
	# go.mod and go.sum stay tidy (direct requires apart from indirect ones).
	# Online: tidy also reads the modules that only the tests of our
	# dependencies import (prometheus's testify, goleak, godebug), which
	# go mod download leaves out, so offline it fails on a fresh machine.
	if ! "$GO" mod tidy -diff >&2; then
		echo "go.mod/go.sum are not tidy: run go mod tidy (the diff is above)" >&2
		return 1
	fi
}

# Stop the servers whatever happened; quietly, so go test's summary stays the
# last thing printed.
finish() {
	local rc=$?
	"$TB" stop all >>"$TBDIR/stop.log" 2>&1 || echo "testbed: stop failed, see $TBDIR/stop.log" >&2
	exit "$rc"
}
trap finish EXIT

step install install_missing
step fetch "$TB" fetch
step clean "$TB" clean # fresh data dirs every run
step start "$TB" start all
step legacy "$TB" legacy
step old "$TB" old all
eval "$("$TB" env)"

# fuzz_briefly runs every fuzz target for FUZZTIME (a smoke run; the
# corpora in testdata/fuzz are replayed by go test itself). The budget is a
# count of executions: a duration makes Go 1.26's fuzz coordinator race its
# own deadline and fail with a bare "context deadline exceeded" and no
# failing input (golang/go#75804, fixed in Go 1.27).
fuzz_briefly() {
	local pkg name
	for pkg in $("$GO" list ./...); do
		for name in $("$GO" test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true); do
			echo "fuzz $pkg $name" >&2
			if ! "$GO" test -run '^$' -fuzz "^${name}\$" -fuzztime "${FUZZTIME:-20000x}" "$pkg" >"$TBDIR/fuzz.log" 2>&1; then
				tail -40 "$TBDIR/fuzz.log" >&2 # the failing input is saved under the package's testdata/fuzz
				return 1
			fi
		done
	done
}

# bench_small runs every Go benchmark once and the snapshot and file
# benchmarks at their small size: the figures in docs/benchmarks.md come from the same commands.
bench_small() {
	"$GO" test -run '^$' -bench . -benchtime 1x ./... >"$TBDIR/bench-small.txt"
	grep -c '^Benchmark' "$TBDIR/bench-small.txt" | sed 's/^/benchmarks run: /' >&2
	OUT="$TBDIR/snapshot-small.json" bench/snapshot.sh small --cleanup >&2
	bench/files.sh small >&2
}

# go_test runs the tests verbosely into a log, prints the package results
# (and, on failure, everything but the passing tests' chatter), and counts
# top-level tests for the closing line.
go_test() {
	local log="$TBDIR/go-test.log" rc=0
	"$GO" test -v "${FLAGS[@]}" "${PKGS[@]}" >"$log" 2>&1 || rc=$?
	if ((rc == 0)); then
		grep -E '^(ok|FAIL|\?) ' "$log" || true
	else
		grep -vE '^(=== (RUN|PAUSE|CONT|NAME)|\s*--- (PASS|SKIP):)' "$log" || true
	fi
	PASSED=$(grep -c '^--- PASS:' "$log" || true)
	FAILED=$(grep -c '^--- FAIL:' "$log" || true)
	SKIPPED=$(grep -c '^--- SKIP:' "$log" || true)
	echo "go test: $PASSED passed, $FAILED failed, $SKIPPED skipped"
	return "$rc"
}

step "go test ${FLAGS[*]} ${PKGS[*]}" go_test
if [ "${CI_EXTRAS:-1}" != 0 ]; then
	step fuzz fuzz_briefly
	step bench-small bench_small
	step tui-smoke scripts/tui-demo-tmux.sh
fi
echo "all steps passed" >&2
echo "go test: $PASSED passed, $FAILED failed, $SKIPPED skipped"
