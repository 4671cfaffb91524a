#!/usr/bin/env bash
# run-tests.sh — what `make test` (and so CI) runs:
#   1. install what is missing (Java and Maven from Debian, Go modules);
#   2. fetch the Kafka jars (cached in $TESTBED_DIR/lib39, lib41);
#   3. start ZooKeeper, Kafka 3.9 and Kafka 4.1 on fresh data dirs;
#   4. create the legacy state through Kafka;
#   5. run go test on every package with the test bed's env vars;
#   6. stop the servers whatever happened, and exit with go test's status.
# GO_TEST_FLAGS overrides the go test flags; GO_TEST_PKGS the packages.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
TB=testbed/testbed.sh
if ! command -v "${GO:-go}" >/dev/null && [[ -x /usr/local/go/bin/go ]]; then
	PATH=/usr/local/go/bin:$PATH
fi
GO=${GO:-go}
# -p 1: packages share one set of servers (and fault tests restart the
# target), so their test binaries run one at a time.
read -r -a FLAGS <<<"${GO_TEST_FLAGS:--count=1 -p 1}"
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
	command -v java >/dev/null || pkgs+=(default-jre-headless)
	command -v mvn >/dev/null || pkgs+=(maven)
	if ((${#pkgs[@]})); then
		echo "installing ${pkgs[*]} (apt-get)" >&2
		apt-get update -qq
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${pkgs[@]}" >/dev/null
	fi
	"$GO" mod download
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
eval "$("$TB" env)"

echo "== go test ${FLAGS[*]} ${PKGS[*]}" >&2
"$GO" test "${FLAGS[@]}" "${PKGS[@]}"
