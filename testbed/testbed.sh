#!/usr/bin/env bash
# testbed.sh — the real test bed: a ZooKeeper server, two Kafka 3.9.1 brokers
# in ZooKeeper mode (the source, ids 1 and 2) and a two-node Kafka 4.1.1 KRaft
# cluster (the target: node 1 controller+broker, node 2 broker), run from Maven
# Central jars on 127.0.0.1; and, for a while each, the brokers of Kafka 0.11,
# 1.1, 2.4 and 2.8 that write the old releases' legacy states. See
# testbed/README.md.
#
# Usage: testbed/testbed.sh <command> [args]   (run "testbed/testbed.sh help")
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
HERE=$ROOT/testbed
TB=${TESTBED_DIR:-$ROOT/.testbed}
mkdir -p "$TB"
TB=$(cd "$TB" && pwd)

LIBS=${TESTBED_LIB_DIR:-$TB} # the jar cache can be shared between state dirs
LIB39=$LIBS/lib39
LIB41=$LIBS/lib41
CONF=$TB/conf
DATA=$TB/data
LOGS=$TB/logs
RUN=$TB/run
SETTINGS=$TB/settings.env

# Test-only values. The passwords are in the client properties files; the
# encoder secret is kept in a file and only its path is ever printed.
ADMIN_USER=admin
ADMIN_PASSWORD=admin-secret
ENCODER_SECRET=zkmigrate-testbed-encoder-secret
TOKEN_SECRET=zkmigrate-testbed-token-secret

# Settings: fixed for the life of a state dir (the KRaft quorum address is
# written at format time), so they are saved on first use and read back after.
# "clean" forgets them.
if [[ -f $SETTINGS ]]; then
	# shellcheck source=/dev/null
	. "$SETTINGS"
else
	ZK_PORT=${ZK_PORT:-21810}
	SOURCE_PORT=${SOURCE_PORT:-19092}
	SOURCE1_PORT=${SOURCE1_PORT:-19093}
	SOURCE2_PORT=${SOURCE2_PORT:-19094}
	TARGET_PORT=${TARGET_PORT:-29092}
	TARGET_CONTROLLER_PORT=${TARGET_CONTROLLER_PORT:-29093}
	TARGET1_PORT=${TARGET1_PORT:-29094}
	FRESH_PORT=${FRESH_PORT:-29095}
	FRESH_CONTROLLER_PORT=${FRESH_CONTROLLER_PORT:-29096}
	OLD_PORT=${OLD_PORT:-$((SOURCE_PORT + 3))}
	OLD1_PORT=${OLD1_PORT:-$((SOURCE_PORT + 4))}
fi
# Broker ids: the source brokers are 1 and 2 (source, source1); broker 3
# (source2) runs only while "legacy" writes the state and is gone afterwards.
# The target nodes have the source's ids: 1 (target) and 2 (target1).
TARGET_NODE_ID=1
TARGET1_NODE_ID=2
# (A state dir from before broker 3 and target node 2 lacks their ports.)
SOURCE2_PORT=${SOURCE2_PORT:-19094}
TARGET1_PORT=${TARGET1_PORT:-29094}
# (nor those of the fresh target, a single node that "fresh-target" formats
# and starts for migrate bootstrap's tests.)
FRESH_PORT=${FRESH_PORT:-29095}
FRESH_CONTROLLER_PORT=${FRESH_CONTROLLER_PORT:-29096}
# (nor those of the old-release brokers that "old" runs for a while.)
OLD_PORT=${OLD_PORT:-$((SOURCE_PORT + 3))}
OLD1_PORT=${OLD1_PORT:-$((SOURCE_PORT + 4))}
ZK_HEAP=${ZK_HEAP:-512m}
KAFKA_HEAP=${KAFKA_HEAP:-512m}
TARGET_SNAPSHOT_INTERVAL_MS=${TARGET_SNAPSHOT_INTERVAL_MS:-5000}
ZK_JVM_OPTS=${ZK_JVM_OPTS:-}
WAIT_SECS=${TESTBED_WAIT:-180}
STOP_SECS=${TESTBED_STOP_WAIT:-60}

ALL=(zk source source1 source2 old old1 target target1 fresh)

die() { echo "testbed: $*" >&2; exit 1; }
say() { echo "testbed: $*" >&2; }

save_settings() {
	[[ -f $SETTINGS ]] && return 0
	cat >"$SETTINGS" <<EOF
# Written by testbed.sh on first start; removed by "testbed.sh clean".
ZK_PORT=$ZK_PORT
SOURCE_PORT=$SOURCE_PORT
SOURCE1_PORT=$SOURCE1_PORT
SOURCE2_PORT=$SOURCE2_PORT
TARGET_PORT=$TARGET_PORT
TARGET_CONTROLLER_PORT=$TARGET_CONTROLLER_PORT
TARGET1_PORT=$TARGET1_PORT
FRESH_PORT=$FRESH_PORT
FRESH_CONTROLLER_PORT=$FRESH_CONTROLLER_PORT
OLD_PORT=$OLD_PORT
OLD1_PORT=$OLD1_PORT
EOF
}

need_java() {
	command -v java >/dev/null || die "java not found (apt-get install -y default-jre-headless)"
	local v
	v=$(java -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')
	[[ ${v%%.*} -ge 17 ]] || die "Java 17 or later is needed (Kafka 4.1 brokers), found $v"
}

# ---------------------------------------------------------------- fetch

# fetch_lib POM DIR: copy the runtime classpath of POM into DIR, unless DIR
# already holds the jars of this exact POM.
fetch_lib() {
	local pom=$1 dir=$2 stamp sum
	sum=$(sha256sum "$pom" | cut -d' ' -f1)
	stamp=$dir/.pom.sha256
	if [[ -f $stamp && $(cat "$stamp") == "$sum" ]]; then
		say "$(basename "$dir") present ($(find "$dir" -name '*.jar' | wc -l) jars)"
		return 0
	fi
	command -v mvn >/dev/null || die "mvn not found (apt-get install -y maven)"
	say "resolving $(basename "$pom") from Maven Central into $dir"
	rm -rf "$dir.tmp"
	local mlog=$dir.maven.log
	if ! mvn -q -B -Dstyle.color=never -f "$pom" dependency:copy-dependencies \
		-DincludeScope=runtime -Dmdep.prependGroupId=true -DoutputDirectory="$dir.tmp" >"$mlog" 2>&1; then
		tail -n 30 "$mlog" >&2
		die "maven could not resolve $pom (log: $mlog)"
	fi
	if compgen -G "$dir.tmp/ch.qos.logback*" >/dev/null; then
		die "$pom: a logback jar reached the classpath; it would compete with the Kafka log binding"
	fi
	echo "$sum" >"$dir.tmp/.pom.sha256"
	rm -rf "$dir"
	mv "$dir.tmp" "$dir"
}

cmd_fetch() {
	fetch_lib "$HERE/pom-kafka39.xml" "$LIB39"
	fetch_lib "$HERE/pom-kafka41.xml" "$LIB41"
}

need_libs() {
	[[ -f $LIB39/.pom.sha256 && -f $LIB41/.pom.sha256 ]] || cmd_fetch
}

# ---------------------------------------------------------------- configs

write_common_files() {
	mkdir -p "$CONF" "$DATA" "$LOGS" "$RUN"
	save_settings
	# Everything to stdout, Kafka's pattern; stdout goes to logs/<name>.log.
	cat >"$CONF/log4j.properties" <<'EOF'
log4j.rootLogger=INFO, stdout
log4j.appender.stdout=org.apache.log4j.ConsoleAppender
log4j.appender.stdout.layout=org.apache.log4j.PatternLayout
log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.logger.org.apache.zookeeper=INFO
log4j.logger.kafka.request.logger=WARN
log4j.logger.state.change.logger=INFO
EOF
	cat >"$CONF/tools-log4j.properties" <<'EOF'
log4j.rootLogger=WARN, stderr
log4j.appender.stderr=org.apache.log4j.ConsoleAppender
log4j.appender.stderr.layout=org.apache.log4j.PatternLayout
log4j.appender.stderr.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.appender.stderr.Target=System.err
EOF
	cat >"$CONF/log4j2.properties" <<'EOF'
status = warn
appender.stdout.type = Console
appender.stdout.name = STDOUT
appender.stdout.layout.type = PatternLayout
appender.stdout.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = INFO
rootLogger.appenderRef.stdout.ref = STDOUT
logger.request.name = kafka.request.logger
logger.request.level = WARN
EOF
	cat >"$CONF/tools-log4j2.properties" <<'EOF'
status = warn
appender.stderr.type = Console
appender.stderr.name = STDERR
appender.stderr.target = SYSTEM_ERR
appender.stderr.layout.type = PatternLayout
appender.stderr.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = WARN
rootLogger.appenderRef.stderr.ref = STDERR
EOF
	umask_old=$(umask)
	umask 077
	printf '%s' "$ENCODER_SECRET" >"$TB/encoder.secret"
	local jaas="org.apache.kafka.common.security.scram.ScramLoginModule required username=\"$ADMIN_USER\" password=\"$ADMIN_PASSWORD\";"
	for side in source target; do
		cat >"$TB/$side-client.properties" <<EOF
security.protocol=SASL_PLAINTEXT
sasl.mechanism=SCRAM-SHA-256
sasl.jaas.config=$jaas
EOF
	done
	umask "$umask_old"
}

write_zk_conf() {
	cat >"$CONF/zk.properties" <<EOF
# ZooKeeper 3.8.4 standalone for the Kafka 3.9 source (written by testbed.sh)
dataDir=data/zk
clientPort=$ZK_PORT
clientPortAddress=127.0.0.1
maxClientCnxns=0
admin.enableServer=false
tickTime=2000
EOF
}

# write_source_conf NAME ID PORT RACK
write_source_conf() {
	local name=$1 id=$2 port=$3 rack=$4
	cat >"$CONF/$name.properties" <<EOF
# Kafka 3.9.1 broker $id in ZooKeeper mode: the zkmigrate source test cluster.
# Written by testbed/testbed.sh. Every secret in this file is a test value.
broker.id=$id
broker.rack=$rack
zookeeper.connect=127.0.0.1:$ZK_PORT
zookeeper.connection.timeout.ms=18000

listeners=SASL_PLAINTEXT://127.0.0.1:$port
advertised.listeners=SASL_PLAINTEXT://127.0.0.1:$port
inter.broker.listener.name=SASL_PLAINTEXT
sasl.enabled.mechanisms=SCRAM-SHA-256,SCRAM-SHA-512
sasl.mechanism.inter.broker.protocol=SCRAM-SHA-256
listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="$ADMIN_USER" password="$ADMIN_PASSWORD";
listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="$ADMIN_USER" password="$ADMIN_PASSWORD";

authorizer.class.name=kafka.security.authorizer.AclAuthorizer
super.users=User:$ADMIN_USER
allow.everyone.if.no.acl.found=false

password.encoder.secret=$ENCODER_SECRET
delegation.token.secret.key=$TOKEN_SECRET
EOF
	zk_broker_storage_conf "data/$name" >>"$CONF/$name.properties"
}

# zk_broker_storage_conf LOG_DIR: the single-broker settings every
# ZooKeeper-mode broker of the test bed shares (3.9 and the old releases).
zk_broker_storage_conf() {
	cat <<EOF

log.dirs=$1
num.partitions=1
auto.create.topics.enable=false
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
group.initial.rebalance.delay.ms=0
# Partitions with a replica on an offline broker cannot move at shutdown;
# retry controlled shutdown quickly instead of 3 x 5 s.
controlled.shutdown.retry.backoff.ms=500
EOF
}

# write_target_conf NAME ID PORT ROLES RACK: one node of the KRaft target.
# Node 1 (target) is controller and broker, node 2 (target1) a broker; both
# reach the single controller over the CONTROLLER listener of node 1.
write_target_conf() {
	local name=$1 id=$2 port=$3 roles=$4 rack=$5 listeners
	listeners="SASL_PLAINTEXT://127.0.0.1:$port"
	if [[ $roles == *controller* ]]; then
		listeners="$listeners,CONTROLLER://127.0.0.1:$TARGET_CONTROLLER_PORT"
	fi
	cat >"$CONF/$name.properties" <<EOF
# Kafka 4.1.1 node $id ($roles) in KRaft mode: the zkmigrate target test cluster.
# Written by testbed/testbed.sh. Every secret in this file is a test value.
process.roles=$roles
node.id=$id
broker.rack=$rack
controller.quorum.voters=$TARGET_NODE_ID@127.0.0.1:$TARGET_CONTROLLER_PORT
controller.listener.names=CONTROLLER

listeners=$listeners
advertised.listeners=$listeners
listener.security.protocol.map=CONTROLLER:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT
inter.broker.listener.name=SASL_PLAINTEXT
sasl.enabled.mechanisms=SCRAM-SHA-256,SCRAM-SHA-512
sasl.mechanism.inter.broker.protocol=SCRAM-SHA-256
listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="$ADMIN_USER" password="$ADMIN_PASSWORD";
listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="$ADMIN_USER" password="$ADMIN_PASSWORD";

# The brokers reach the controller over the PLAINTEXT CONTROLLER listener as
# User:ANONYMOUS, which must therefore be a super user (loopback only).
authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer
super.users=User:$ADMIN_USER;User:ANONYMOUS
allow.everyone.if.no.acl.found=false

log.dirs=data/$name
num.partitions=1
auto.create.topics.enable=false
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0

# Kafka 4.1.1 loses every SCRAM credential of a mechanism when a node replays
# a metadata log that deletes SCRAM users (ScramDelta.apply drops the
# mechanism as soon as its user map is empty mid-delta); a node that restarts
# from a recent snapshot does not replay those deletions. Snapshot often.
metadata.log.max.snapshot.interval.ms=$TARGET_SNAPSHOT_INTERVAL_MS
EOF
}

# ---------------------------------------------------------------- processes

pidfile() { echo "$RUN/$1.pid"; }
logfile() { echo "$LOGS/$1.log"; }
marker() { echo "-Dzkmigrate.testbed=$1@$TB"; }

# pid_of NAME: the recorded pid if that process is alive and is ours.
pid_of() {
	local f pid
	f=$(pidfile "$1")
	[[ -f $f ]] || return 1
	pid=$(cat "$f")
	[[ $pid =~ ^[0-9]+$ ]] || return 1
	[[ -r /proc/$pid/cmdline ]] || return 1
	tr '\0' '\n' <"/proc/$pid/cmdline" | grep -xF -- "$(marker "$1")" >/dev/null || return 1
	echo "$pid"
}

running() { pid_of "$1" >/dev/null; }

port_of() {
	case $1 in
	zk) echo "$ZK_PORT" ;;
	source) echo "$SOURCE_PORT" ;;
	source1) echo "$SOURCE1_PORT" ;;
	source2) echo "$SOURCE2_PORT" ;;
	old) echo "$OLD_PORT" ;;
	old1) echo "$OLD1_PORT" ;;
	target) echo "$TARGET_PORT" ;;
	target1) echo "$TARGET1_PORT" ;;
	fresh) echo "$FRESH_PORT" ;;
	*) die "unknown server '$1' (zk, source, source1, source2, old, old1, target, target1, fresh)" ;;
	esac
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

zk_srvr() {
	local reply
	reply=$(timeout 3 bash -c "exec 3<>/dev/tcp/127.0.0.1/$ZK_PORT && printf srvr >&3 && cat <&3" 2>/dev/null) || return 1
	[[ $reply == "Zookeeper version:"* ]]
}

ready_line() {
	case $1 in
	zk) echo "binding to port" ;;
	source | source1 | source2) echo "] started (kafka.server.KafkaServer)" ;;
	old | old1) echo " started (kafka.server.KafkaServer)" ;; # 0.11 and 1.1: "[Kafka Server 1], started"
	target | target1 | fresh) echo "Kafka Server started" ;;
	esac
}

# is_ready NAME [LOG_OFFSET]: the readiness line after LOG_OFFSET plus a live port.
is_ready() {
	local name=$1 off=${2:-0}
	case $name in
	zk) zk_srvr ;;
	*) tail -c +$((off + 1)) "$(logfile "$name")" 2>/dev/null | grep -F -- "$(ready_line "$name")" >/dev/null &&
		port_open "$(port_of "$name")" ;;
	esac
}

# wait_ready NAME [LOG_OFFSET]: bounded wait; on timeout prints the log tail.
# The offset defaults to where the log stood at the last start.
wait_ready() {
	local name=$1 off=${2:-} t0=$SECONDS
	[[ -n $off ]] || off=$(cat "$RUN/$name.logoff" 2>/dev/null || echo 0)
	while ! is_ready "$name" "$off"; do
		if ! running "$name"; then
			say "$name exited while starting; last lines of $(logfile "$name"):"
			tail -n 40 "$(logfile "$name")" >&2 || true
			exit 1
		fi
		if ((SECONDS - t0 >= WAIT_SECS)); then
			say "$name not ready after ${WAIT_SECS}s; last lines of $(logfile "$name"):"
			tail -n 40 "$(logfile "$name")" >&2 || true
			exit 1
		fi
		sleep 0.3
	done
	say "$name ready on 127.0.0.1:$(port_of "$name") ($((SECONDS - t0))s)"
}

# port_free NAME: fails when the server's port is taken by another process.
port_free() {
	if port_open "$(port_of "$1")"; then
		die "127.0.0.1:$(port_of "$1") is in use by a process this test bed did not start (set ${1^^}_PORT, or stop that process)"
	fi
}

# close_inherited_fds closes every file descriptor above 2 of the current
# (sub)shell.
close_inherited_fds() {
	local fd
	for fd in /proc/$BASHPID/fd/*; do
		fd=${fd##*/}
		((fd > 2)) && eval "exec $fd>&-" 2>/dev/null
	done
	return 0
}

# launch NAME HEAP LIBDIR LOGPROP MAIN ARGS...: start a JVM in the background
# in $TB (relative paths in the configs), record its pid; prints the log
# offset the readiness check must look after.
launch() {
	local name=$1 heap=$2 lib=$3 logprop=$4 main=$5
	shift 5
	local log off
	log=$(logfile "$name")
	touch "$log"
	off=$(stat -c %s "$log")
	echo "==== testbed: start $name $(date -u +%FT%TZ)" >>"$log"
	# The server keeps none of the caller's open files: a lock held by whoever
	# started it (flock /work/land.lock ... go test ...) would otherwise stay
	# held for the server's whole life.
	# shellcheck disable=SC2086
	(close_inherited_fds && cd "$TB" && exec nohup java "$(marker "$name")" -Xms"$heap" -Xmx"$heap" \
		-XX:+UseG1GC -XX:MaxGCPauseMillis=20 -Djava.awt.headless=true \
		-Dkafka.logs.dir="$LOGS" "$logprop" ${ZKM_EXTRA_OPTS:-} \
		-cp "$lib/*" "$main" "$@" >>"$log" 2>&1 </dev/null) &
	echo $! >"$(pidfile "$name")"
	echo "$off" >"$RUN/$name.logoff"
	echo "$off"
}

# tool LIB MAIN ARGS...: run a Kafka CLI class in the foreground (WARN to stderr,
# captured in logs/tools.log; shown only on failure).
tool() {
	local lib=$1 main=$2
	shift 2
	local logprop="-Dlog4j.configuration=file:$CONF/tools-log4j.properties"
	[[ $lib == "$LIB41" ]] && logprop="-Dlog4j2.configurationFile=$CONF/tools-log4j2.properties"
	local out rc=0
	out=$(cd "$TB" && java -Xmx256m "$logprop" -cp "$lib/*" "$main" "$@" 2>&1) || rc=$?
	{
		echo "==== $(date -u +%FT%TZ) $main $*" | sed -E 's/(password=)[^],]*/\1<redacted>/g'
		echo "$out"
	} >>"$LOGS/tools.log"
	if ((rc != 0)); then
		say "$main failed (exit $rc):"
		echo "$out" | tail -n 30 >&2
		return "$rc"
	fi
	printf '%s\n' "$out"
}

start_zk() {
	if running zk; then say "zk already running (pid $(pid_of zk))"; return 0; fi
	port_free zk
	write_zk_conf
	mkdir -p "$DATA/zk"
	local off
	# Unknown keys become zookeeper.* system properties; jute.maxbuffer and the
	# like can be passed with ZK_JVM_OPTS.
	off=$(ZKM_EXTRA_OPTS="$ZK_JVM_OPTS" launch zk "$ZK_HEAP" "$LIB39" \
		"-Dlog4j.configuration=file:$CONF/log4j.properties" \
		org.apache.zookeeper.server.quorum.QuorumPeerMain "$CONF/zk.properties")
	wait_ready zk "$off"
}

# The admin credential must be in ZooKeeper before the first broker start
# (inter-broker traffic authenticates with it). ConfigCommand --zookeeper is
# still accepted for SCRAM credentials in 3.9.
ensure_admin_scram() {
	local done=$DATA/zk/zkmigrate-admin-scram.done
	[[ -f $done ]] && return 0
	say "creating SCRAM credential for $ADMIN_USER through ConfigCommand --zookeeper"
	tool "$LIB39" kafka.admin.ConfigCommand --zookeeper "127.0.0.1:$ZK_PORT" --alter \
		--add-config "SCRAM-SHA-256=[iterations=8192,password=$ADMIN_PASSWORD]" \
		--entity-type users --entity-name "$ADMIN_USER" >/dev/null
	touch "$done"
}

# launch_source_broker NAME ID PORT RACK: start a 3.9 broker without waiting
# (wait_ready NAME waits); ZooKeeper and the admin credential come first.
launch_source_broker() {
	local name=$1 id=$2 port=$3 rack=$4
	if running "$name"; then say "$name already running (pid $(pid_of "$name"))"; return 0; fi
	port_free "$name"
	running zk || start_zk
	ensure_admin_scram
	write_source_conf "$name" "$id" "$port" "$rack"
	mkdir -p "$DATA/$name"
	launch "$name" "$KAFKA_HEAP" "$LIB39" "-Dlog4j.configuration=file:$CONF/log4j.properties" \
		kafka.Kafka "$CONF/$name.properties" >/dev/null
}

# start_source_broker NAME ID PORT RACK
start_source_broker() {
	launch_source_broker "$@"
	wait_ready "$1"
}

start_source1() { start_source_broker source1 2 "$SOURCE1_PORT" rack-b; }

# start_sources: both source brokers (ids 1 and 2), started together.
start_sources() {
	running zk || start_zk
	launch_source_broker source 1 "$SOURCE_PORT" rack-a
	launch_source_broker source1 2 "$SOURCE1_PORT" rack-b
	wait_ready source
	wait_ready source1
}

new_cluster_id() {
	local id
	while :; do
		id=$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=\n')
		[[ $id != -* ]] && { echo "$id"; return; }
	done
}

# format_target NAME ID PORT ROLES RACK: write the node's config and, on a
# fresh data dir, format it with the cluster's id (the first node formatted
# creates the id; the SCRAM admin user goes into the controller's bootstrap
# metadata).
format_target() {
	local name=$1 id=$2
	write_target_conf "$@"
	[[ -f $DATA/$name/meta.properties ]] && return 0
	local cid
	if [[ -f $TB/target.cluster-id ]]; then
		cid=$(cat "$TB/target.cluster-id")
	else
		cid=$(new_cluster_id)
		echo "$cid" >"$TB/target.cluster-id"
	fi
	say "formatting $name storage (node $id, cluster id $cid) with SCRAM user $ADMIN_USER"
	tool "$LIB41" kafka.tools.StorageTool format -t "$cid" -c "$CONF/$name.properties" \
		--add-scram "SCRAM-SHA-256=[name=$ADMIN_USER,iterations=8192,password=$ADMIN_PASSWORD]" \
		--add-scram "SCRAM-SHA-512=[name=$ADMIN_USER,iterations=8192,password=$ADMIN_PASSWORD]" >&2
}

# launch_target_node NAME ID PORT ROLES RACK: start one node without waiting.
launch_target_node() {
	local name=$1
	if running "$name"; then say "$name already running (pid $(pid_of "$name"))"; return 0; fi
	port_free "$name"
	format_target "$@"
	launch "$name" "$KAFKA_HEAP" "$LIB41" "-Dlog4j2.configurationFile=$CONF/log4j2.properties" \
		kafka.Kafka "$CONF/$name.properties" >/dev/null
}

# start_target: both nodes of the target cluster (a running one is left alone).
start_target() {
	launch_target_node target "$TARGET_NODE_ID" "$TARGET_PORT" broker,controller rack-a
	launch_target_node target1 "$TARGET1_NODE_ID" "$TARGET1_PORT" broker rack-b
	wait_ready target
	wait_ready target1
}

# stop_one NAME [SIGNAL]: stops only the pid this script recorded.
stop_one() {
	local name=$1 sig=${2:-TERM} pid t0=$SECONDS
	if ! pid=$(pid_of "$name"); then
		rm -f "$(pidfile "$name")"
		return 0
	fi
	say "stopping $name (pid $pid, SIG$sig)"
	kill -s "$sig" "$pid" 2>/dev/null || true
	while kill -0 "$pid" 2>/dev/null; do
		if ((SECONDS - t0 >= STOP_SECS)); then
			say "$name did not exit in ${STOP_SECS}s; sending SIGKILL"
			kill -s KILL "$pid" 2>/dev/null || true
		fi
		sleep 0.2
	done
	rm -f "$(pidfile "$name")" "$RUN/$name.logoff"
	say "$name stopped ($((SECONDS - t0))s)"
}

components() {
	case ${1:-all} in
	all) echo "${ALL[@]}" ;;
	zk | source | source1 | source2 | old | old1 | target | target1 | fresh) echo "$1" ;;
	*) die "unknown server '$1' (zk, source, source1, source2, old, old1, target, target1, fresh, all)" ;;
	esac
}

# ---------------------------------------------------------------- commands

cmd_start() {
	local what=${1:-all}
	need_java
	need_libs
	write_common_files
	case $what in
	zk) start_zk ;;
	source) start_sources ;;
	source1) start_source1 ;;
	target | target1) start_target ;;
	all) start_zk; start_sources; start_target ;;
	*) die "unknown server '$what' (zk, source, source1, target, target1, all)" ;;
	esac
}

cmd_stop() {
	local what=${1:-all}
	case $what in
	all) stop_one fresh; stop_one target1; stop_one target; stop_old; stop_one source2; stop_one source1; stop_one source; stop_one zk ;;
	zk) stop_old; stop_one source2; stop_one source1; stop_one source; stop_one zk ;; # brokers need ZooKeeper to shut down
	source | source1 | source2 | old | old1 | target | target1 | fresh) stop_one "$what" ;;
	*) die "unknown server '$what' (zk, source, source1, source2, old, old1, target, target1, fresh, all)" ;;
	esac
}

cmd_kill() {
	local what=${1:-}
	[[ -n $what && $what != all ]] || die "kill needs one server name"
	stop_one "$(components "$what")" KILL
}

cmd_restart() {
	local what=${1:-}
	[[ -n $what && $what != all ]] || die "restart needs one server name"
	cmd_stop "$what"
	cmd_start "$what"
}

# reset target: an empty target cluster (both nodes; new cluster id, only the admin user).
cmd_reset() {
	[[ ${1:-} == target ]] || die "reset takes only 'target' (the source's state lives in ZooKeeper: use clean)"
	stop_one target1
	stop_one target
	rm -rf "$DATA/target" "$DATA/target1" "$TB/target.cluster-id"
	cmd_start target
}

cmd_status() {
	local n pid state
	for n in "${ALL[@]}"; do
		if pid=$(pid_of "$n"); then
			if is_ready "$n" "$(cat "$RUN/$n.logoff" 2>/dev/null || echo 0)"; then state="ready"; else state="starting"; fi
			printf '%-8s %-8s pid %-7s 127.0.0.1:%s\n' "$n" "$state" "$pid" "$(port_of "$n")"
		else
			printf '%-8s %-8s\n' "$n" "stopped"
		fi
	done
}

cmd_wait() {
	local n any=0
	for n in "${ALL[@]}"; do
		if running "$n"; then any=1; wait_ready "$n"; fi
	done
	((any)) || die "nothing is running"
}

cmd_logs() {
	local n lines=${LINES_SHOWN:-60}
	if [[ -n ${1:-} ]]; then
		[[ $1 == tools ]] || components "$1" >/dev/null
		tail -n "$lines" "$LOGS/$1.log"
		return
	fi
	for n in "${ALL[@]}" tools; do
		[[ -f $LOGS/$n.log ]] || continue
		echo "==> $LOGS/$n.log <=="
		tail -n "$lines" "$LOGS/$n.log"
	done
}

cmd_env() {
	cat <<EOF
export ZKM_TESTBED_DIR='$TB'
export ZKM_TEST_ZK='127.0.0.1:$ZK_PORT'
export ZKM_TEST_ZK_DATA_DIR='$DATA/zk'
export ZKM_TEST_SOURCE_BOOTSTRAP='127.0.0.1:$SOURCE_PORT'
export ZKM_TEST_TARGET_BOOTSTRAP='127.0.0.1:$TARGET_PORT'
export ZKM_TEST_TARGET1_BOOTSTRAP='127.0.0.1:$TARGET1_PORT'
export ZKM_TEST_SOURCE_CLIENT_PROPS='$TB/source-client.properties'
export ZKM_TEST_TARGET_CLIENT_PROPS='$TB/target-client.properties'
export ZKM_TEST_SOURCE_SERVER_PROPS='$CONF/source.properties'
export ZKM_TEST_ENCODER_SECRET_FILE='$TB/encoder.secret'
export ZKM_TEST_SCRAM_CREDENTIALS='$TB/scram-credentials.json'
export ZKM_TEST_LIB39='$LIB39'
export ZKM_TEST_LIB41='$LIB41'
EOF
}

cmd_clean() {
	cmd_stop all
	rm -rf "$DATA" "$LOGS" "$RUN" "$CONF" "$SETTINGS" "$TB/target.cluster-id" "$TB/stop.log" \
		"$TB/scram-credentials.json" "$TB/encoder.secret" "$TB"/*-client.properties "$TB/old" "$TB/oldtools"
	say "removed data, logs and settings under $TB (jars kept)"
}

# fresh-target format|start|stop: a single-node Kafka 4.1 KRaft cluster
# (node 1, controller and broker; SASL_PLAINTEXT + SCRAM and the
# StandardAuthorizer like the target, and the source's
# delegation.token.secret.key) on its own ports and data dir, for
# migrate bootstrap: "format" stops it, wipes data/fresh and formats it with
# a new cluster id and only the admin user (--add-scram), and prints its
# metadata log dir and address; "start" starts it on that data (the first
# start replays the bootstrap checkpoint); "stop" stops it.
cmd_fresh() {
	local what=${1:-}
	case $what in
	format)
		need_java
		need_libs
		write_common_files
		stop_one fresh
		rm -rf "$DATA/fresh"
		TARGET_NODE_ID=1 TARGET_CONTROLLER_PORT=$FRESH_CONTROLLER_PORT \
			write_target_conf fresh 1 "$FRESH_PORT" broker,controller rack-a
		# The source's token secret: its delegation tokens work here once
		# migrate bootstrap --delegation-tokens has seeded them.
		echo "delegation.token.secret.key=$TOKEN_SECRET" >>"$CONF/fresh.properties"
		local cid
		cid=$(new_cluster_id)
		say "formatting fresh target storage (node 1, cluster id $cid) with SCRAM user $ADMIN_USER"
		tool "$LIB41" kafka.tools.StorageTool format -t "$cid" -c "$CONF/fresh.properties" \
			--add-scram "SCRAM-SHA-256=[name=$ADMIN_USER,iterations=8192,password=$ADMIN_PASSWORD]" \
			--add-scram "SCRAM-SHA-512=[name=$ADMIN_USER,iterations=8192,password=$ADMIN_PASSWORD]" >&2
		echo "metadata_dir=$DATA/fresh"
		echo "bootstrap=127.0.0.1:$FRESH_PORT"
		;;
	start)
		need_java
		[[ -f $DATA/fresh/meta.properties ]] || die "the fresh target is not formatted (testbed.sh fresh-target format)"
		if running fresh; then say "fresh already running (pid $(pid_of fresh))"; return 0; fi
		port_free fresh
		launch fresh "$KAFKA_HEAP" "$LIB41" "-Dlog4j2.configurationFile=$CONF/log4j2.properties" \
			kafka.Kafka "$CONF/fresh.properties" >/dev/null
		wait_ready fresh
		;;
	stop) stop_one fresh ;;
	*) die "fresh-target takes format, start or stop" ;;
	esac
}

# capture DIR: the ZooKeeper tree as Kafka wrote it (zkcapture, read-only) and
# the files that go with it, as the fixtures of internal/zkread/testdata.
cmd_capture() {
	local dir=${1:-}
	[[ -n $dir ]] || die "capture needs an output dir"
	[[ -f $DATA/zk/zkmigrate-legacy.done ]] || die "no legacy state in this ZooKeeper (testbed.sh legacy)"
	mkdir -p "$dir"
	(cd "$ROOT" && go run ./tools/zkcapture -zk "127.0.0.1:$ZK_PORT" -out "$dir/kafka39-legacy.json")
	cp "$TB/scram-credentials.json" "$dir/kafka39-legacy.scram.json"
	cp "$TB/encoder.secret" "$dir/kafka39-legacy.encoder-secret"
	chmod 644 "$dir/kafka39-legacy.encoder-secret"
	cp "$CONF/source.properties" "$dir/kafka39-server.properties"
	say "captured into $dir: kafka39-legacy.json, kafka39-legacy.scram.json, kafka39-legacy.encoder-secret, kafka39-server.properties"
}

# legacy_java MODE ARGS...: run testbed/LegacyState.java (Java source launcher);
# progress to stderr, Kafka's warnings to logs/tools.log.
legacy_java() {
	echo "==== $(date -u +%FT%TZ) LegacyState $1" >>"$LOGS/tools.log"
	if ! java -Xmx256m "-Dlog4j.configuration=file:$CONF/tools-log4j.properties" \
		-cp "$LIB39/*" "$HERE/LegacyState.java" "$@" >&2 2>>"$LOGS/tools.log"; then
		say "LegacyState $1 failed; last lines of $LOGS/tools.log:"
		tail -n 30 "$LOGS/tools.log" >&2
		exit 1
	fi
}

# legacy: rich legacy state on the running 3.9 cluster (brokers 1 and 2),
# written by Kafka itself.
cmd_legacy() {
	need_java
	running source && running source1 || die "the source brokers are not running (testbed.sh start source)"
	local done=$DATA/zk/zkmigrate-legacy.done
	if [[ -f $done ]]; then
		say "legacy state already created in this ZooKeeper (testbed.sh clean for a fresh one)"
		return 0
	fi
	local t0=$SECONDS
	local bs=127.0.0.1:$SOURCE_PORT cp=$TB/source-client.properties
	# Broker 3 exists only to hold the replica of "doomed", whose deletion
	# stays pending once broker 3 is gone (a decommissioned broker). It starts
	# while the state below is written.
	say "legacy: starting broker 3 (in the background) for topic 'doomed'"
	launch_source_broker source2 3 "$SOURCE2_PORT" rack-c

	say "legacy: topics (explicit replica assignments, partitions added later), ACLs, quotas, SCRAM users, broker configs, a delegation token (AdminClient)"
	legacy_java create "$bs" "$cp" "$TB/scram-credentials.json"

	say "legacy: kafka-configs: a topic config change, a user with SCRAM and a quota"
	tool "$LIB39" kafka.admin.ConfigCommand --bootstrap-server "$bs" --command-config "$cp" \
		--alter --entity-type topics --entity-name orders --add-config retention.ms=86400000 >/dev/null
	# (3.9 refuses quota and SCRAM keys in one --bootstrap-server call.)
	tool "$LIB39" kafka.admin.ConfigCommand --bootstrap-server "$bs" --command-config "$cp" \
		--alter --entity-type users --entity-name bob \
		--add-config 'SCRAM-SHA-256=[iterations=8192,password=bob-secret]' >/dev/null
	tool "$LIB39" kafka.admin.ConfigCommand --bootstrap-server "$bs" --command-config "$cp" \
		--alter --entity-type users --entity-name bob --add-config producer_byte_rate=524288 >/dev/null
	say "legacy: kafka-acls: --producer on a prefixed topic pattern"
	tool "$LIB39" kafka.admin.AclCommand --bootstrap-server "$bs" --command-config "$cp" \
		--add --allow-principal User:svc-etl --producer --topic etl- --resource-pattern-type prefixed >/dev/null

	say "legacy: waiting for broker 3"
	wait_ready source2
	legacy_java broker3 "$bs" "$cp" -
	say "legacy: stopping broker 3 for good, then deleting topic 'doomed' (stays pending)"
	stop_one source2
	legacy_java delete-pending "$bs" "$cp" "127.0.0.1:$ZK_PORT"
	touch "$done"
	say "legacy state created ($((SECONDS - t0))s); credentials in $TB/scram-credentials.json"
}

# ---------------------------------------------------------------- old releases
#
# "old" writes the legacy state of an old Kafka release (0.11, 1.1, 2.4, 2.8)
# with that release's own tools, each in its own chroot of the test bed's
# ZooKeeper (/kafka011, /kafka11, /kafka24, /kafka28): its two brokers (ids 1
# and 2, the servers "old" and "old1") run only while the state is written,
# one release at a time, and are stopped afterwards. What each release
# writes, and with which tool, is in testbed/README.md.

OLD_RELEASES=(kafka011 kafka11 kafka24 kafka28)

# old_release V: the Kafka release of an old source.
old_release() {
	case $1 in
	kafka011) echo 0.11.0.3 ;;
	kafka11) echo 1.1.1 ;;
	kafka24) echo 2.4.1 ;;
	kafka28) echo 2.8.2 ;;
	*) die "unknown old release '$1' (${OLD_RELEASES[*]})" ;;
	esac
}

old_lib() { echo "$LIBS/lib${1#kafka}"; }
old_out() { echo "$TB/old/$1"; } # server.properties, scram-credentials.json, encoder.secret, done

# write_old_conf V ID PORT RACK: broker ID of release V, in chroot /V.
write_old_conf() {
	local v=$1 id=$2 port=$3 rack=$4 authorizer=kafka.security.authorizer.AclAuthorizer
	[[ $v == kafka011 || $v == kafka11 ]] && authorizer=kafka.security.auth.SimpleAclAuthorizer
	{
		cat <<EOF
# Kafka $(old_release "$v") broker $id in ZooKeeper mode, chroot /$v: an old zkmigrate
# source, running only while "testbed.sh old $v" writes its legacy state.
# Written by testbed/testbed.sh. Every secret in this file is a test value.
broker.id=$id
broker.rack=$rack
zookeeper.connect=127.0.0.1:$ZK_PORT/$v
zookeeper.connection.timeout.ms=18000

listeners=SASL_PLAINTEXT://127.0.0.1:$port
advertised.listeners=SASL_PLAINTEXT://127.0.0.1:$port
inter.broker.listener.name=SASL_PLAINTEXT
sasl.enabled.mechanisms=SCRAM-SHA-256,SCRAM-SHA-512
sasl.mechanism.inter.broker.protocol=SCRAM-SHA-256
EOF
		if [[ $v == kafka011 ]]; then
			echo "# (0.11 reads a broker's SASL login from a JAAS file only: conf/kafka011.jaas)"
		else
			cat <<EOF
listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="$ADMIN_USER" password="$ADMIN_PASSWORD";
listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="$ADMIN_USER" password="$ADMIN_PASSWORD";
EOF
		fi
		cat <<EOF

authorizer.class.name=$authorizer
super.users=User:$ADMIN_USER
allow.everyone.if.no.acl.found=false
EOF
		# Dynamic broker passwords and delegation tokens: 1.1 and later.
		[[ $v == kafka011 ]] || printf 'password.encoder.secret=%s\ndelegation.token.master.key=%s\n' "$ENCODER_SECRET" "$TOKEN_SECRET"
		zk_broker_storage_conf "data/$v-$id"
	} >"$CONF/$v-$id.properties"
	if [[ $v == kafka011 ]]; then
		cat >"$CONF/kafka011.jaas" <<EOF
KafkaServer {
  org.apache.kafka.common.security.scram.ScramLoginModule required username="$ADMIN_USER" password="$ADMIN_PASSWORD";
};
EOF
	fi
}

# launch_old_broker V NAME ID PORT RACK: start one broker of release V without waiting.
launch_old_broker() {
	local v=$1 name=$2 id=$3 port=$4 rack=$5 opts=""
	if running "$name"; then die "$name is already running (pid $(pid_of "$name")): testbed.sh stop $name"; fi
	port_free "$name"
	write_old_conf "$v" "$id" "$port" "$rack"
	mkdir -p "$DATA/$v-$id"
	# 0.11: the JAAS file, no SASL towards ZooKeeper (the file has no Client
	# section), and java.base/sun.nio.ch opened: deleting an index unmaps it
	# through sun.nio.ch.DirectBuffer, which Java 17 does not export.
	[[ $v == kafka011 ]] && opts="-Djava.security.auth.login.config=$CONF/kafka011.jaas -Dzookeeper.sasl.client=false --add-exports=java.base/sun.nio.ch=ALL-UNNAMED"
	ZKM_EXTRA_OPTS="$opts" launch "$name" "$KAFKA_HEAP" "$(old_lib "$v")" "-Dlog4j.configuration=file:$CONF/log4j.properties" \
		kafka.Kafka "$CONF/$v-$id.properties" >/dev/null
}

stop_old() { stop_one old1; stop_one old; }

# old_tools V SCRIPT: run the tool calls in SCRIPT with release V's classes
# (testbed/OldTools.java, one JVM); output to logs/tools.log, its tail on failure.
old_tools() {
	local v=$1 script=$2
	echo "==== $(date -u +%FT%TZ) OldTools $v" >>"$LOGS/tools.log"
	# Compiled once where javac is (it names no Kafka class), else by the
	# source launcher at each start (a JRE has no javac).
	local classes=$TB/oldtools main=OldTools
	if command -v javac >/dev/null; then
		if [[ ! -f $classes/OldTools.class || $HERE/OldTools.java -nt $classes/OldTools.class ]]; then
			rm -rf "$classes" && mkdir -p "$classes"
			javac -d "$classes" "$HERE/OldTools.java" >>"$LOGS/tools.log" 2>&1 || { tail -n 20 "$LOGS/tools.log" >&2; return 1; }
		fi
	else
		main=$HERE/OldTools.java
	fi
	if ! (cd "$TB" && java -Xmx256m "-Dlog4j.configuration=file:$CONF/tools-log4j.properties" -Dzookeeper.sasl.client=false \
		-cp "$classes:$(old_lib "$v")/*" "$main" "$script") >>"$LOGS/tools.log" 2>&1; then
		say "the $v tools failed; last lines of $LOGS/tools.log:"
		tail -n 30 "$LOGS/tools.log" >&2
		return 1
	fi
}

# call CLASS ARGS...: one line of an OldTools script (tab-separated).
call() {
	local IFS=$'\t'
	printf '%s\n' "$*" >>"$SCRIPT"
}

# old_state_script V ZK BS CP: the calls that write release V's legacy state
# (into $SCRIPT). ZK is the chroot's connect string, BS the running broker 1,
# CP the admin's client properties. Each release uses its tools as its own
# documentation says: --zookeeper up to 1.1 (except 1.1's dynamic broker
# configs, which only --bootstrap-server alters), --bootstrap-server where
# the release's tool has it for the kind (2.4: topics, broker configs, ACLs,
# tokens; 2.8: everything but the admin credential the brokers start with).
old_state_script() {
	local v=$1 zk=$2 bs=$3 cp=$4 topics configs acls
	local -a T C Q A
	case $v in
	kafka011 | kafka11) T=(--zookeeper "$zk") C=(--zookeeper "$zk") Q=(--zookeeper "$zk") A=(--authorizer-properties "zookeeper.connect=$zk") ;;
	kafka24) T=(--bootstrap-server "$bs" --command-config "$cp") C=(--zookeeper "$zk") Q=("${C[@]}") A=("${T[@]}") ;;
	kafka28) T=(--bootstrap-server "$bs" --command-config "$cp") C=("${T[@]}") Q=("${T[@]}") A=("${T[@]}") ;;
	esac
	local B=(--bootstrap-server "$bs" --command-config "$cp")
	topics=kafka.admin.TopicCommand configs=kafka.admin.ConfigCommand acls=kafka.admin.AclCommand

	# Topics, each with an explicit replica assignment (the first replica is the preferred leader).
	call $topics "${T[@]}" --create --topic orders --replica-assignment 1:2,2:1,1:2 \
		--config retention.ms=604800000 --config cleanup.policy=delete --config min.insync.replicas=1
	call $topics "${T[@]}" --create --topic customer-profiles --replica-assignment 2:1,1:2 \
		--config cleanup.policy=compact --config min.cleanable.dirty.ratio=0.1 --config segment.ms=3600000
	# Keys removed in Kafka 4 (message.downconversion.enable is 2.0+).
	local legacy=(--config message.format.version=0.10.2 --config message.timestamp.difference.max.ms=86400000)
	[[ $v == kafka24 || $v == kafka28 ]] && legacy+=(--config message.downconversion.enable=false)
	call $topics "${T[@]}" --create --topic legacy-format --replica-assignment 2 "${legacy[@]}"
	call $topics "${T[@]}" --create --topic tiny-segments --replica-assignment 2:1 --config segment.bytes=524288
	call $topics "${T[@]}" --create --topic payments --replica-assignment 1,1,1 \
		--config retention.bytes=1073741824 --config max.message.bytes=2097152
	call $topics "${T[@]}" --create --topic metrics.events --replica-assignment 2,2,2,2
	call $topics "${T[@]}" --create --topic _schemas --replica-assignment 1:2 --config cleanup.policy=compact
	call $topics "${T[@]}" --create --topic audit-log --replica-assignment 1:2,2:1 --config cleanup.policy=compact,delete
	call $topics "${T[@]}" --create --topic replicated --replica-assignment 1:2,2:1 \
		--config min.insync.replicas=1 --config leader.replication.throttled.replicas=0:1,1:2
	# Partitions added later, with explicit replicas.
	call $topics "${T[@]}" --alter --topic orders --partitions 5 --replica-assignment 1:2,2:1,1:2,2:1,1:2
	call $topics "${T[@]}" --alter --topic metrics.events --partitions 6 --replica-assignment 2,2,2,2,2,2

	# Topic configs changed afterwards (2.8's ConfigCommand sends
	# IncrementalAlterConfigs); 2.3+ (KIP-339) can also APPEND to a list, which
	# no tool of 2.4 or 2.8 offers: through their AdminClient.
	call $configs "${C[@]}" --alter --entity-type topics --entity-name orders --add-config retention.ms=86400000
	call $configs "${C[@]}" --alter --entity-type topics --entity-name customer-profiles --delete-config segment.ms
	if [[ $v == kafka24 || $v == kafka28 ]]; then
		call @incremental-alter-configs "$bs" "$cp" TOPIC customer-profiles APPEND cleanup.policy=delete
	fi

	# Dynamic broker configs: 0.11 has only the replication throttles (per
	# broker, through ZooKeeper); 1.1 (KIP-226) adds the cluster default and
	# the rest, alterable through the brokers only.
	if [[ $v == kafka011 ]]; then
		call $configs "${C[@]}" --alter --entity-type brokers --entity-name 1 \
			--add-config leader.replication.throttled.rate=10485760,follower.replication.throttled.rate=10485760
		call $configs "${C[@]}" --alter --entity-type brokers --entity-name 2 --add-config leader.replication.throttled.rate=5242880
	else
		call $configs "${B[@]}" --alter --entity-type brokers --entity-default \
			--add-config log.retention.ms=259200000,log.cleaner.io.max.bytes.per.second=10485760,unclean.leader.election.enable=false,log.cleanup.policy=delete
		# A PASSWORD-typed key (stored encrypted with password.encoder.secret).
		# ConfigCommand replaces a broker's whole dynamic config (AlterConfigs)
		# and wants every sensitive key in each call: all of broker 1's in one.
		call $configs "${B[@]}" --alter --entity-type brokers --entity-name 1 \
			--add-config listener.name.sasl_plaintext.ssl.key.password=kp-secret-1,leader.replication.throttled.rate=10485760,follower.replication.throttled.rate=10485760,log.cleaner.threads=2
		call $configs "${B[@]}" --alter --entity-type brokers --entity-name 2 \
			--add-config log.cleaner.threads=1,log.cleaner.backoff.ms=20000,log.cleaner.io.buffer.load.factor=0.8
	fi

	# Quotas: users (one with a DN name, one that needs %7E), client ids,
	# user+client pairs, every default entity; 2.7+ controller_mutation_rate,
	# 2.8+ IP entities.
	local svc=producer_byte_rate=262144
	[[ $v == kafka28 ]] && svc=controller_mutation_rate=10
	call $configs "${Q[@]}" --alter --entity-type users --entity-name alice --add-config producer_byte_rate=1048576,consumer_byte_rate=2097152
	call $configs "${Q[@]}" --alter --entity-type users --entity-name CN=foo,OU=bar --add-config request_percentage=25
	call $configs "${Q[@]}" --alter --entity-type users --entity-name 'svc~deploy' --add-config "$svc"
	call $configs "${Q[@]}" --alter --entity-type clients --entity-name reporting-app --add-config consumer_byte_rate=4194304,request_percentage=50
	call $configs "${Q[@]}" --alter --entity-type users --entity-name alice --entity-type clients --entity-name alice-cli --add-config producer_byte_rate=524288
	call $configs "${Q[@]}" --alter --entity-type users --entity-name alice --entity-type clients --entity-default --add-config consumer_byte_rate=1048576
	call $configs "${Q[@]}" --alter --entity-type users --entity-default --add-config producer_byte_rate=10485760,consumer_byte_rate=10485760
	call $configs "${Q[@]}" --alter --entity-type clients --entity-default --add-config request_percentage=200
	call $configs "${Q[@]}" --alter --entity-type users --entity-default --entity-type clients --entity-name batch-loader --add-config producer_byte_rate=262144
	call $configs "${Q[@]}" --alter --entity-type users --entity-default --entity-type clients --entity-default --add-config request_percentage=100
	if [[ $v == kafka28 ]]; then
		call $configs "${Q[@]}" --alter --entity-type ips --entity-name 10.1.2.3 --add-config connection_creation_rate=10
		call $configs "${Q[@]}" --alter --entity-type ips --entity-default --add-config connection_creation_rate=100
	fi

	# SCRAM credentials: through ZooKeeper up to 2.6, through the brokers
	# (AlterUserScramCredentials, one mechanism of a user per request) from 2.7.
	# carol's password is not recorded (a user whose password nobody has).
	if [[ $v == kafka28 ]]; then
		call $configs "${Q[@]}" --alter --entity-type users --entity-name alice --add-config 'SCRAM-SHA-256=[iterations=8192,password=alice-secret]'
		call $configs "${Q[@]}" --alter --entity-type users --entity-name alice --add-config 'SCRAM-SHA-512=[iterations=8192,password=alice-secret]'
		call $configs "${Q[@]}" --alter --entity-type users --entity-name bob --add-config 'SCRAM-SHA-256=[iterations=8192,password=bob-secret]'
		call $configs "${Q[@]}" --alter --entity-type users --entity-name bob --add-config producer_byte_rate=524288
	else
		call $configs "${Q[@]}" --alter --entity-type users --entity-name alice \
			--add-config 'SCRAM-SHA-256=[iterations=8192,password=alice-secret],SCRAM-SHA-512=[iterations=8192,password=alice-secret]'
		call $configs "${Q[@]}" --alter --entity-type users --entity-name bob \
			--add-config 'SCRAM-SHA-256=[iterations=8192,password=bob-secret],producer_byte_rate=524288'
	fi
	call $configs "${Q[@]}" --alter --entity-type users --entity-name CN=foo,OU=bar --add-config 'SCRAM-SHA-256=[iterations=4096,password=foo-secret]'
	call $configs "${Q[@]}" --alter --entity-type users --entity-name 'User With Space' --add-config 'SCRAM-SHA-512=[iterations=4096,password=space-secret]'
	call $configs "${Q[@]}" --alter --entity-type users --entity-name carol --add-config 'SCRAM-SHA-256=[iterations=4096,password=carol-unrecorded-secret]'

	# ACLs: literal allow and deny, hosts, the wildcard topic, groups, the
	# cluster, transactional ids (0.11+), --producer; 2.0+ prefixed patterns.
	call $acls "${A[@]}" --add --allow-principal User:alice --operation Read --operation Write --operation Describe --topic orders
	call $acls "${A[@]}" --add --allow-principal 'User:User With Space' --operation Read --topic orders
	call $acls "${A[@]}" --add --allow-principal User:carol --allow-host 10.0.0.7 --operation Read --topic orders
	call $acls "${A[@]}" --add --deny-principal User:mallory --operation Read --topic payments
	call $acls "${A[@]}" --add --deny-principal 'User:*' --deny-host 10.0.0.99 --operation Write --topic payments
	call $acls "${A[@]}" --add --allow-principal User:auditor --operation Describe --operation DescribeConfigs --topic '*'
	call $acls "${A[@]}" --add --allow-principal User:alice --operation Read --group billing
	call $acls "${A[@]}" --add --deny-principal User:mallory --operation Read --group billing
	call $acls "${A[@]}" --add --allow-principal User:alice --operation Create --operation IdempotentWrite --cluster
	call $acls "${A[@]}" --add --allow-principal User:CN=foo,OU=bar --operation DescribeConfigs --cluster
	call $acls "${A[@]}" --add --deny-principal User:mallory --operation AlterConfigs --cluster
	call $acls "${A[@]}" --add --allow-principal User:alice --operation Write --operation Describe --transactional-id tx-orders
	call $acls "${A[@]}" --add --deny-principal User:mallory --operation Write --transactional-id tx-orders
	call $acls "${A[@]}" --add --allow-principal User:svc-etl --producer --topic events
	if [[ $v == kafka24 || $v == kafka28 ]]; then
		call $acls "${A[@]}" --add --allow-principal User:bob --operation Read --operation Describe --topic metrics. --resource-pattern-type prefixed
		call $acls "${A[@]}" --add --deny-principal User:mallory --operation All --topic metrics. --resource-pattern-type prefixed
		call $acls "${A[@]}" --add --allow-principal User:bob --operation Read --group team- --resource-pattern-type prefixed
		call $acls "${A[@]}" --add --allow-principal User:bob --operation Describe --transactional-id tx- --resource-pattern-type prefixed
		call $acls "${A[@]}" --add --allow-principal User:svc-etl --producer --topic etl- --resource-pattern-type prefixed
	fi
	# Delegation tokens (1.1+): an ACL on one, and a token owned by admin, renewer alice.
	if [[ $v != kafka011 ]]; then
		call $acls "${A[@]}" --add --allow-principal User:alice --operation Describe --delegation-token reporting-token
		call kafka.admin.DelegationTokenCommand "${B[@]}" --create --max-life-time-period -1 --renewer-principal User:alice
	fi
}

# old_credentials V FILE: the known SCRAM passwords of release V's legacy state.
old_credentials() {
	cat >"$2" <<'EOF'
[
  {"user":"admin","mechanism":"SCRAM-SHA-256","password":"admin-secret","iterations":8192},
  {"user":"alice","mechanism":"SCRAM-SHA-256","password":"alice-secret","iterations":8192},
  {"user":"alice","mechanism":"SCRAM-SHA-512","password":"alice-secret","iterations":8192},
  {"user":"bob","mechanism":"SCRAM-SHA-256","password":"bob-secret","iterations":8192},
  {"user":"CN=foo,OU=bar","mechanism":"SCRAM-SHA-256","password":"foo-secret","iterations":4096},
  {"user":"User With Space","mechanism":"SCRAM-SHA-512","password":"space-secret","iterations":4096}
]
EOF
}

# old_one V [DIR]: release V's brokers start in chroot /V, write its legacy
# state, and stop; with DIR, the state is captured into DIR before they stop
# (so the fixture holds their registrations and the partitions' leaders).
old_one() {
	local v=$1 capture=${2:-} out t0=$SECONDS
	out=$(old_out "$v")
	if [[ -f $out/done ]]; then
		[[ -z $capture ]] || die "$v: the legacy state in /$v was written before; a capture needs a fresh one (testbed.sh clean)"
		say "$v: legacy state already written in /$v (testbed.sh clean for a fresh one)"
		return 0
	fi
	fetch_lib "$HERE/pom-$v.xml" "$(old_lib "$v")"
	rm -rf "$out" "$DATA/$v-1" "$DATA/$v-2"
	mkdir -p "$out"
	local zk=127.0.0.1:$ZK_PORT/$v bs=127.0.0.1:$OLD_PORT cp=$TB/source-client.properties
	SCRIPT=$out/admin.tools
	: >"$SCRIPT"
	# The admin credential comes first: the brokers authenticate to each other
	# with it. The tools need the chroot to exist, and 0.11's ConfigCommand
	# /config/changes too (a broker's first start creates both).
	call @create-path "127.0.0.1:$ZK_PORT" "/$v/config/changes"
	call kafka.admin.ConfigCommand --zookeeper "$zk" --alter --entity-type users --entity-name "$ADMIN_USER" \
		--add-config "SCRAM-SHA-256=[iterations=8192,password=$ADMIN_PASSWORD]"
	say "$v: Kafka $(old_release "$v"), chroot /$v: admin credential (ConfigCommand --zookeeper)"
	old_tools "$v" "$SCRIPT" || exit 1
	say "$v: starting brokers 1 and 2"
	launch_old_broker "$v" old 1 "$OLD_PORT" rack-a
	launch_old_broker "$v" old1 2 "$OLD1_PORT" rack-b
	trap 'stop_old' EXIT
	wait_ready old
	wait_ready old1
	SCRIPT=$out/state.tools
	: >"$SCRIPT"
	old_state_script "$v" "$zk" "$bs" "$cp"
	say "$v: writing the legacy state ($(grep -c . "$SCRIPT") tool calls)"
	old_tools "$v" "$SCRIPT" || exit 1
	old_credentials "$v" "$out/scram-credentials.json"
	cp "$CONF/$v-1.properties" "$out/server.properties"
	[[ $v == kafka011 ]] || printf '%s' "$ENCODER_SECRET" >"$out/encoder.secret"
	[[ -z $capture ]] || capture_old "$v" "$capture"
	stop_old
	trap - EXIT
	touch "$out/done"
	say "$v: legacy state written and brokers stopped ($((SECONDS - t0))s)"
}

# old [V|all]: the legacy state of one old release, or of each in turn.
# old-capture DIR [V|all]: the same, captured into DIR (V not yet written).
cmd_old() {
	local capture=
	if [[ ${1:-} == --capture ]]; then
		capture=${2:-}
		[[ -n $capture ]] || die "old-capture needs an output dir"
		shift 2
	fi
	local what=${1:-all} v
	local -a vs=("$what")
	[[ $what == all ]] && vs=("${OLD_RELEASES[@]}")
	for v in "${vs[@]}"; do old_release "$v" >/dev/null; done
	need_java
	write_common_files
	running zk || start_zk
	for v in "${vs[@]}"; do old_one "$v" "$capture"; done
}

# capture_old V DIR: chroot /V as Kafka wrote it (zkcapture, read-only) and
# its files, as the fixtures DIR/V-legacy.json, V-legacy.scram.json,
# V-legacy.encoder-secret (1.1+) and V-server.properties.
capture_old() {
	local v=$1 dir=$2 out
	out=$(old_out "$v")
	mkdir -p "$dir"
	(cd "$ROOT" && go run ./tools/zkcapture -zk "127.0.0.1:$ZK_PORT" -root "/$v" -out "$dir/$v-legacy.json")
	cp "$out/scram-credentials.json" "$dir/$v-legacy.scram.json"
	if [[ -f $out/encoder.secret ]]; then
		cp "$out/encoder.secret" "$dir/$v-legacy.encoder-secret"
		chmod 644 "$dir/$v-legacy.encoder-secret"
	fi
	cp "$out/server.properties" "$dir/$v-server.properties"
	say "captured /$v into $dir: $v-legacy.json and its files"
}

usage() {
	cat <<EOF
Usage: testbed/testbed.sh <command> [args]

  fetch                      resolve the Kafka jars from Maven Central into
                             \$TESTBED_DIR/lib39 and lib41 (skipped when present)
  start [zk|source|target|all]   start (and wait for) servers; a running one is left alone
                             (source: brokers 1 and 2; target: nodes 1 and 2)
  stop  [zk|source|source1|source2|target|target1|all]   SIGTERM the pids this script recorded
  restart <name>             stop then start one server (data kept)
  kill <name>                SIGKILL one server (fault tests)
  reset target               stop the target, delete its data, start it empty (new cluster id)
  status                     state of each server
  wait                       wait until every running server is ready
  logs [name|tools]          tail of the logs in \$TESTBED_DIR/logs
  env                        export lines for the Go tests (paths, never secrets)
  legacy                     create the legacy state on the running 3.9 cluster
                             (starts broker 3 for a while: it holds the pending deletion)
  old [kafka011|kafka11|kafka24|kafka28|all]   the legacy state of Kafka 0.11.0.3, 1.1.1,
                             2.4.1, 2.8.2, one after another, each written by the release's own
                             tools in chroot /<release> of the test ZooKeeper by its two brokers
                             (old, old1), which stop afterwards; files in \$TESTBED_DIR/old/<release>
  old-capture DIR [release|all]   the same, each chroot captured into DIR/<release>-legacy.json
                             (and its files) before its brokers stop (a release not yet
                             written: clean first; make capture-old uses its own state dir)
  fresh-target format|start|stop   a single-node 4.1 KRaft cluster on its own ports
                             (FRESH_PORT, FRESH_CONTROLLER_PORT) for migrate bootstrap:
                             format wipes and formats it (prints its metadata dir and
                             address), start starts it, stop stops it
  capture DIR                write the ZooKeeper tree and its test files into DIR
  clean                      stop everything, delete data, logs and settings (jars kept)

State dir: \$TESTBED_DIR (default <repo>/.testbed), now $TB
Jar cache: \$TESTBED_LIB_DIR (default the state dir), now $LIBS
Servers: zk; source (broker 1), source1 (broker 2), source2 (broker 3, only during
       legacy): Kafka 3.9.1, ZooKeeper mode; old, old1 (brokers 1 and 2 of an old release,
       only during old); target (node 1, controller+broker), target1 (node 2, broker):
       Kafka 4.1.1 KRaft
Ports: ZK_PORT=$ZK_PORT SOURCE_PORT=$SOURCE_PORT SOURCE1_PORT=$SOURCE1_PORT SOURCE2_PORT=$SOURCE2_PORT
       TARGET_PORT=$TARGET_PORT TARGET_CONTROLLER_PORT=$TARGET_CONTROLLER_PORT TARGET1_PORT=$TARGET1_PORT
       FRESH_PORT=$FRESH_PORT FRESH_CONTROLLER_PORT=$FRESH_CONTROLLER_PORT
       OLD_PORT=$OLD_PORT OLD1_PORT=$OLD1_PORT
       (fixed until clean)
Heaps: ZK_HEAP=$ZK_HEAP KAFKA_HEAP=$KAFKA_HEAP; ZK_JVM_OPTS adds JVM flags to ZooKeeper
Waits: TESTBED_WAIT=$WAIT_SECS s to become ready, TESTBED_STOP_WAIT=$STOP_SECS s to exit
Snapshots: TARGET_SNAPSHOT_INTERVAL_MS=$TARGET_SNAPSHOT_INTERVAL_MS ms between the target nodes' metadata
       snapshots (Kafka 4.1.1 loses SCRAM credentials replaying deletions; testbed/README.md)
EOF
}

main() {
	local cmd=${1:-help}
	shift || true
	case $cmd in
	fetch) cmd_fetch ;;
	start) cmd_start "$@" ;;
	stop) cmd_stop "$@" ;;
	restart) cmd_restart "$@" ;;
	kill) cmd_kill "$@" ;;
	reset) cmd_reset "$@" ;;
	status) cmd_status ;;
	wait) cmd_wait ;;
	logs) cmd_logs "$@" ;;
	env) cmd_env ;;
	legacy) cmd_legacy ;;
	old) cmd_old "$@" ;;
	old-capture) cmd_old --capture "$@" ;;
	capture) cmd_capture "$@" ;;
	fresh-target) cmd_fresh "$@" ;;
	clean) cmd_clean ;;
	help | -h | --help) usage ;;
	*) usage >&2; exit 2 ;;
	esac
}

main "$@"
