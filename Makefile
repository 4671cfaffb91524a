# zkmigrate — build, run, test, and the real test bed.
#
# Sections: build | run | test | test bed. Put a new target in the section it
# belongs to, with a "## " comment: `make help` lists them.

SHELL   := /usr/bin/env bash
GO      ?= go
TESTBED := testbed/testbed.sh
# The test bed's state (jars, data, logs, secrets files); gitignored.
export TESTBED_DIR ?= $(CURDIR)/.testbed

.DEFAULT_GOAL := help

# ---------------------------------------------------------------- build

.PHONY: build
build: ## compile every package, and the migrate binary into bin/
	$(GO) build ./...
	$(GO) build -buildvcs=auto -o bin/migrate ./cmd/migrate

# ---------------------------------------------------------------- run

.PHONY: demo
demo: ## the whole flow on a bundled legacy snapshot and an in-process Kafka (no servers)
	@echo "make demo: compiling bin/migrate (a minute or two the first time: go-sqlite3 is C) ..."
	@$(GO) build -buildvcs=auto -o bin/migrate ./cmd/migrate
	bin/migrate demo

# ---------------------------------------------------------------- test

.PHONY: test
test: ## install what is missing, start the test bed fresh, go test ./..., stop it
	testbed/run-tests.sh

# ---------------------------------------------------------------- test bed

.PHONY: testbed-fetch testbed-up testbed-down testbed-legacy testbed-old testbed-logs testbed-status testbed-env testbed-clean capture capture-old

testbed-fetch: ## resolve the Kafka 3.9.1 and 4.1.1 jars from Maven Central (cached)
	$(TESTBED) fetch

testbed-up: ## start ZooKeeper, Kafka 3.9 (source) and Kafka 4.1 (target) on 127.0.0.1
	$(TESTBED) start all

testbed-down: ## stop the test bed's servers
	$(TESTBED) stop all

testbed-legacy: ## create the legacy state on the running Kafka 3.9 cluster
	$(TESTBED) legacy

testbed-old: ## write the legacy states of Kafka 0.11, 1.1, 2.4 and 2.8 (each in its chroot; brokers stopped after)
	$(TESTBED) old all

testbed-logs: ## tail the servers' logs
	$(TESTBED) logs

testbed-status: ## show which servers run
	$(TESTBED) status

testbed-env: ## print the env vars the Go tests read (eval the output)
	@$(TESTBED) env

testbed-clean: ## stop the servers and delete their data and logs (jars kept)
	$(TESTBED) clean

capture: ## re-capture internal/zkread/testdata/kafka39-* from a fresh, separate 3.9 cluster
	testbed/capture-fixture.sh internal/zkread/testdata

capture-old: ## re-capture internal/zkread/testdata/kafka{011,11,24,28}-* from fresh, separate old brokers
	testbed/capture-fixture.sh --old internal/zkread/testdata

# ---------------------------------------------------------------- scale and benchmarks

ZK ?= 127.0.0.1:21810

.PHONY: gen-large bench bench-snapshot bench-snapshot-small tui-smoke docs config-types

gen-large: ## a 50,000-topic legacy cluster into the test ZooKeeper (start it with ZK_HEAP=1g)
	$(GO) run ./tools/zkgen --zookeeper $(ZK)/zkgen-large --seed 1

bench: ## every Go benchmark (figures in docs/benchmarks.md)
	$(GO) test -run '^$$' -bench . ./...

bench-snapshot: ## snapshot read at 50,000 topics vs go-zookeeper alone (ZooKeeper with >= 1 GiB heap)
	bench/snapshot.sh full

bench-snapshot-small: ## the same at CI size (~15 s)
	OUT=$(TESTBED_DIR)/snapshot-small.json bench/snapshot.sh small --cleanup

tui-smoke: ## run migrate demo in tmux, press keys, check the screens
	scripts/tui-demo-tmux.sh

docs: ## regenerate docs/checks.md from the check catalogue
	$(GO) run ./tools/checksdoc

config-types: ## regenerate internal/catalogue/configtypes.go from the test bed's Kafka 4.1 target (running)
	eval "$$(testbed/testbed.sh env)" && $(GO) run ./tools/configtypes \
		-bootstrap-server "$$ZKM_TEST_TARGET_BOOTSTRAP" -command-config "$$ZKM_TEST_TARGET_CLIENT_PROPS"

# ---------------------------------------------------------------- help

.PHONY: help
help: ## list the targets
	@awk 'BEGIN {FS = ":.*## "} /^[a-z0-9-]+:.*## / {printf "  %-16s %s\n", $$1, $$2}' $(MAKEFILE_LIST)
