#!/bin/sh
# ombench.test.sh BUILD - bench/omp.sh keeps working: its --quick run on
# BUILD (libgomp, libomp where the dynamic linker knows it, the layer
# where BUILD/lib/asteal/libgomp.so.1 exists; n/a otherwise) exits 0 and
# prints the kernel table with a checked row per kernel and runtime, the
# goals, the overhead table with every construct and spawncost's line,
# and the closing tally.  And it refuses to measure the wrong thing: a
# kernel that fails its check stops it with exit 1, and so does a
# libgomp column whose calls reach another library (LD_LIBRARY_PATH
# pointing at a layer).  Measurements are not judged: the goals are
# reported, met or not.  Skipped in the sanitizer builds.
set -u

build=${1:?usage: sh tests/ombench.test.sh BUILD}
if [ -n "${ASTEAL_TEST_SAN:-}" ]; then
	echo "skip: bench/omp.sh measures the normal build (sanitizer build $ASTEAL_TEST_SAN)"
	exit 0
fi
. scripts/lib.sh
test_tmp ombench

for b in omp_fib omp_nqueens omp_uts omp_cilksort omp_matmul omp_phases \
         omp_overhead asteal-spawncost; do
	[ -x "$build/bench/$b" ] || fail "no $build/bench/$b (make tests builds it)"
done
# A stuck runtime fails the run instead of holding the test.  The bound is
# for liveness, not speed: libgomp's spinning barriers, two threads on a
# host whose load is 10, took omp_overhead's dynamic cell past 20 s (it
# takes under 1 s on a quiet host), and the test runs in make check's
# idle lane (tests/run.sh), on the CPU time the other tests leave, so a
# cell gets 240 s.
export OMP_BENCH_CELL_LIMIT=240
# Passive waits: at SCHED_IDLE beside a CPU hog, a team thread spinning
# for a partner that got no CPU took this test from 12 s to 25 s.
export OMP_WAIT_POLICY=passive

# 1. The smoke run.
expect_rc 0 sh bench/omp.sh "$build" --quick
out=$tmp/out
grep '^  libgomp  ' "$out" | grep -qv 'missing' || fail "libgomp not present: $(cat "$out")"
echo "runtimes:"
grep -E '^  (libgomp|libomp|layer)  +/' "$out"
grep -q '^kernel  *size  *Ts  *runtime  *T1 med  *T1 min  *T2 med  *T2 min  *T1/Ts  *T1/T2  *check  *steal  *others$' "$out" ||
	fail "no kernel table header: $(cat "$out")"
for k in fib nqueens uts cilksort matmul phases; do
	grep -q "^$k .* libgomp .* ok  *[0-9n]" "$out" || fail "no checked libgomp row for $k: $(cat "$out")"
	for rt in libomp layer; do
		grep -q "^$k .* $rt " "$out" || fail "no $rt row for $k"
	done
done
grep -q '^goals (the layer; medians):$' "$out" || fail "no goals section"
[ "$(grep -c '^  (a) ' "$out")" -eq 12 ] || fail "not 12 goals (a): $(grep '^  (a)' "$out")"
[ "$(grep -c '^  (b) ' "$out")" -eq 4 ] || fail "not 4 goals (b)"
[ "$(grep -c '^  (c) ' "$out")" -eq 2 ] || fail "not 2 goals (c)"
grep -q '^construct overheads at 2 threads' "$out" || fail "no overhead section"
grep -q '^  construct  *libgomp  *libomp  *layer *$' "$out" || fail "no overhead table header"
for c in parallel barrier single critical dynamic task task_all; do
	grep -q "^  $c  *-\{0,1\}[0-9]" "$out" || fail "no libgomp overhead for $c: $(cat "$out")"
	grep -q "^  (d) $c layer <= libgomp " "$out" || fail "no goal (d) for $c"
done
grep -q '^  libasteal asteal_spawn + asteal_sync (asteal-spawncost, 2 workers): -\{0,1\}[0-9]' "$out" ||
	fail "no spawncost figure"
grep -q '^  (e) task layer <= 2 x spawn ' "$out" || fail "no goal (e)"
grep -Eq '^[0-9]+ met, [0-9]+ missed, [0-9]+ n/a' "$out" || fail "no tally"
# Every goal line ends in a verdict.
if grep -E '^  \([a-e]\) ' "$out" | grep -Ev ' (met|missed|missed \(within the spread\)|n/a)$'; then
	fail "a goal without a verdict"
fi
echo "quick run: $(tail -n 1 "$out")"

# 2. A kernel that fails its check stops the script with exit 1.
mkdir -p "$tmp/bad/bench"
for b in "$build"/bench/omp_* "$build/bench/asteal-spawncost"; do
	ln -s "$(cd "$(dirname "$b")" && pwd)/$(basename "$b")" "$tmp/bad/bench/"
done
rm "$tmp/bad/bench/omp_fib"
cat >"$tmp/bad/bench/omp_fib" <<'EOF'
#!/bin/sh
echo "job=omp-fib size=20 result=1 mode=serial workers=0 time_s=0.000100 check=FAILED"
exit 1
EOF
chmod +x "$tmp/bad/bench/omp_fib"
expect_rc 1 sh bench/omp.sh "$tmp/bad" --quick
grep -q 'FAILED (exit 1):.*omp_fib' "$tmp/err" || fail "no FAILED line for omp_fib: $(cat "$tmp/err")"

# 3. The libgomp column run on something else (a layer first in the
# library path, here the system's libgomp by another path) is refused.
gomp=$(ldd "$build/bench/omp_fib" | awk '$1 == "libgomp.so.1" { print $3 }')
[ -n "$gomp" ] || fail "omp_fib links no libgomp.so.1"
mkdir -p "$tmp/wrong/lib/asteal"
ln -s "$(cd "$build/bench" && pwd)" "$tmp/wrong/bench"
ln -s "$gomp" "$tmp/wrong/lib/asteal/libgomp.so.1"
expect_rc 1 env LD_LIBRARY_PATH="$tmp/wrong/lib/asteal" sh bench/omp.sh "$tmp/wrong" --quick
grep -q 'bind to .*/lib/asteal/libgomp.so.1, not a libgomp.so.1 outside' "$tmp/err" ||
	fail "no binding refusal: $(cat "$tmp/err")"

# 4. Arguments.
expect_rc 2 sh bench/omp.sh
expect_rc 2 sh bench/omp.sh "$build" --rounds 0
expect_rc 2 sh bench/omp.sh "$build" --bogus
expect_rc 2 "$build/bench/omp_overhead" --only nothing
expect_rc 2 "$build/bench/asteal-spawncost" --reps 0
echo ok
