#!/usr/bin/env bash
# capture-fixture.sh — what `make capture` runs: on a separate, fresh Kafka 3.9
# cluster (own state dir and ports, so a running test bed is left alone),
# create the legacy state (brokers 1 and 2, and broker 3 for a while) and
# capture it into internal/zkread/testdata:
#   kafka39-legacy.json             the ZooKeeper tree as Kafka wrote it (zktree JSON)
#   kafka39-legacy.scram.json       the known SCRAM passwords (test values)
#   kafka39-legacy.encoder-secret   the broker's password.encoder.secret (test value)
#   kafka39-server.properties       the broker's server.properties, secrets and all
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=${1:-$ROOT/internal/zkread/testdata}
MAIN=${TESTBED_DIR:-$ROOT/.testbed}
export TESTBED_LIB_DIR=${TESTBED_LIB_DIR:-$MAIN}
export TESTBED_DIR=$MAIN/capture
export ZK_PORT=${CAPTURE_ZK_PORT:-21910} SOURCE_PORT=${CAPTURE_SOURCE_PORT:-19192} SOURCE1_PORT=${CAPTURE_SOURCE1_PORT:-19193} SOURCE2_PORT=${CAPTURE_SOURCE2_PORT:-19194}
TB=$ROOT/testbed/testbed.sh

trap '"$TB" stop all' EXIT
"$TB" clean
"$TB" start source
"$TB" legacy
"$TB" capture "$OUT"
