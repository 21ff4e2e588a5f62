#!/bin/sh
# ompkernels.test.sh BUILD - the OpenMP kernels of bench/ (omp_fib,
# omp_nqueens, omp_uts, omp_cilksort, omp_matmul, omp_phases), unmodified
# gcc -fopenmp binaries, on the OpenMP layer (BUILD/lib/asteal first in the
# library path):
#  1. standalone at 1, 2 and 4 threads: right results (check=ok), and the
#     layer really is the libgomp they run on (the layer's summary line,
#     ASTEAL_STATS=1, which the system's libgomp does not print);
#  2. with the allotment flapping (ASTEAL_PROFILE: 2, 1, 0, 2, 1, 1, 2, 0
#     over and over, a quantum of 2 ms): right results, and the trace shows
#     the allotment followed the profile (quanta at allotment 0 and 2);
#  3. under a private asteald: the allotments through the page (rigid
#     jobs joining while a phases run is in serial code take its idle
#     slots as the daemon writes that: status idle_revocations); beside a
#     libasteal job (jobs/fib): right
#     results, both jobs in the daemon's history, the OpenMP ones as
#     adaptive jobs (their runtime said how many workers they have);
#  4. the same under ASTEAL_OMP_TEAM=allotment.
# In the sanitizer builds (ASTEAL_TEST_SAN) the kernels and the layer are
# both instrumented, and the sizes are smaller.  Every wait is bounded.
set -u

build=${1:?usage: sh tests/ompkernels.test.sh BUILD}
san=${ASTEAL_TEST_SAN:-}
. scripts/lib.sh
test_tmp ompkernels
layer="$build/lib/asteal"
[ -f "$layer/libgomp.so.1" ] || fail "no layer at $layer/libgomp.so.1 (make lib builds it)"

KERNELS="fib nqueens uts cilksort matmul phases"

# The arguments of kernel $1's test run.
args() {
	if [ -n "$san" ]; then
		case $1 in
		fib) echo 18 ;;
		nqueens) echo 7 ;;
		uts) echo T3S ;;
		cilksort) echo 20000 ;;
		matmul) echo 64 ;;
		phases) echo 2 --w1 300 --w2 100 --h 4 ;;
		esac
	else
		case $1 in
		fib) echo 24 ;;
		nqueens) echo 9 ;;
		uts) echo T1S ;;
		cilksort) echo 200000 ;;
		matmul) echo 160 ;;
		phases) echo 4 --w1 2000 --w2 500 --h 8 ;;
		esac
	fi
}

# Run kernel $1 on the layer with $2 threads, with the arguments that
# follow or its test run's (further environment from the caller); fail unless it prints check=ok and the layer's summary.
run_kernel() {
	k=$1
	n=$2
	shift 2
	[ $# -gt 0 ] || set -- $(args "$k")
	if ! LD_LIBRARY_PATH="$layer${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
	    ASTEAL_STATS=1 timeout 120 "$build/bench/omp_$k" "$@" \
	    --workers "$n" >"$tmp/out" 2>"$tmp/err"; then
		fail "omp_$k $* --workers $n: exit $?: $(tail -3 "$tmp/err")"
	fi
	grep -q 'check=ok' "$tmp/out" ||
		fail "omp_$k --workers $n: no check=ok: $(cat "$tmp/out")"
	grep -q '^asteal: mode=' "$tmp/err" ||
		fail "omp_$k --workers $n: not run on the layer (no summary line)"
}

# The sanitizer builds run fewer thread counts and kernels (TSan is slow):
# the standalone runs at 2 and 4 threads (4 in TSan, without the two loop
# kernels), the flapping and daemon parts on fib, uts and phases (tasks,
# taskwait, many regions).
case $san in
asan) counts="2 4"; flaps="4"; alone=$KERNELS; some="fib uts phases" ;;
tsan) counts="4"; flaps="4"; alone="fib uts cilksort phases"; some="fib uts phases" ;;
*) counts="1 2 4"; flaps="2 4"; alone=$KERNELS; some=$KERNELS ;;
esac

# 1. standalone
for k in $alone; do
	for n in $counts; do
		ASTEAL_SOCKET=none run_kernel "$k" "$n"
	done
done
echo "ok: standalone at $counts threads"

# 2. a flapping availability
printf '2\n1\n0\n2\n1\n1\n2\n0\n' >"$tmp/one"
# (the last line holds from there on: 2, not 0, which a profile may not end with)
{ for i in 1 2 3 4 5 6 7 8; do cat "$tmp/one"; done; echo 2; } >"$tmp/profile"
for k in $some; do
	for n in $flaps; do
		ASTEAL_SOCKET=none ASTEAL_PROFILE="$tmp/profile" ASTEAL_QUANTUM_MS=2 \
		run_kernel "$k" "$n"
	done
done
# That the allotment followed the profile: a run of about 100 ms in every
# build (phases' units of work are timed), whose trace must show the
# allotment at 0 and above (column 6).
if ! ASTEAL_SOCKET=none ASTEAL_PROFILE="$tmp/profile" ASTEAL_QUANTUM_MS=2 \
    ASTEAL_TRACE="$tmp/trace.csv" LD_LIBRARY_PATH="$layer" timeout 120 \
    "$build/bench/omp_phases" 30 --w1 1000 --w2 250 --h 8 --workers 4 >"$tmp/out" 2>"$tmp/err" ||
    ! grep -q 'check=ok' "$tmp/out"; then
	fail "omp_phases under the flapping profile: $(tail -3 "$tmp/err")"
fi
awk -F, 'NR > 1 { seen[$6] = 1 } END { exit !(seen[0] && (seen[1] || seen[2])) }' \
	"$tmp/trace.csv" || fail "flapping profile: the trace's allotments did not follow it: $(cut -d, -f1,5,6 "$tmp/trace.csv" | head -12)"
echo "ok: with the allotment flapping"

# 3. under asteald, beside a libasteal job
sock="$tmp/d.sock"
: >"$tmp/daemon.log"
"$build/bin/asteald" --foreground --socket "$sock" --db "$tmp/d.db" \
	--cpus 0-1 --quantum-ms 10 >"$tmp/daemon.log" 2>&1 &
daemon_pid=$!
wait_for 10 grep -q 'listening on' "$tmp/daemon.log" || fail "asteald did not start"
case $san in asan) fibn=34 ;; tsan) fibn=30 ;; *) fibn=38 ;; esac
# The layer reads its allotments in the page: a revocation taken while
# the program is in serial code (its slots idle, no thread of it there to
# see it) is done as the daemon writes it, counted in status.  A phases
# run nearly all serial asks for both CPUs all along (ABP mode); each of
# three rigid jobs takes one from it as it joins.
LD_LIBRARY_PATH="$layer${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ASTEAL_MODE=abp \
	ASTEAL_SOCKET="$sock" "$build/bench/omp_phases" 1000 --w1 100000 --w2 100 \
	--h 2 --workers 2 >"$tmp/serial.out" 2>&1 &
serial_pid=$!
# Whether the serial run holds both CPUs.
holds_two() {
	"$build/bin/asteal" --socket "$sock" --json jobs 2>/dev/null | python3 -c '
import json, sys
sys.exit(not any(j["name"] == "omp_phases" and j["allotment"] == 2
                 for j in json.load(sys.stdin)))'
}
for i in 1 2 3; do
	wait_for 20 holds_two || fail "the serial run never held both CPUs"
	"$build/bin/asteal" --socket "$sock" run --cpus 1 -- sleep 0.05 ||
		fail "a rigid job beside the serial run failed"
done
kill "$serial_pid"
wait "$serial_pid" 2>/dev/null
"$build/bin/asteal" --socket "$sock" --json status >"$tmp/status.json" ||
	fail "asteal status --json failed"
idle=$(python3 -c 'import json, sys; print(json.load(sys.stdin).get("idle_revocations", 0))' \
	<"$tmp/status.json")
[ "$idle" -gt 0 ] ||
	fail "no revocation of idle slots through the page: $(cat "$tmp/status.json")"
echo "ok: $idle of 3 rigid joins took an idle slot of the layer's through its page"
ASTEAL_SOCKET="$sock" "$build/jobs/fib" "$fibn" >"$tmp/fib.out" 2>&1 &
fib_pid=$!
for k in $some; do
	ASTEAL_SOCKET="$sock" run_kernel "$k" 2
done
for policy in allotment; do
	for k in fib phases; do
		ASTEAL_SOCKET="$sock" ASTEAL_OMP_TEAM=$policy run_kernel "$k" 2
	done
done
wait "$fib_pid" || fail "the libasteal job beside them failed: $(cat "$tmp/fib.out")"
grep -q 'check=ok' "$tmp/fib.out" || fail "fib beside them: $(cat "$tmp/fib.out")"
# Every kernel joined as an adaptive job (its runtime said how many
# workers it has; a run shorter than a quantum has no allotment row).
"$build/bin/asteal" --socket "$sock" history --jobs --csv >"$tmp/jobs.csv" 2>"$tmp/err" ||
	fail "asteal history --jobs: $(cat "$tmp/err")"
for k in $some; do
	awk -F, -v n="omp_$k" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["name"] == n && $c["workers"] >= 1 { found = 1 }
		END { exit !found }' "$tmp/jobs.csv" ||
		fail "omp_$k is not in the history as an adaptive job: $(cat "$tmp/jobs.csv")"
done
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c["name"] == "fib" { found = 1 }
	END { exit !found }' "$tmp/jobs.csv" || fail "the libasteal job is not in the history"
echo "ok: under asteald beside a libasteal job, and with ASTEAL_OMP_TEAM=allotment"
