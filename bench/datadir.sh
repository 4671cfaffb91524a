#!/usr/bin/env bash
# Offline read of a ZooKeeper data dir at 50,000 topics: peak RSS and CPU
# of `migrate snapshot --zk-data-dir DIR [--full]`, two builds side by side.
#
#   bench/datadir.sh OLD_BIN NEW_BIN
#
# The data dirs of zkgen.Full(1) (log: an empty snapshot.0 and one log.1
# with every create; snap: one snapshot of the same tree) are written by
# internal/zkdisk's TestWriteBenchDataDirs into $DATA (default
# bench/results/datadir, kept for later runs; a few minutes the first time).
# Each (data dir, read, binary) runs a warm-up and $RUNS rounds (default 3)
# under GNU time; the table gives the medians. Raw figures: $DATA/runs.tsv.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -ne 2 ]; then
	echo "usage: bench/datadir.sh OLD_BIN NEW_BIN" >&2
	exit 2
fi
old=$(realpath "$1")
new=$(realpath "$2")
runs=${RUNS:-3}
data=${DATA:-bench/results/datadir}
mkdir -p "$data"
data=$(realpath "$data")
if ! ls "$data"/dirs/snap/version-2/snapshot.* >/dev/null 2>&1; then
	rm -rf "$data/dirs"
	ZKM_BENCH_ZKDISK_OUT="$data/dirs" go test ./internal/zkdisk -run '^TestWriteBenchDataDirs$' -count=1 >&2
fi
secret=$data/secret
printf %s zkgen-password-encoder-secret >"$secret"

echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores" >&2
tsv=$data/runs.tsv
: >"$tsv"
one() { # bin dir flags... -> "cpu_s rss_kib"
	local bin=$1 dir=$2
	shift 2
	local t
	t=$(mktemp)
	/usr/bin/time -v "$bin" snapshot --zk-data-dir "$dir" --password-encoder-secret-file "$secret" --out "$data/out.json" "$@" >/dev/null 2>"$t" || {
		cat "$t" >&2
		return 1
	}
	awk -F': ' '/User time/ {u=$2} /System time/ {s=$2} /Maximum resident/ {r=$2} END {printf "%.2f %d\n", u+s, r}' "$t"
	rm -f "$t"
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
printf '| data dir | read | new CPU | new peak RSS | prev CPU | prev peak RSS | new under 300 MiB |\n| --- | --- | ---: | ---: | ---: | ---: | --- |\n'
for form in log snap; do
	for read in migration full; do
		flags=()
		[ "$read" = full ] && flags=(--full)
		declare -A cpu=() rss=()
		for bin in old new; do
			b=$old
			[ $bin = new ] && b=$new
			one "$b" "$data/dirs/$form" "${flags[@]}" >/dev/null # warm-up
		done
		for r in $(seq "$runs"); do
			for bin in old new; do # interleaved: both see the same load
				b=$old
				[ $bin = new ] && b=$new
				read -r c m < <(one "$b" "$data/dirs/$form" "${flags[@]}")
				printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$form" "$read" "$bin" "$r" "$c" "$m" >>"$tsv"
				cpu[$bin]+="$c "
				rss[$bin]+="$m "
			done
		done
		nc=$(tr ' ' '\n' <<<"${cpu[new]}" | grep . | median)
		nr=$(tr ' ' '\n' <<<"${rss[new]}" | grep . | median)
		oc=$(tr ' ' '\n' <<<"${cpu[old]}" | grep . | median)
		or=$(tr ' ' '\n' <<<"${rss[old]}" | grep . | median)
		met=no
		[ "$nr" -lt $((300 * 1024)) ] && met=yes
		name=$read
		[ "$read" = full ] && name='`--full`'
		printf '| %s | %s | %s s | %d MiB | %s s | %d MiB | %s |\n' "$form" "$name" "$nc" $((nr / 1024)) "$oc" $((or / 1024)) "$met"
		unset cpu rss
	done
done
echo "# done $(date -u '+%H:%M UTC'), load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
