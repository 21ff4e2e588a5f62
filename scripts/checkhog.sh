#!/bin/sh
# checkhog.sh [RUNS] [REV] - make check on clean clones beside a CPU hog:
# RUNS times (default 1) in a row, each on a fresh clone of this
# repository at REV (default HEAD) in a temporary folder, with a shell
# loop spinning on the last CPU at the caller's priority for the whole
# run.  One line per run (its wall time, its CPU time, whether it passed
# and was under LIMIT seconds, 600 unless set), the failures' log tails,
# and a closing tally; exit 0 when every run passed within the limit.
# Each run's whole output stays in checkhog-N.log in the folder named by
# CHECKHOG_LOGS (default: a new temporary folder, printed first).
set -u

runs=${1:-1}
rev=${2:-HEAD}
limit=${LIMIT:-600}
case $runs in
'' | *[!0-9]* | 0) echo "usage: scripts/checkhog.sh [RUNS] [REV]" >&2; exit 2 ;;
esac
case $limit in
'' | *[!0-9]* | 0) echo "checkhog.sh: LIMIT must be a positive number of seconds" >&2; exit 2 ;;
esac
repo=$(git rev-parse --show-toplevel) || exit 2
commit=$(git -C "$repo" rev-parse --short "$rev") || exit 2
logs=${CHECKHOG_LOGS:-$(mktemp -d "${TMPDIR:-/tmp}/checkhog.XXXXXX")} || exit 1
mkdir -p "$logs"
cpu=$(($(nproc) - 1))
echo "make check at $commit, beside a hog on CPU $cpu, $runs run(s), logs in $logs"

hog=""
work=""
# stop: the hog and the clone go, whatever ended the run.
stop() {
	[ -n "$hog" ] && kill "$hog" 2>/dev/null && wait "$hog" 2>/dev/null
	hog=""
	[ -n "$work" ] && rm -rf "$work"
	work=""
}
trap 'stop' EXIT
trap 'exit 130' INT TERM

passed=0
for i in $(seq "$runs"); do
	log="$logs/checkhog-$i.log"
	work=$(mktemp -d "${TMPDIR:-/tmp}/checkhog-run.XXXXXX") || exit 1
	git clone -q "$repo" "$work/p" && git -C "$work/p" checkout -q "$commit" ||
		{ echo "run $i: cannot clone $commit"; exit 1; }
	taskset -c "$cpu" sh -c 'while :; do :; done' &
	hog=$!
	start=$(date +%s)
	# times: the CPU time of make check and all it ran (its second line)
	( cd "$work/p" && make check; rc=$?; times >"$work/times"; exit $rc ) \
		>"$log" 2>&1
	rc=$?
	secs=$(($(date +%s) - start))
	cpu_line=$(tail -n 1 "$work/times" 2>/dev/null |
		sed -n 's/^\([^ ]*\) \([^ ]*\)$/CPU user \1, system \2/p')
	stop
	tally=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tr '\n' ';' | sed 's/;$//; s/;/; /g')
	if [ "$rc" -eq 0 ] && [ "$secs" -lt "$limit" ]; then
		passed=$((passed + 1))
		verdict=ok
	elif [ "$rc" -eq 0 ]; then
		verdict="over ${limit} s"
	else
		verdict="FAILED (exit $rc)"
	fi
	echo "run $i: $secs s ($cpu_line), $tally: $verdict"
	if [ "$rc" -ne 0 ]; then
		grep -E '^  FAIL ' "$log" | sed 's/^/        /'
	fi
done
echo "$passed of $runs run(s) passed in under $limit s"
[ "$passed" -eq "$runs" ]
