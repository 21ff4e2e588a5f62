#!/bin/sh
# omp.test.sh BUILD - the conformance suite of the libgomp-compatible layer
# (tests/omp/README.md lists the programs).  Every program of tests/omp is
# compiled (gcc -fopenmp for *.c, g++ for *.cpp, gfortran for *.f90) into
# BUILD/tests/omp, those newer than their source and headers kept, and
# run at OMP_NUM_THREADS=1, 2 and 4, and at 4 with the layer's processors
# flapping (ASTEAL_PROFILE), under two runtimes:
#
#   system  as built: the system's libgomp.so.1
#   layer   BUILD/lib/asteal/libgomp.so.1, first in LD_LIBRARY_PATH (with
#           no daemon: ASTEAL_SOCKET=none unless the caller names one)
#
# Each program checks itself: exit 0, or one "FAIL <test>: ..." line on
# stderr and exit 1.  One line per program gives the result per runtime
# and thread count; a program that fails on the system's libgomp is a
# broken test and is named as such.  The cancellation programs (cancel_*)
# run with OMP_CANCELLATION=true, and once more without it; nested once
# more with OMP_MAX_ACTIVE_LEVELS=3; error_fatal must end with status 1
# and its message.  Then env checks the OMP_* environment (the table
# below, with libgomp's behaviour for bad values), including the stack
# size, OMP_DISPLAY_ENV and the bad values' messages.  Before the layer's
# runs, tests/omp/loaded.c shows that a program really runs on the layer
# there (dladdr of omp_get_max_threads and GOMP_parallel) and on the
# system's libgomp in the system runs, so that a wrong library path cannot
# pass silently.  Each run has a deadline (OMP_TEST_TIMEOUT, 30 s).
#
#   OMP_TEST_RUNTIMES="system layer"   the runtimes to run (either alone)
#   OMP_TEST_ONLY=NAME                 one program (env: the environment)
#   OMP_TEST_COMPILE_ONLY=1            compile, run nothing, exit 0 (make
#                                      tests compiles them so, ahead of the
#                                      run; what does not compile, or a
#                                      missing compiler, the run reports)
#
# A missing layer fails in one line (the layer is part of the build).  In
# the ASan build the programs are built with ASan and UBSan and run on the
# layer alone (an ASan layer loads only into ASan programs; the system's
# libgomp is checked in the normal build); the TSan build skips the suite
# (TSan sees neither the system libgomp's synchronisation nor OpenMP's
# flush, a fence: its reports would be false).
set -u

build=${1:?usage: sh tests/omp.test.sh BUILD}
san=${ASTEAL_TEST_SAN:-}
if [ "$san" = tsan ]; then
	echo "skip: OpenMP conformance: not in the TSan build (TSan cannot see OpenMP's flush or the system libgomp's synchronisation; checked in the normal and ASan builds)"
	exit 0
fi
. scripts/lib.sh
test_tmp omp

runtimes=${OMP_TEST_RUNTIMES:-system layer}
[ -n "$san" ] && [ -z "${OMP_TEST_RUNTIMES:-}" ] && runtimes=layer
only=${OMP_TEST_ONLY:-}
compile_only=${OMP_TEST_COMPILE_ONLY:-}
deadline=${OMP_TEST_TIMEOUT:-30}
for rt in $runtimes; do
	case $rt in
	system | layer) ;;
	*) echo "omp.test.sh: OMP_TEST_RUNTIMES: unknown runtime '$rt' (system, layer)" >&2; exit 2 ;;
	esac
done
# Nothing of the caller's OpenMP environment reaches the programs.
for v in $(env | sed -n 's/^\(OMP_[A-Za-z0-9_]*\)=.*/\1/p; s/^\(GOMP_[A-Za-z0-9_]*\)=.*/\1/p; s/^\(EXPECT_[A-Za-z0-9_]*\)=.*/\1/p'); do
	unset "$v"
done

src=tests/omp
out=$build/tests/omp
if [ -n "$only" ] && [ "$only" != env ] && [ -z "$(find "$src" -name "$only.*" ! -name '*.h' ! -name '*.md')" ]; then
	echo "omp.test.sh: OMP_TEST_ONLY=$only: no such program in $src" >&2
	exit 2
fi
mkdir -p "$out" || fail "cannot make $out"
ncpu=$(nproc)
# The first CPU this process may run on (for OMP_PLACES={N}).
cpu0=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*\([0-9]*\).*/\1/p' /proc/self/status)

case " $runtimes " in
*" layer "*)
	[ -e "$build/lib/asteal/libgomp.so.1" ] ||
		fail "no layer: $build/lib/asteal/libgomp.so.1 does not exist (make builds it; OMP_TEST_RUNTIMES=system runs the suite on the system's libgomp alone)"
	layer_dir=$(cd "$build/lib/asteal" && pwd)
	layer_real=$(readlink -f "$layer_dir/libgomp.so.1")
	;;
*) layer_dir="" layer_real="" ;;
esac

# ---- compile ----
SANFLAGS=""
[ "$san" = asan ] && SANFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
CFLAGS="-fopenmp -O2 -std=gnu11 -Wall -Wextra -Werror $SANFLAGS"
CXXFLAGS="-fopenmp -O2 -std=gnu++17 -Wall -Wextra -Werror $SANFLAGS"
FFLAGS="-fopenmp -O2 -Wall -Wextra -Werror $SANFLAGS"
for tool in gcc g++ gfortran nm timeout; do
	if ! command -v "$tool" >/dev/null; then
		[ -n "$compile_only" ] && exit 0
		fail "$tool is missing (scripts/deps.sh check installs what the tests need)"
	fi
done

# The programs: every source but the headers, as NAME (file name less
# extension); with OMP_TEST_ONLY, that one and the probe.
sources=$(cd "$src" && ls ./*.c ./*.cpp ./*.f90 2>/dev/null | sed 's|^\./||')
[ -n "$sources" ] || fail "no programs in $src"
if [ -n "$only" ]; then
	sources=$(printf '%s\n' $sources | grep -E "^($only|loaded)\.")
fi

# compile FILE: build it into $out unless the binary is newer than the
# source and every header; the compiler's output in $tmp/cc.NAME.
compile() {
	f=$1
	name=${f%.*}
	bin="$out/$name"
	if [ -x "$bin" ] && [ -z "$(find "$src/$f" "$src"/*.h -newer "$bin")" ]; then
		return 0
	fi
	# shellcheck disable=SC2086  # the flags are split on purpose
	case $f in
	*.c) gcc $CFLAGS -o "$bin" "$src/$f" ;;
	*.cpp) g++ $CXXFLAGS -o "$bin" "$src/$f" ;;
	*.f90) gfortran $FFLAGS -J "$tmp" -o "$bin" "$src/$f" ;;
	esac >"$tmp/cc.$name" 2>&1 || { rm -f "$bin"; echo failed >>"$tmp/cc.$name"; return 1; }
}

# Compile nproc at a time.
running=0
for f in $sources; do
	compile "$f" &
	running=$((running + 1))
	if [ "$running" -ge "$ncpu" ]; then
		wait
		running=0
	fi
done
wait
[ -n "$compile_only" ] && exit 0
broken=""
for f in $sources; do
	name=${f%.*}
	if [ ! -x "$out/$name" ]; then
		printf 'BROKEN %-18s (broken test: it does not compile)\n' "$name"
		sed 's/^/        | /' "$tmp/cc.$name" | head -20
		broken="$broken $name"
	fi
done
# What a program must reference to test what it is for.
needs_symbol() {
	case $1 in
	atomic_lock) echo GOMP_atomic_start ;;
	cxx_task_copy) echo _omp_cpyfn ;;
	esac
}
for f in $sources; do
	name=${f%.*}
	want=$(needs_symbol "$name")
	if [ -z "$want" ] || [ ! -x "$out/$name" ]; then
		continue
	fi
	nm "$out/$name" | grep -q "$want" || {
		printf 'BROKEN %-18s (broken test: the binary does not reference %s: gcc no longer emits it here)\n' \
			"$name" "$want"
		broken="$broken $name"
	}
done

# ---- run ----
# The environment of each run of program $1: lines "LABEL ASSIGNMENTS...".
variants() {
	# The ASan build, slower, runs teams of 4 only, still and flapping
	# (the normal build has 1, 2 and 4 on both runtimes).
	if [ -n "$san" ]; then counts="4"; else counts="1 2 4"; fi
	for n in $counts; do
		case $1 in
		cancel_*) echo "$n OMP_NUM_THREADS=$n OMP_CANCELLATION=true EXPECT_CANCELLATION=1" ;;
		nested) echo "$n OMP_NUM_THREADS=$n EXPECT_MAX_ACTIVE_LEVELS=1" ;;
		*) echo "$n OMP_NUM_THREADS=$n" ;;
		esac
	done
	case $1 in
	cancel_*) echo "2/off OMP_NUM_THREADS=2 EXPECT_CANCELLATION=0" ;;
	nested) echo "4/mal=3 OMP_NUM_THREADS=4 OMP_MAX_ACTIVE_LEVELS=3 EXPECT_MAX_ACTIVE_LEVELS=3" ;;
	esac
	# The layer's processors flapping under a team of 4 (2, 1, 0 and
	# back, a quantum of 1 ms; the system's libgomp ignores it): every
	# slot hand-off, revocation and lazy slot of serial code on the way.
	case $1 in
	cancel_*) extra=" OMP_CANCELLATION=true EXPECT_CANCELLATION=1" ;;
	nested) extra=" EXPECT_MAX_ACTIVE_LEVELS=1" ;;
	*) extra= ;;
	esac
	echo "4/flap OMP_NUM_THREADS=4 ASTEAL_PROFILE=$tmp/flap ASTEAL_QUANTUM_MS=1$extra"
}
printf '2\n1\n0\n2\n1\n2\n0\n1\n' >"$tmp/flap"

# run RUNTIME BIN ASSIGNMENTS...: one run, stdout in $tmp/out, stderr in
# $tmp/err; the exit status ($? of timeout: 124 or more when it hung).
run() {
	rt=$1
	bin=$2
	shift 2
	if [ "$rt" = layer ]; then
		set -- LD_LIBRARY_PATH="$layer_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
			ASTEAL_SOCKET="${ASTEAL_SOCKET:-none}" "$@"
	elif [ "$san" = asan ]; then
		# The system's libgomp leaks a task now and then when a taskgroup
		# is cancelled (cancel_taskgroup at 4 threads): not ours to report.
		set -- ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" "$@"
	fi
	timeout -k 5 "$deadline" env "$@" "$bin" >"$tmp/out" 2>"$tmp/err" </dev/null
}

# The exit status and stderr text program $1 must give (error_fatal's).
expect_rc() { case $1 in error_fatal) echo 1 ;; *) echo 0 ;; esac; }
expect_err() { case $1 in error_fatal) echo "error_fatal: expected fatal error" ;; esac; }

# Check that a program runs on the runtime it means: loaded.c's report.
check_loaded() {
	rt=$1
	run "$rt" "$out/loaded" >/dev/null
	rc=$?
	api=$(sed -n 's/^omp_get_max_threads: //p' "$tmp/out")
	gomp=$(sed -n 's/^GOMP_parallel: //p' "$tmp/out")
	if [ "$rc" -ne 0 ] || [ -z "$api" ] || [ -z "$gomp" ]; then
		fail "$rt: the probe tests/omp/loaded.c failed (exit $rc): $(cat "$tmp/out" "$tmp/err")"
	fi
	api=$(readlink -f "$api")
	gomp=$(readlink -f "$gomp")
	if [ "$rt" = layer ]; then
		if [ "$api" != "$layer_real" ] || [ "$gomp" != "$layer_real" ]; then
			fail "layer: a program run with LD_LIBRARY_PATH=$layer_dir takes omp_get_max_threads from $api and GOMP_parallel from $gomp, not the layer $layer_real"
		fi
	else
		if [ -n "$layer_real" ] && { [ "$api" = "$layer_real" ] || [ "$gomp" = "$layer_real" ]; }; then
			fail "system: a program run without the layer's path runs on $api, which is the layer's file $layer_real (is the layer the system's libgomp, or on the caller's library path?)"
		fi
		case $api in
		*libgomp.so*) ;;
		*) fail "system: omp_get_max_threads comes from $api, not a libgomp" ;;
		esac
	fi
	echo "$rt: programs run on $api"
}
case " $broken " in *" loaded "*) fail "the probe tests/omp/loaded.c does not compile" ;; esac
for rt in $runtimes; do
	check_loaded "$rt"
done

failed=""
# run_program NAME: every variant under every runtime; one line.
run_program() {
	name=$1
	bin="$out/$name"
	line=""
	bad_sys=0
	bad_layer=0
	notes=""
	want_rc=$(expect_rc "$name")
	want_err=$(expect_err "$name")
	for rt in $runtimes; do
		part=""
		allok=1
		labels=""
		while read -r label assignments; do
			# shellcheck disable=SC2086  # the assignments are split on purpose
			run "$rt" "$bin" $assignments
			rc=$?
			what=ok
			if [ "$rc" -eq 124 ]; then
				what="timeout(${deadline}s)"
			elif [ "$rc" -gt 128 ]; then
				what="signal $((rc - 128))"
			elif [ "$rc" -ne "$want_rc" ]; then
				what="exit $rc"
			elif [ -n "$want_err" ] && ! grep -qF "$want_err" "$tmp/err"; then
				what="no message"
			elif [ "$want_rc" -ne 0 ] && [ -s "$tmp/out" ]; then
				what="went on"
			fi
			labels="$labels $label"
			if [ "$what" != ok ]; then
				allok=0
				part="$part $label:$what"
				notes="$notes
        | $rt $label: $(head -c 400 "$tmp/err" | grep -v '^$' | head -3 | tr '\n' ' ')"
				[ "$rt" = system ] && bad_sys=1
				[ "$rt" = layer ] && bad_layer=1
			else
				part="$part $label:ok"
			fi
		done <<EOF
$(variants "$name")
EOF
		if [ "$allok" -eq 1 ]; then
			line="$line  $rt ok ($(echo "$labels" | sed 's/^ //; s/ /,/g'))"
		else
			line="$line  $rt$part"
		fi
	done
	if [ "$bad_sys" -eq 1 ]; then
		printf 'BROKEN %-18s%s   (broken test: fails on the system libgomp)%s\n' "$name" "$line" "$notes"
		failed="$failed $name(broken test)"
	elif [ "$bad_layer" -eq 1 ]; then
		printf 'FAIL   %-18s%s%s\n' "$name" "$line" "$notes"
		failed="$failed $name"
	else
		printf 'ok     %-18s%s\n' "$name" "$line"
	fi
}

for f in $sources; do
	name=${f%.*}
	case $name in loaded | env) continue ;; esac
	[ -z "$only" ] || [ "$only" = "$name" ] || continue
	case " $broken " in *" $name "*) failed="$failed $name(broken test)"; continue ;; esac
	run_program "$name"
done

# ---- the environment ----
# What the system's libgomp (GCC 12.2, Debian 12) does with each variable,
# found by running it; the layer must do the same.  A bad value never
# stops the program: libgomp prints one line on stderr (after an empty
# line) and keeps the default, exit status 0:
#   OMP_NUM_THREADS=0, -1, abc, "", 3, (trailing comma), 4,0 (a 0 in a
#     list), 2x, 1e3, 0x10: "libgomp: Invalid value for environment
#     variable OMP_NUM_THREADS", nthreads-var stays the number of CPUs the
#     process may run on.  " 3 " and "+2" are taken (3, 2).
#   OMP_NUM_THREADS=100000: valid, no message, omp_get_max_threads() is
#     100000; a parallel region then really asks for 100000 threads (here
#     it overflows the initial thread's stack: libgomp allocas per-thread
#     start data, SIGSEGV), so env.c opens no region for it.  Values past
#     INT_MAX wrap (99999999999 gives 1215752191): not checked.
#   OMP_STACKSIZE=abc, -1, 64X, 1e6, 999999999999G: "libgomp: Invalid value
#     for environment variable OMP_STACKSIZE"; OMP_STACKSIZE=0, 1, 1B, "4 "
#     (a number without unit is KiB): "libgomp: Stack size less than
#     minimum of 16k"; either way the threads keep the default stack.
#   OMP_DYNAMIC=maybe (or 1), OMP_PROC_BIND=bogus, OMP_WAIT_POLICY=bogus,
#     OMP_CANCELLATION=maybe (or 1), OMP_PLACES=bogus, OMP_NESTED=bogus,
#     OMP_DISPLAY_ENV=bogus, OMP_MAX_ACTIVE_LEVELS=-1 or x,
#     OMP_THREAD_LIMIT=0 or x, OMP_MAX_TASK_PRIORITY=-1: "libgomp: Invalid
#     value for environment variable NAME", the default kept.
#   OMP_SCHEDULE=bogus: "libgomp: Unknown value for environment variable
#     OMP_SCHEDULE"; OMP_SCHEDULE=dynamic,x: "libgomp: Invalid value for
#     chunk size in environment variable OMP_SCHEDULE"; both keep
#     dynamic,1.  OMP_SCHEDULE=dynamic,0 silently gives chunk 1.
# Valid values, as libgomp reads them: OMP_SCHEDULE=static[,N] reads back
# from omp_get_schedule as static with the monotonic flag
# (omp_sched_static | omp_sched_monotonic, 0x80000001), while
# nonmonotonic:static and omp_set_schedule(omp_sched_static) give plain
# static; nonmonotonic:dynamic,3 reads back as dynamic,3 (no flag). A list
# in OMP_NUM_THREADS or OMP_PROC_BIND, or OMP_NESTED=true, makes
# max-active-levels 255 (the levels supported) instead of 1;
# OMP_MAX_ACTIVE_LEVELS=300 is clamped to 255; OMP_THREAD_LIMIT=2 caps a
# team of 4 at 2; OMP_PROC_BIND=true or a list, or OMP_PLACES, make the
# places (threads: one per CPU); OMP_DEFAULT_DEVICE=3 reads back 3 with no
# device.  The defaults: max threads = CPUs, dynamic false, dynamic,1,
# max-active-levels 1, thread limit 2147483647, proc bind false, 0 places,
# cancellation false, max task priority 0, default device 0.
# OMP_DISPLAY_ENV=true (or verbose) prints the block "OPENMP DISPLAY
# ENVIRONMENT BEGIN ... _OPENMP = '201511' ... END" on stderr.
#
# The cases: LABEL|ENVIRONMENT|EXPECTATIONS|STDERR, STDERR being "-" (it
# must be empty) or strings separated by ";" it must all contain (without
# regard to case).  Every case must exit 0.
defaults="EXPECT_MAX_THREADS=$ncpu EXPECT_TEAM=$ncpu EXPECT_DYNAMIC=0 EXPECT_SCHEDULE=dynamic,1 EXPECT_MAX_ACTIVE_LEVELS=1 EXPECT_THREAD_LIMIT=2147483647 EXPECT_PROC_BIND=0 EXPECT_NUM_PLACES=0 EXPECT_CANCELLATION=0 EXPECT_MAX_TASK_PRIORITY=0 EXPECT_DEFAULT_DEVICE=0"
env_cases() {
	cat <<EOF
defaults||$defaults EXPECT_NESTED_TEAM=1|-
OMP_NUM_THREADS=3|OMP_NUM_THREADS=3|EXPECT_MAX_THREADS=3 EXPECT_TEAM=3 EXPECT_NESTED_MAX_THREADS=3 EXPECT_NESTED_TEAM=1 EXPECT_MAX_ACTIVE_LEVELS=1|-
OMP_NUM_THREADS=4,2|OMP_NUM_THREADS=4,2|EXPECT_MAX_THREADS=4 EXPECT_TEAM=4 EXPECT_NESTED_MAX_THREADS=2 EXPECT_NESTED_TEAM=2 EXPECT_MAX_ACTIVE_LEVELS=255|-
OMP_NUM_THREADS=3,2 +MAL=1|OMP_NUM_THREADS=3,2 OMP_MAX_ACTIVE_LEVELS=1|EXPECT_TEAM=3 EXPECT_NESTED_TEAM=1 EXPECT_MAX_ACTIVE_LEVELS=1|-
OMP_DYNAMIC=true|OMP_DYNAMIC=true|EXPECT_DYNAMIC=1|-
OMP_DYNAMIC=false|OMP_DYNAMIC=false|EXPECT_DYNAMIC=0|-
OMP_SCHEDULE=dynamic,4|OMP_SCHEDULE=dynamic,4|EXPECT_SCHEDULE=dynamic,4|-
OMP_SCHEDULE=guided|OMP_SCHEDULE=guided|EXPECT_SCHEDULE=guided,1|-
OMP_SCHEDULE=static,2|OMP_SCHEDULE=static,2 OMP_NUM_THREADS=3|EXPECT_SCHEDULE=monotonic:static,2|-
OMP_SCHEDULE=static|OMP_SCHEDULE=static|EXPECT_SCHEDULE=monotonic:static,0|-
OMP_SCHEDULE=nonmonotonic:dynamic,3|OMP_SCHEDULE=nonmonotonic:dynamic,3|EXPECT_SCHEDULE=dynamic,3|-
OMP_SCHEDULE=monotonic:guided,5|OMP_SCHEDULE=monotonic:guided,5|EXPECT_SCHEDULE=monotonic:guided,5|-
OMP_SCHEDULE=auto|OMP_SCHEDULE=auto|EXPECT_SCHEDULE=auto,1|-
OMP_MAX_ACTIVE_LEVELS=3|OMP_MAX_ACTIVE_LEVELS=3 OMP_NUM_THREADS=2|EXPECT_MAX_ACTIVE_LEVELS=3 EXPECT_NESTED_TEAM=2|-
OMP_MAX_ACTIVE_LEVELS=300|OMP_MAX_ACTIVE_LEVELS=300|EXPECT_MAX_ACTIVE_LEVELS=255|-
OMP_NESTED=true|OMP_NESTED=true OMP_NUM_THREADS=2|EXPECT_MAX_ACTIVE_LEVELS=255 EXPECT_NESTED_TEAM=2|-
OMP_THREAD_LIMIT=2|OMP_THREAD_LIMIT=2 OMP_NUM_THREADS=4|EXPECT_THREAD_LIMIT=2 EXPECT_MAX_THREADS=4 EXPECT_TEAM=2|-
OMP_STACKSIZE=64M|OMP_STACKSIZE=64M OMP_NUM_THREADS=4|EXPECT_STACK_BYTES=33554432 EXPECT_TEAM=4|-
OMP_STACKSIZE=65536K|OMP_STACKSIZE=65536K OMP_NUM_THREADS=2|EXPECT_STACK_BYTES=33554432 EXPECT_TEAM=2|-
OMP_WAIT_POLICY=active|OMP_WAIT_POLICY=active OMP_NUM_THREADS=4|EXPECT_TEAM=4|-
OMP_WAIT_POLICY=passive|OMP_WAIT_POLICY=passive OMP_NUM_THREADS=4|EXPECT_TEAM=4|-
OMP_PROC_BIND=true|OMP_PROC_BIND=true|EXPECT_PROC_BIND=1 EXPECT_TEAM=$ncpu|-
OMP_PROC_BIND=close|OMP_PROC_BIND=close|EXPECT_PROC_BIND=3|-
OMP_PROC_BIND=spread|OMP_PROC_BIND=spread|EXPECT_PROC_BIND=4|-
OMP_PROC_BIND=master|OMP_PROC_BIND=master|EXPECT_PROC_BIND=2|-
OMP_PROC_BIND=false|OMP_PROC_BIND=false|EXPECT_PROC_BIND=0 EXPECT_NUM_PLACES=0|-
OMP_PROC_BIND=spread,close|OMP_PROC_BIND=spread,close OMP_NUM_THREADS=2,2|EXPECT_PROC_BIND=4 EXPECT_MAX_ACTIVE_LEVELS=255 EXPECT_NESTED_TEAM=2|-
OMP_PLACES=threads|OMP_PLACES=threads|EXPECT_NUM_PLACES=$ncpu EXPECT_PROC_BIND=1 EXPECT_TEAM=$ncpu|-
OMP_PLACES={$cpu0}|OMP_PLACES={$cpu0} OMP_NUM_THREADS=2|EXPECT_NUM_PLACES=1 EXPECT_TEAM=2|-
OMP_CANCELLATION=true|OMP_CANCELLATION=true|EXPECT_CANCELLATION=1|-
OMP_MAX_TASK_PRIORITY=5|OMP_MAX_TASK_PRIORITY=5|EXPECT_MAX_TASK_PRIORITY=5|-
OMP_DEFAULT_DEVICE=3|OMP_DEFAULT_DEVICE=3|EXPECT_DEFAULT_DEVICE=3|-
OMP_DISPLAY_ENV=true|OMP_DISPLAY_ENV=true OMP_NUM_THREADS=3|EXPECT_MAX_THREADS=3|OPENMP DISPLAY ENVIRONMENT BEGIN;_OPENMP;OMP_NUM_THREADS;OPENMP DISPLAY ENVIRONMENT END
OMP_DISPLAY_ENV=verbose|OMP_DISPLAY_ENV=verbose|EXPECT_MAX_THREADS=$ncpu|OPENMP DISPLAY ENVIRONMENT BEGIN;_OPENMP;OPENMP DISPLAY ENVIRONMENT END
bad OMP_NUM_THREADS=0|OMP_NUM_THREADS=0|$defaults|OMP_NUM_THREADS
bad OMP_NUM_THREADS=-1|OMP_NUM_THREADS=-1|$defaults|OMP_NUM_THREADS
bad OMP_NUM_THREADS=abc|OMP_NUM_THREADS=abc|$defaults|OMP_NUM_THREADS
bad OMP_NUM_THREADS=(empty)|OMP_NUM_THREADS=|$defaults|OMP_NUM_THREADS
bad OMP_NUM_THREADS=4,0|OMP_NUM_THREADS=4,0|$defaults|OMP_NUM_THREADS
big OMP_NUM_THREADS=100000|OMP_NUM_THREADS=100000|EXPECT_MAX_THREADS=100000|-
bad OMP_STACKSIZE=abc|OMP_STACKSIZE=abc OMP_NUM_THREADS=2|EXPECT_TEAM=2|OMP_STACKSIZE
bad OMP_STACKSIZE=-1|OMP_STACKSIZE=-1 OMP_NUM_THREADS=2|EXPECT_TEAM=2|OMP_STACKSIZE
bad OMP_STACKSIZE=64X|OMP_STACKSIZE=64X OMP_NUM_THREADS=2|EXPECT_TEAM=2|OMP_STACKSIZE
bad OMP_STACKSIZE=1|OMP_STACKSIZE=1 OMP_NUM_THREADS=2|EXPECT_TEAM=2|stack
bad OMP_DYNAMIC=maybe|OMP_DYNAMIC=maybe|EXPECT_DYNAMIC=0|OMP_DYNAMIC
bad OMP_SCHEDULE=bogus|OMP_SCHEDULE=bogus|EXPECT_SCHEDULE=dynamic,1|OMP_SCHEDULE
bad OMP_SCHEDULE=dynamic,x|OMP_SCHEDULE=dynamic,x|EXPECT_SCHEDULE=dynamic,1|OMP_SCHEDULE
bad OMP_PROC_BIND=bogus|OMP_PROC_BIND=bogus|EXPECT_PROC_BIND=0|OMP_PROC_BIND
bad OMP_PLACES=bogus|OMP_PLACES=bogus|EXPECT_NUM_PLACES=0|OMP_PLACES
bad OMP_MAX_ACTIVE_LEVELS=-1|OMP_MAX_ACTIVE_LEVELS=-1|EXPECT_MAX_ACTIVE_LEVELS=1|OMP_MAX_ACTIVE_LEVELS
bad OMP_THREAD_LIMIT=0|OMP_THREAD_LIMIT=0|EXPECT_THREAD_LIMIT=2147483647|OMP_THREAD_LIMIT
bad OMP_WAIT_POLICY=bogus|OMP_WAIT_POLICY=bogus|EXPECT_TEAM=$ncpu|OMP_WAIT_POLICY
bad OMP_CANCELLATION=maybe|OMP_CANCELLATION=maybe|EXPECT_CANCELLATION=0|OMP_CANCELLATION
bad OMP_MAX_TASK_PRIORITY=-1|OMP_MAX_TASK_PRIORITY=-1|EXPECT_MAX_TASK_PRIORITY=0|OMP_MAX_TASK_PRIORITY
EOF
}

# run_env_case RUNTIME ENVIRONMENT EXPECTATIONS STDERR: "ok" or what went wrong.
run_env_case() {
	# shellcheck disable=SC2086  # the assignments are split on purpose
	run "$1" "$out/env" $2 $3
	rc=$?
	if [ "$rc" -ne 0 ]; then
		echo "exit $rc: $(grep -v '^$' "$tmp/err" | head -2 | tr '\n' ' ')"
		return
	fi
	if [ "$4" = - ]; then
		[ -s "$tmp/err" ] && { echo "said on stderr: $(grep -v '^$' "$tmp/err" | head -2 | tr '\n' ' ')"; return; }
	else
		rest=$4
		while [ -n "$rest" ]; do
			want=${rest%%;*}
			[ "$want" = "$rest" ] && rest="" || rest=${rest#*;}
			grep -qiF -- "$want" "$tmp/err" || { echo "stderr lacks '$want'"; return; }
		done
	fi
	echo ok
}

if [ -z "$only" ] || [ "$only" = env ]; then
	case " $broken " in
	*" env "*) failed="$failed env(broken test)" ;;
	*)
		set -f
		while IFS='|' read -r label envs expects errs; do
			line=""
			bad_sys=0
			bad_layer=0
			for rt in $runtimes; do
				res=$(run_env_case "$rt" "$envs" "$expects" "$errs")
				line="$line  $rt $res"
				[ "$res" = ok ] && continue
				[ "$rt" = system ] && bad_sys=1 || bad_layer=1
			done
			if [ "$bad_sys" -eq 1 ]; then
				printf 'BROKEN env %-34s%s   (broken test: fails on the system libgomp)\n' "$label" "$line"
				failed="$failed env[$label](broken test)"
			elif [ "$bad_layer" -eq 1 ]; then
				printf 'FAIL   env %-34s%s\n' "$label" "$line"
				failed="$failed env[$label]"
			else
				printf 'ok     env %-34s%s\n' "$label" "$line"
			fi
		done <<EOF
$(env_cases)
EOF
		set +f
		;;
	esac
fi

if [ -n "$failed" ]; then
	echo "failed:$failed"
	exit 1
fi
echo "omp: all ok ($runtimes)"
