#!/usr/bin/env bash
# capture-fixture.sh — what `make capture` and `make capture-old` run: on a
# separate, fresh cluster (own state dir and ports, so a running test bed is
# left alone), create a legacy state and capture it into internal/zkread/testdata.
#
#   capture-fixture.sh [DIR]               Kafka 3.9 (brokers 1 and 2, and broker 3 for a while):
#     kafka39-legacy.json             the ZooKeeper tree as Kafka wrote it (zktree JSON)
#     kafka39-legacy.scram.json       the known SCRAM passwords (test values)
#     kafka39-legacy.encoder-secret   the broker's password.encoder.secret (test value)
#     kafka39-server.properties       the broker's server.properties, secrets and all
#   capture-fixture.sh --old [DIR] [V]     the old releases (V: kafka011, kafka11, kafka24,
#                                          kafka28; all by default), each captured from its
#                                          chroot while its brokers still run: V-legacy.json,
#                                          V-legacy.scram.json, V-legacy.encoder-secret (1.1+),
#                                          V-server.properties
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
old=0
if [[ ${1:-} == --old ]]; then
	old=1
	shift
fi
OUT=${1:-$ROOT/internal/zkread/testdata}
OUT=$(mkdir -p "$OUT" && cd "$OUT" && pwd)
MAIN=${TESTBED_DIR:-$ROOT/.testbed}
export TESTBED_LIB_DIR=${TESTBED_LIB_DIR:-$MAIN}
export TESTBED_DIR=$MAIN/capture
export ZK_PORT=${CAPTURE_ZK_PORT:-21910} SOURCE_PORT=${CAPTURE_SOURCE_PORT:-19192} SOURCE1_PORT=${CAPTURE_SOURCE1_PORT:-19193} SOURCE2_PORT=${CAPTURE_SOURCE2_PORT:-19194}
export OLD_PORT=${CAPTURE_OLD_PORT:-19195} OLD1_PORT=${CAPTURE_OLD1_PORT:-19196}
TB=$ROOT/testbed/testbed.sh

trap '"$TB" stop all' EXIT
"$TB" clean
if ((old)); then
	"$TB" old-capture "$OUT" "${2:-all}"
	exit 0
fi
"$TB" start source
"$TB" legacy
"$TB" capture "$OUT"
