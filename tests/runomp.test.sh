#!/bin/sh
# runomp.test.sh BUILD - how `asteal run` and `submit` run a program, from
# what it is linked with (cli/program.c), against a real daemon on a
# private socket and database:
#  1. a libgomp program (bench/omp_fib 30), no flag: on the OpenMP layer,
#     an adaptive job: its runtime claims the id run got (the daemon's
#     "connected" line), the history has it with workers and allotment
#     records, its ASTEAL_STATS summary is libasteal's; a longer one
#     (omp_phases, submitted) has BUILD/lib/asteal/libgomp.so.1 in its
#     /proc/PID/maps while `asteal jobs` lists it adaptive (not rigid,
#     workers, never unmanaged), and --cpus 1 caps it; an OpenACC
#     program, which needs versions of libgomp the layer lacks, runs
#     rigid with a line that says so;
#  2. --omp system: the system's libgomp in its maps, a rigid job (of
#     --cpus 2 without a line; of 1 CPU with the line that says so);
#  3. linked with neither (sleep, a script, sh): the one line, a rigid job
#     of 1 CPU (desire 1, OMP_NUM_THREADS=1, KMP_AFFINITY=disabled), never
#     `unmanaged`; --cpus 1 asks the same without the line;
#  4. LLVM's libomp and a -static OpenMP program, built here where the
#     tools are installed: the line that says they run rigid, and why,
#     and they run (libomp confined as it starts: KMP_AFFINITY);
#  5. the layer missing (asteal copied where no ../lib/asteal is): one
#     line, then a rigid job on the system's libgomp (skipped where a
#     layer is installed in the folder asteal has compiled in);
#  6. without a daemon, the layer first in LD_LIBRARY_PATH runs omp_fib
#     standalone, as libasteal jobs run;
#  7. a bad --omp value is a usage error (2), for run and submit.
# In the sanitizer builds the layer is instrumented, as are that build's
# OpenMP programs, which load it (a sanitizer's runtime must come first:
# an uninstrumented program could not); where the build has no omp_fib
# (make tests builds it in the normal build only), omp_phases stands in.
# Every wait is on a condition with a bound.
set -u

build=${1:?usage: sh tests/runomp.test.sh BUILD}
san=${ASTEAL_TEST_SAN:-}
if [ "$san" = tsan ]; then
	# Its programs would run with TSan's reports off (the system's
	# libgomp is not built for TSan, see below): only slower.
	echo "skip: asteal run of OpenMP programs: checked in the normal and ASan builds (the layer under TSan: ompkernels.test.sh)"
	exit 0
fi
. scripts/lib.sh
test_tmp runomp
A="$build/bin/asteal"
layer="$build/lib/asteal/libgomp.so.1"
omphases="$build/bench/omp_phases"
# A short OpenMP run: omp_fib 30, or where a sanitizer build has no
# omp_fib, omp_phases (60 ms of serial and parallel phases).
ompfib="$build/bench/omp_fib"
short_name=omp_fib
set -- 30
if [ ! -x "$ompfib" ] && [ -n "$san" ]; then
	ompfib=$omphases
	short_name=omp_phases
	set -- 20 --w1 1000 --w2 2000 --h 4
fi
for f in "$A" "$build/bin/asteald" "$ompfib" "$omphases" "$layer"; do
	[ -e "$f" ] || fail "$f is not built"
done
abs_layer_dir=$(cd "$(dirname "$layer")" && pwd -P)
# The system's libgomp is not built for TSan: its team's own
# synchronisation would be reported as races in the program (as in
# rigid.test.sh).
export TSAN_OPTIONS="${TSAN_OPTIONS:-} report_bugs=0"

json() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
listening() { grep -q 'listening on' "$tmp/daemon.log" 2>/dev/null; }
"$build/bin/asteald" --foreground --socket "$tmp/a.sock" --db "$tmp/a.db" --quantum-ms 10 \
	>"$tmp/daemon.log" 2>&1 &
daemon_pid=$!
wait_for 20 listening || fail "the daemon did not start"
export ASTEAL_SOCKET="$tmp/a.sock"
unset ASTEAL_STATS ASTEAL_WORKERS OMP_NUM_THREADS LD_LIBRARY_PATH

# job_field ID EXPR: EXPR of job ID's `asteal --json jobs` entry (j).
job_field() { "$A" --json jobs "$1" 2>/dev/null | python3 -c "
import json,sys
d = json.load(sys.stdin)
j = d[0] if d else None
print($2 if j else 'gone')" 2>/dev/null; }
# hist_field ID EXPR: EXPR of job ID in the history (j: its row, recs:
# its allotment records).
hist_field() { "$A" --json history "$1" | python3 -c "
import json,sys
d = json.load(sys.stdin)
j = [x for x in d['jobs'] if int(x['id']) == $1][0]
recs = [r for r in d['allotments'] if int(r['job_id']) == $1]
print($2)"; }
connected() { grep -q "job $1 '$2' connected" "$tmp/daemon.log"; }
pid_of() { job_field "$1" 'j["pid"]'; }
maps_have() { grep -q "$2" "/proc/$1/maps" 2>/dev/null; }
# A rigid job's line, as supervise.c words it (grep -F).
neither="is linked with neither libasteal nor libgomp: a rigid job of 1 CPU (--cpus N for N)"

# ---- 7. --omp: a usage error for anything but layer and system ----
for cmd in run submit; do
	expect_rc 2 "$A" $cmd --omp bogus -- true
	grep -q -- "--omp: 'bogus' is not layer" "$tmp/err" || fail "$cmd --omp bogus: $(cat "$tmp/err")"
	expect_rc 2 "$A" $cmd --omp
	expect_rc 2 "$A" $cmd --omp= -- true
done
echo "--omp: bogus, missing and empty values are usage errors"

# ---- 1. a libgomp program on the layer, adaptive ----
expect_rc 0 env ASTEAL_STATS=1 "$A" --json run --stats -- "$ompfib" "$@"
grep -q "check=ok" "$tmp/out" || fail "$short_name on the layer: $(cat "$tmp/out" "$tmp/err")"
id=$(grep '^{' "$tmp/out" | json 'd["job_id"]')
# libasteal's summary: only the layer's runtime prints it
grep -q "^asteal: mode=asteal workers=[0-9]* quanta=" "$tmp/err" ||
	fail "$short_name: no libasteal summary (not on the layer?): $(cat "$tmp/err")"
! grep -q "rigid" "$tmp/err" || fail "$short_name on the layer said: $(cat "$tmp/err")"
connected "$id" $short_name || fail "$short_name's runtime did not claim job $id"
[ "$(hist_field "$id" 'int(j["workers"]) >= 1 and len(recs) >= 1 and all(r["desire"] >= 1 for r in recs)')" = True ] ||
	fail "$short_name (job $id) is not adaptive in the history: $("$A" --json history "$id")"
echo "layer: $short_name $* is job $id, adaptive ($(hist_field "$id" 'len(recs)') allotment records, $(hist_field "$id" 'j["workers"]') workers), libasteal's summary"

# A long one, submitted: the layer in its maps while jobs lists it.
lid=$("$A" submit --parsable -o "$tmp/phases.out" -- "$omphases" 100000 --w1 1000 --w2 2000 --h 4) ||
	fail "submit omp_phases"
wait_for 20 connected "$lid" omp_phases || fail "omp_phases (job $lid) never connected"
lpid=$(pid_of "$lid")
wait_for 10 maps_have "$lpid" "$abs_layer_dir/libgomp.so.1" ||
	fail "omp_phases (pid $lpid) did not load the layer: $(grep gomp "/proc/$lpid/maps")"
! grep libgomp "/proc/$lpid/maps" | grep -qv "$abs_layer_dir/libgomp.so.1" ||
	fail "omp_phases also loaded another libgomp: $(grep libgomp "/proc/$lpid/maps")"
[ "$(job_field "$lid" 'not j["rigid"] and not j["unmanaged"] and j["workers"] >= 1')" = True ] ||
	fail "omp_phases is not adaptive in jobs: $("$A" --json jobs "$lid")"
expect_rc 0 "$A" cancel "$lid"
expect_rc 143 "$A" wait "$lid"
echo "layer: omp_phases (job $lid) maps $abs_layer_dir/libgomp.so.1, listed adaptive"

# --cpus 1 on the layer: adaptive, its desire capped at 1.
cid=$("$A" submit --parsable --cpus 1 -o /dev/null -- "$omphases" 100000 --w1 1000 --w2 2000 --h 4) ||
	fail "submit --cpus 1 omp_phases"
wait_for 20 connected "$cid" omp_phases || fail "omp_phases --cpus 1 (job $cid) never connected"
capped() { [ "$(job_field "$cid" 'not j["rigid"] and j["cpus_cap"] == 1 and j["desire"] <= 1')" = True ]; }
wait_for 10 capped || fail "omp_phases --cpus 1: $("$A" --json jobs "$cid")"
expect_rc 0 "$A" cancel "$cid"
expect_rc 143 "$A" wait "$cid"
echo "layer: --cpus 1 caps an OpenMP job's desire at 1 (job $cid)"

# An OpenACC program asks libgomp for versions (OACC_2.0) a layer may not
# define: then one line, and it runs rigid on the system's libgomp, where
# the dynamic linker would have refused to start it on the layer.
printf '%s\n' 'int main(void) { int a[8];' '#pragma acc parallel loop' \
	'for (int i = 0; i < 8; i++) a[i] = i;' 'return a[7] != 7; }' >"$tmp/acc.c"
if ! cc -fopenacc -o "$tmp/acc" "$tmp/acc.c" 2>/dev/null; then
	echo "skip: OpenACC: cc -fopenacc cannot build here"
elif readelf -V "$layer" | grep -q "OACC_2\.0"; then
	echo "skip: OpenACC: the layer defines its versions"
else
	expect_rc 0 "$A" run -- "$tmp/acc"
	grep -qF "asteal: $tmp/acc: asteal's OpenMP layer ($abs_layer_dir) lacks " "$tmp/err" &&
		grep -qE "lacks G?OACC_[0-9.]+, a version of libgomp\.so\.1 the program needs: a rigid job of 1 CPU on the system's libgomp \(--cpus N for N\)$" "$tmp/err" ||
		fail "OpenACC: $(cat "$tmp/err")"
	echo "layer: an OpenACC program (OACC_2.0 and GOACC_2.0.1, which the layer lacks) runs rigid, said"
	# Started by hand on the layer: the loader refuses it in one line
	# naming the version it lacks, and a non-zero exit, not a wrong run.
	expect_rc 1 env LD_LIBRARY_PATH="$abs_layer_dir" "$tmp/acc"
	grep -q "version .G\{0,1\}OACC_[0-9.]*' not found" "$tmp/err" ||
		fail "OpenACC on the layer by hand: $(cat "$tmp/err")"
	echo "layer: the same program started by hand on the layer is refused, naming $(grep -o "G\{0,1\}OACC_[0-9.]*" "$tmp/err" | head -1)"
fi

# ---- 2. --omp system: the system's libgomp, rigid ----
sid=$("$A" submit --parsable --omp system --cpus 2 -o "$tmp/sys.out" -e "$tmp/sys.err" -- \
	"$omphases" 100000 --w1 1000 --w2 2000 --h 4) || fail "submit --omp system"
spid=$(pid_of "$sid")
rigid2() { [ "$(job_field "$sid" 'j["rigid"] and j["desire"] == 2')" = True ]; }
wait_for 10 rigid2 || fail "--omp system --cpus 2: not rigid of 2: $("$A" --json jobs "$sid")"
wait_for 10 maps_have "$spid" "libgomp.so.1" || fail "--omp system: no libgomp in its maps"
! grep -q "lib/asteal/libgomp" "/proc/$spid/maps" || fail "--omp system loaded the layer"
expect_rc 0 "$A" cancel "$sid"
expect_rc 143 "$A" wait "$sid"
! grep -q "rigid" "$tmp/sys.err" || fail "--omp system --cpus 2 said: $(cat "$tmp/sys.err")"
expect_rc 0 "$A" --json run --stats --omp system -- "$ompfib" "$@"
grep -q "check=ok" "$tmp/out" || fail "$short_name --omp system: $(cat "$tmp/out")"
grep -qF "runs on the system's libgomp (--omp system): a rigid job of 1 CPU (--cpus N for N)" "$tmp/err" ||
	fail "--omp system without --cpus: $(cat "$tmp/err")"
oid=$(grep '^{' "$tmp/out" | json 'd["job_id"]')
[ "$(hist_field "$oid" 'int(j["workers"]) == 0 and all(r["desire"] == 1 for r in recs)')" = True ] ||
	fail "$short_name --omp system (job $oid) is not a rigid job of 1: $("$A" --json history "$oid")"
! connected "$oid" $short_name || fail "$short_name on the system's libgomp joined the daemon"
echo "--omp system: the system's libgomp, rigid (2 CPUs with --cpus 2, else 1 with the line)"

# ---- 3. linked with neither: a rigid job of 1 CPU, with one line ----
expect_rc 0 "$A" submit --parsable -o /dev/null -- sleep 60
nid=$(cat "$tmp/out")
[ "$(cat "$tmp/err")" = "asteal: sleep $neither" ] || fail "submit sleep said: $(cat "$tmp/err")"
rigid1() { [ "$(job_field "$nid" 'j["rigid"] and j["desire"] == 1 and not j["unmanaged"]')" = True ]; }
wait_for 10 rigid1 || fail "sleep is not a rigid job of 1: $("$A" --json jobs "$nid")"
expect_rc 0 "$A" --json jobs --state unmanaged
[ "$(json 'len(d)' <"$tmp/out")" = 0 ] || fail "a job is unmanaged: $(cat "$tmp/out")"
expect_rc 0 "$A" cancel "$nid"
expect_rc 143 "$A" wait "$nid"
expect_rc 0 "$A" run -- sh -c 'echo "$OMP_NUM_THREADS $ASTEAL_CPUS $KMP_AFFINITY"'
[ "$(cat "$tmp/out")" = "1 1 disabled" ] || fail "sh, rigid of 1: environment '$(cat "$tmp/out")'"
[ "$(cat "$tmp/err")" = "asteal: sh $neither" ] || fail "run sh said: $(cat "$tmp/err")"
printf '#!/bin/sh\necho "script $OMP_NUM_THREADS"\n' >"$tmp/job.sh"
chmod +x "$tmp/job.sh"
expect_rc 0 "$A" run -- "$tmp/job.sh"
[ "$(cat "$tmp/out")" = "script 1" ] || fail "the script: $(cat "$tmp/out")"
grep -qF "asteal: $tmp/job.sh is a script (#!/bin/sh), which asteal does not look into: a rigid job of 1 CPU (--cpus N for N)" "$tmp/err" ||
	fail "run a script said: $(cat "$tmp/err")"
expect_rc 0 "$A" run --cpus 1 -- true
[ ! -s "$tmp/err" ] || fail "--cpus 1 said: $(cat "$tmp/err")"
expect_rc 0 "$A" run --cpus 2 -- "$tmp/job.sh"
[ "$(cat "$tmp/out")" = "script 2" ] && [ ! -s "$tmp/err" ] || fail "a script with --cpus 2: $(cat "$tmp/out" "$tmp/err")"
# A program that is not found: no line, exec's own error.
expect_rc 127 "$A" run -- "$tmp/no-such-program"
[ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "no-such-program" "$tmp/err" || fail "a missing program: $(cat "$tmp/err")"
echo "neither: a rigid job of 1 CPU with one line (sleep, sh, a script); --cpus N silent"

# ---- 4. LLVM's libomp, OpenMP linked in statically ----
cat >"$tmp/omp.c" <<'EOF'
#include <omp.h>
#include <stdio.h>
int main(void)
{
	int n = 0;
#pragma omp parallel reduction(+:n)
	n++;
	printf("threads=%d\n", n);
	return 0;
}
EOF
if command -v clang >/dev/null && clang -fopenmp=libomp -o "$tmp/llvm" "$tmp/omp.c" 2>/dev/null; then
	expect_rc 0 "$A" run -- "$tmp/llvm"
	grep -qF "asteal: $tmp/llvm is linked with LLVM's libomp: a rigid job of 1 CPU (--cpus N for N); asteal's OpenMP layer replaces libgomp.so.1 only" "$tmp/err" ||
		fail "LLVM's libomp said: $(cat "$tmp/err")"
	[ "$(cat "$tmp/out")" = "threads=1" ] || fail "LLVM's libomp, rigid of 1: $(cat "$tmp/out")"
	expect_rc 0 "$A" run --cpus 2 -- "$tmp/llvm"
	grep -qF "a rigid job of 2 CPUs; asteal's OpenMP layer replaces libgomp.so.1 only" "$tmp/err" ||
		fail "LLVM's libomp --cpus 2 said: $(cat "$tmp/err")"
	echo "LLVM's libomp: rigid, said (with --cpus 2 too)"
else
	echo "skip: LLVM's libomp: clang -fopenmp=libomp cannot build here"
fi
if cc -fopenmp -static -o "$tmp/static" "$tmp/omp.c" 2>/dev/null; then
	expect_rc 0 "$A" run -- "$tmp/static"
	grep -qF "asteal: $tmp/static has OpenMP (libgomp) linked in statically: a rigid job of 1 CPU (--cpus N for N); asteal's OpenMP layer replaces the shared libgomp.so.1 only" "$tmp/err" ||
		fail "static OpenMP said: $(cat "$tmp/err")"
	echo "static OpenMP: rigid, said"
else
	echo "skip: static OpenMP: cc -fopenmp -static cannot build here"
fi

# ---- 5. the layer missing ----
installed=$(sed -n 's/^#define CLI_OMP_DIR "\(.*\)"$/\1/p' "$build/gen/cli/paths.h")
if [ -f "$installed/libgomp.so.1" ]; then
	echo "skip: a missing layer: one is installed in $installed"
else
	mkdir -p "$tmp/alone/bin"
	cp "$A" "$tmp/alone/bin/asteal"
	expect_rc 0 "$tmp/alone/bin/asteal" --json run --stats -- "$ompfib" "$@"
	grep -qF "asteal: $ompfib: asteal's OpenMP layer is not installed (no libgomp.so.1 in $tmp/alone/lib/asteal or $installed): a rigid job of 1 CPU on the system's libgomp (--cpus N for N)" "$tmp/err" ||
		fail "a missing layer said: $(cat "$tmp/err")"
	mid=$(grep '^{' "$tmp/out" | json 'd["job_id"]')
	[ "$(hist_field "$mid" 'int(j["workers"]) == 0 and all(r["desire"] == 1 for r in recs)')" = True ] ||
		fail "with no layer, $short_name (job $mid) is not rigid: $("$A" --json history "$mid")"
	echo "a missing layer: one line, a rigid job of 1 CPU"
fi

# ---- 6. no daemon: the layer runs a program standalone ----
expect_rc 0 env ASTEAL_SOCKET="$tmp/nowhere.sock" ASTEAL_STATS=1 \
	LD_LIBRARY_PATH="$abs_layer_dir" "$ompfib" "$@"
grep -q "check=ok" "$tmp/out" || fail "standalone on the layer: $(cat "$tmp/out" "$tmp/err")"
grep -q "^asteal: mode=asteal workers=" "$tmp/err" || fail "standalone: no libasteal summary: $(cat "$tmp/err")"
echo "no daemon: the layer first in LD_LIBRARY_PATH runs $short_name standalone"

kill "$daemon_pid"
wait "$daemon_pid" || fail "the daemon exited with $? on SIGTERM"
daemon_pid=""
echo ok
