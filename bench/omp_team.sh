#!/bin/sh
# omp_team.sh BUILD [--rounds N] [--quick] - the OpenMP layer's team-size
# question, measured: the OpenMP kernels of bench/ (2 threads asked, as
# OMP_NUM_THREADS=2 programs on this machine) under the two policies of
# ASTEAL_OMP_TEAM:
#   full       the team has the size asked; threads beyond the allotment
#              wait for a processor at scheduling points (the default);
#   allotment  a region gets at most the job's allotment at its start.
# in two settings:
#   profile    alone, with the availability flapping between 1 and 2
#              every quantum at random (asteal-profile uniform --min 1
#              --max 2, seed 7, 10 ms quanta): the allotment changes under
#              running regions;
#   alone      under a private asteald on CPUs 0-1, no other job: the
#              desire starts at 1 and grows as the kernel runs;
#   daemon     under the same asteald beside a libasteal job (jobs/fib 44,
#              restarted as it ends), DEQ sharing the CPUs.
# Every cell is the median of N rounds (default 5) of the kernel's own
# time; the rounds interleave the two policies (full first in odd rounds,
# allotment first in even ones).  Beside each kernel: the host's steal
# over its rounds (/proc/stat), and allotment/full (below 1: allotment is
# faster).  A failed kernel (no check=ok) stops the script with exit 1.
set -u

usage() {
	echo "usage: bench/omp_team.sh BUILD [--rounds N] [--quick]" >&2
	exit 2
}
[ $# -ge 1 ] || usage
build=$1
shift
rounds=5
quick=0
while [ $# -gt 0 ]; do
	case $1 in
	--rounds) [ $# -ge 2 ] || usage; rounds=$2; shift 2 ;;
	--quick) quick=1; rounds=1; shift ;;
	*) usage ;;
	esac
done
layer="$build/lib/asteal"
[ -f "$layer/libgomp.so.1" ] || { echo "omp_team.sh: no layer at $layer" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/asteal-ompteam.XXXXXX") || exit 1
daemon=""
bg=""
cleanup() {
	[ -n "$bg" ] && kill "$bg" 2>/dev/null
	[ -n "$daemon" ] && kill "$daemon" 2>/dev/null
	pkill -P $$ 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM

if [ $quick -eq 1 ]; then
	KERNELS="fib:30 phases:20_--w1_2000_--w2_500_--h_8"
else
	KERNELS="fib:36 nqueens:15 uts:T1 cilksort:8000000 matmul:1024 phases:60_--w1_2000_--w2_500_--h_8"
fi

# The steal counter of /proc/stat's cpu line (jiffies).
steal() { awk '/^cpu /{ print $9 }' /proc/stat; }
# All jiffies of /proc/stat's cpu line.
total() { awk '/^cpu /{ s = 0; for (i = 2; i <= NF; i++) s += $i; print s }' /proc/stat; }

# Run kernel $1 (name:args with _ for spaces) under policy $2; prints its time.
run() {
	name=${1%%:*}
	args=$(echo "${1#*:}" | tr _ ' ')
	# shellcheck disable=SC2086
	LD_LIBRARY_PATH="$layer" ASTEAL_OMP_TEAM=$2 OMP_NUM_THREADS=2 \
		timeout 300 "$build/bench/omp_$name" $args >"$tmp/out" 2>"$tmp/err" ||
		{ echo "omp_team.sh: omp_$name $args ($2): failed: $(tail -2 "$tmp/err")" >&2; exit 1; }
	grep -q 'check=ok' "$tmp/out" || { echo "omp_team.sh: omp_$name: no check=ok" >&2; exit 1; }
	sed -n 's/.*time_s=\([0-9.]*\).*/\1/p' "$tmp/out"
}

# The median of the numbers on stdin.
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# One setting: every kernel, both policies, interleaved.
measure() {
	setting=$1
	printf '%-10s %-9s %10s %10s %10s %7s\n' "$setting" kernel full_s allot_s allot/full steal
	for k in $KERNELS; do
		: >"$tmp/full"
		: >"$tmp/allot"
		s0=$(steal)
		t0=$(total)
		r=1
		while [ $r -le "$rounds" ]; do
			if [ $((r % 2)) -eq 1 ]; then
				run "$k" full >>"$tmp/full" || exit 1
				run "$k" allotment >>"$tmp/allot" || exit 1
			else
				run "$k" allotment >>"$tmp/allot" || exit 1
				run "$k" full >>"$tmp/full" || exit 1
			fi
			r=$((r + 1))
		done
		f=$(median <"$tmp/full")
		a=$(median <"$tmp/allot")
		st=$(awk -v s="$(($(steal) - s0))" -v t="$(($(total) - t0))" 'BEGIN { printf "%.1f%%", t ? 100 * s / t : 0 }')
		printf '%-10s %-9s %10.3f %10.3f %10.3f %7s\n' "" "${k%%:*}" "$f" "$a" \
			"$(awk -v a="$a" -v f="$f" 'BEGIN { print (f > 0 ? a / f : 0) }')" "$st"
	done
}

echo "the team-size policies of the OpenMP layer: median of $rounds rounds, 2 threads asked, $(nproc) CPUs"
"$build/bin/asteal-profile" uniform --min 1 --max 2 --seed 7 --quanta 100000 >"$tmp/profile"
ASTEAL_SOCKET=none ASTEAL_PROFILE="$tmp/profile" ASTEAL_QUANTUM_MS=10 measure profile

sock="$tmp/d.sock"
"$build/bin/asteald" --foreground --socket "$sock" --db "$tmp/d.db" --cpus 0-1 \
	--quantum-ms 10 >"$tmp/daemon.log" 2>&1 &
daemon=$!
i=0
until grep -q 'listening on' "$tmp/daemon.log" 2>/dev/null; do
	i=$((i + 1))
	[ $i -gt 200 ] && { echo "omp_team.sh: asteald did not start" >&2; exit 1; }
	sleep 0.05
done
ASTEAL_SOCKET="$sock" measure alone
( while :; do ASTEAL_SOCKET="$sock" "$build/jobs/fib" 44 >/dev/null 2>&1 || exit 0; done ) &
bg=$!
ASTEAL_SOCKET="$sock" measure daemon
