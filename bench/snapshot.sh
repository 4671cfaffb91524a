#!/usr/bin/env bash
# Snapshot scale benchmark: generates a synthetic legacy cluster in a test
# ZooKeeper (once; kept under /zkgen-bench-<size>-s<seed> for later runs) and
# times zkread's migration and full reads against go-zookeeper's raw walk of
# the same znodes, plus the generator's own write rate.
#
#   bench/snapshot.sh small            # ~24k znodes, 1 run per mode: CI
#   bench/snapshot.sh full             # 50,000 topics, 5 runs per mode
#   RUNS=3 bench/snapshot.sh full --modes raw,migration
#
# ZooKeeper: $ZKM_BENCH_ZK, else $ZKM_TEST_ZK, else 127.0.0.1:21810 (host:port;
# a chroot, if any, is ignored). The full tree needs a ZooKeeper with at least
# 1 GiB of heap. Results: stdout, and JSON in $OUT
# (default bench/results/snapshot-<size>.json).
set -euo pipefail
cd "$(dirname "$0")/.."

size=${1:-small}
shift || true
case $size in
small) runs=${RUNS:-1} ;;
full) runs=${RUNS:-5} ;;
*) echo "bench/snapshot.sh: size must be small or full, not '$size'" >&2; exit 1 ;;
esac
zk=${ZKM_BENCH_ZK:-${ZKM_TEST_ZK:-127.0.0.1:21810}}
zk=${zk%%/*}
out=${OUT:-bench/results/snapshot-$size.json}
mkdir -p "$(dirname "$out")"

bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/zkgen" ./tools/zkgen
"$bin/zkgen" bench --zookeeper "$zk" --size "$size" --runs "$runs" --json "$out" "$@"
