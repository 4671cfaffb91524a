#!/usr/bin/env bash
# Whole-command benchmark of the weight of a large cluster: `migrate snapshot`
# (migration and --full reads, saved with --out), `plan` from the saved
# snapshots against an empty target snapshot (--out, text output), `check`
# from the saved snapshot. For each: wall time, peak RSS (GNU time's maximum
# resident set size) and the size of what it wrote; then the memory of every
# phase of the plan (ZKM_MEMPROFILE: live heap, peak RSS, and the top
# allocation sites from the heap profile of the phases that hold the most).
#
#   bench/files.sh small              # 2,000 topics, generated and deleted again: CI (~20 s)
#   bench/files.sh full               # 50,000 topics in /zkgen-large (make gen-large ZK=...)
#   PREV=/tmp/migrate-old RUNS=3 bench/files.sh full   # also an older binary, in turn with this one
#
# ZooKeeper: $ZKM_BENCH_ZK, else $ZKM_TEST_ZK, else 127.0.0.1:21810 (host:port).
# The full tree needs a ZooKeeper with at least 1 GiB of heap. Work files go
# to $WORK (default: a temporary folder, removed at the end).
set -euo pipefail
cd "$(dirname "$0")/.."

size=${1:-small}
case $size in
small) runs=${RUNS:-1} chroot=/zkgen-files-small ;;
full) runs=${RUNS:-3} chroot=${ZKM_BENCH_CHROOT:-/zkgen-large} ;;
*) echo "bench/files.sh: size must be small or full, not '$size'" >&2; exit 1 ;;
esac
zk=${ZKM_BENCH_ZK:-${ZKM_TEST_ZK:-127.0.0.1:21810}}
zk=${zk%%/*}
work=${WORK:-$(mktemp -d)}
mkdir -p "$work"
[ -n "${WORK:-}" ] || trap 'rm -rf "$work"' EXIT

go build -o "$work/migrate" ./cmd/migrate
go build -o "$work/zkgen" ./tools/zkgen
bins=(new)
declare -A bin=([new]="$work/migrate")
if [ -n "${PREV:-}" ]; then
	bins=(new prev)
	bin[prev]=$PREV
fi

if [ "$size" = small ]; then
	"$work/zkgen" --zookeeper "$zk$chroot" --topics 2000 --acls 4000 --quota-entities 400 --scram-users 200 --quiet
	trap '"$work/zkgen" delete --zookeeper "$zk$chroot" >/dev/null 2>&1 || true; [ -n "${WORK:-}" ] || rm -rf "$work"' EXIT
fi
echo '{"format": 1, "source": "kafka", "cluster_id": "bench-target"}' >"$work/empty.json"

timer=/usr/bin/time
[ -x "$timer" ] || timer=""
# measure NAME BIN OUTFILE ARGS...: one run; unless $warm, appends
# "wall rss_kib out_bytes cpu_seconds" to $work/NAME.runs
measure() {
	local name=$1 b=$2 out=$3
	shift 3
	local t0 t1 rss=- cpu=-
	t0=$(date +%s.%N)
	if [ -n "$timer" ]; then
		"$timer" -f '%M %U %S' -o "$work/time.out" "$b" "$@" >"$work/$name.stdout" 2>"$work/$name.stderr" || true
		read -r rss user sys < <(tail -1 "$work/time.out")
		cpu=$(echo "$user + $sys" | bc)
	else
		"$b" "$@" >"$work/$name.stdout" 2>"$work/$name.stderr" || true
	fi
	t1=$(date +%s.%N)
	local bytes=-
	if [ "$out" = stdout ]; then
		bytes=$(stat -c %s "$work/$name.stdout")
	elif [ -n "$out" ]; then
		bytes=$(stat -c %s "$out")
	fi
	((warm)) || echo "$(echo "$t1 - $t0" | bc) $rss $bytes $cpu" >>"$work/$name.runs"
}

# One warm-up round first (not counted): a binary's first runs are slower.
for ((i = -1; i < runs; i++)); do
	warm=$((i < 0))
	for v in "${bins[@]}"; do
		b=${bin[$v]}
		# The plan alone: its access proof is measured by BenchmarkCompareFullScale
		# (a binary older than the proof has no such flag, and no proof).
		noproof=()
		if "$b" plan --help 2>/dev/null | grep -q -- --no-access-proof; then noproof=(--no-access-proof); fi
		measure "$v-snapshot" "$b" "$work/$v-mig.snap" snapshot --zookeeper "$zk$chroot" --out "$work/$v-mig.snap"
		measure "$v-snapshot-full" "$b" "$work/$v-full.snap" snapshot --zookeeper "$zk$chroot" --full --out "$work/$v-full.snap"
		measure "$v-plan" "$b" "$work/$v.plan" plan --snapshot "$work/$v-mig.snap" --target-snapshot "$work/empty.json" --no-audit "${noproof[@]}" --out "$work/$v.plan"
		cp "$work/$v-plan.stdout" "$work/$v-plan.text"
		measure "$v-plan-text" "$b" stdout plan --snapshot "$work/$v-mig.snap" --target-snapshot "$work/empty.json" --no-audit "${noproof[@]}"
		measure "$v-check" "$b" "" check --snapshot "$work/$v-full.snap"
	done
done

# The medians (wall, CPU), the maxima (RSS) and the last size of each step.
median() { sort -n | awk '{v[NR]=$1} END {printf "%.2f", (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }
summary() {
	local f="$work/$1.runs" w c
	w=$(cut -d' ' -f1 "$f" | median)
	c=$(cut -d' ' -f4 "$f" | grep -v -- - | median)
	awk -v w="$w" -v c="$c" '{if ($2 != "-" && $2+0 > r) r=$2+0; b=$3} END {
		printf "%s s | %s | %s | %s", w, (c == "" ? "-" : c " s"), (r ? sprintf("%.0f MiB", r/1024) : "-"), (b == "-" ? "-" : sprintf("%.1f MB", b/1e6)) }' "$f"
}
echo
echo "## migrate at $size size ($runs run(s) each after a warm-up, in turn; median wall and CPU (user+sys), max RSS, output size)"
echo
printf '| step |%s\n' "$(for v in "${bins[@]}"; do printf ' %s wall | CPU | RSS | output |' "$v"; done)"
printf '| --- |%s\n' "$(for v in "${bins[@]}"; do printf ' ---: | ---: | ---: | ---: |'; done)"
for step in snapshot snapshot-full plan plan-text check; do
	printf '| %s |' "$step"
	for v in "${bins[@]}"; do printf ' %s |' "$(summary "$v-$step")"; done
	echo
done
echo
echo "(plan: --out FILE, output = the plan file; plan-text: the same plan printed as text, output = stdout)"
grep -h '^Plan:' "$work/new-plan.text" || true

# Where the bytes go: the plan once more with a heap profile per phase.
mkdir -p "$work/prof"
ZKM_MEMPROFILE="$work/prof" "${bin[new]}" plan --snapshot "$work/new-mig.snap" --target-snapshot "$work/empty.json" --no-audit --no-access-proof --out "$work/new.plan" \
	>/dev/null 2>"$work/memprofile.txt" || true
echo
echo "## memory per phase of plan (new)"
echo
grep '^memprofile' "$work/memprofile.txt" | sed "s|$work/||"
for phase in "$work"/prof/*-source.pprof "$work"/prof/*-plan.pprof; do
	[ -f "$phase" ] || continue
	echo
	echo "### live heap after $(basename "$phase" .pprof), top allocation sites"
	go tool pprof -sample_index=inuse_space -top -nodecount=8 "$phase" 2>/dev/null | sed -n '/flat%/,$p'
done
