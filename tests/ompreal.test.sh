#!/bin/sh
# ompreal.test.sh BUILD - real OpenMP programs from Debian, unmodified, on
# the libgomp layer ($BUILD/lib/asteal/libgomp.so.1, found first in the
# library path) and on the system's libgomp, at OMP_NUM_THREADS=2 (and
# OMP_WAIT_POLICY=passive, below):
#  1. ImageMagick's convert (libMagickCore links libgomp.so.1): a plasma
#     made with a fixed seed, 28 times appended into a 240x8400 image
#     (made twice on the system's libgomp: the same bytes), then resized
#     and blurred.  ImageMagick sizes its teams by the work: a region gets
#     2 threads only for a chunk of about 8300 lines or more (an 800x600
#     image runs every region on 1), so the image is tall, and one pass
#     each of the resize and of the blur (the one split over the 8400
#     rows) runs on 2 threads, the other on 1 (as an interposer on
#     GOMP_parallel showed while this test was written).  The output
#     (16-bit PPM) has the same bytes on both runtimes; `convert -list
#     resource` says Thread: 2 (its limit is omp_get_max_threads) on both.
#  2. OpenBLAS's OpenMP build: tests/ompreal_dgemm.c, built here into
#     BUILD/tests against openblas-openmp/libopenblas.so.0 by path with an
#     RPATH there (no update-alternatives or library path can swap in
#     another BLAS), one 2000x2000 dgemm (about 0.15 s on 2 threads).  Its
#     arithmetic is exact by construction (see the program), so C has the
#     same bits however the threads split it: the sum, the hash and the
#     bytes of C are equal on both runtimes, and OpenBLAS says it is the
#     OpenMP build using 2 threads.
#  3. GROMACS (gmx mdrun -ntmpi 1 -ntomp 2 -pin off -reprod): 884 SPC/E
#     waters (2652 atoms, OPLS-AA, PME, v-rescale), 300 steps of 2 fs, the
#     input made here with gmx solvate and grompp.  Its energy files are
#     compared by GROMACS's own `gmx check -e A -e2 B` at its default
#     tolerances (relative 0.001, as 2|a-b|/(|a|+|b|), absolute 0.001):
#     every term of every frame; whether the energy file and the final
#     coordinates are also the same bytes is shown (on the system's
#     libgomp they are, run after run).  mdrun says it used 2 OpenMP
#     threads.  (LAMMPS is smaller, but Debian 12 builds it without its
#     OPENMP package: no -sf omp, and only its MPI-IO dumps use OpenMP.)
#  4. the layer's runs again with a private asteald (CPUs 0-1, 10 ms
#     quanta) and ASTEAL_SOCKET in the program's environment, each beside
#     a linked fib (asteal submit) that was allotted before the program
#     started and still runs when it ends: the same results as on the
#     system's libgomp, and the history holds each real program (by its
#     pid) as a job with more than one allotment row (needs the layer:
#     see OMPREAL_LAYER_DIR).
# Each run is checked to have run OpenMP code on the libgomp it means:
# with LD_DEBUG=bindings (lazy binding: the libraries call GOMP_parallel
# through the PLT, so its binding is printed at its first call), the
# program's own library (libMagickCore, openblas-openmp/libopenblas.so.0,
# libgromacs) had GOMP_parallel bound to the system's libgomp.so.1, or to
# the layer's path, and every GOMP_*/omp_* symbol of the process to that
# same file; and the process had at least 2 threads at some point (its
# /proc status, read every 2 ms while it ran).
#
# OMPREAL_LAYER_DIR=DIR takes the layer from DIR instead (absolute or
# relative).  DIR=/usr/lib/x86_64-linux-gnu is a stand-in: the system's
# libgomp under another path, which exercises every check but the
# history's of the real programs (a stand-in never joins asteald), which
# then says in one line that it needs the layer.
#
# Skipped (one "skip:" line, exit 0): in the sanitizer builds (the real
# programs are not instrumented: an ASan layer cannot load into them, ASan's
# runtime must come first in the library list, and TSan would see none of
# their own synchronisation; the layer's code is tested there by its own
# tests), on fewer than 2 CPUs, and when a program or package is missing
# (scripts/deps.sh check installs imagemagick, libopenblas0-openmp,
# libopenblas-openmp-dev and gromacs).  A missing layer fails.
# Every wait is on a condition with a bound; every program run has a
# deadline.
set -u

build=${1:?usage: sh tests/ompreal.test.sh BUILD}
if [ -n "${ASTEAL_TEST_SAN:-}" ]; then
	echo "skip: real OpenMP programs: not in the $ASTEAL_TEST_SAN build (uninstrumented programs cannot load an instrumented layer; checked in the normal build)"
	exit 0
fi
. scripts/lib.sh

ncpu=$(nproc)
[ "$ncpu" -ge 2 ] || { echo "skip: real OpenMP programs: need 2 CPUs, this machine has $ncpu"; exit 0; }

# ---- what the programs need ----
# Debian 12's ImageMagick 6: convert-im6.q16 is the real convert (a
# plain `convert` may be an alternative or a stand-in).
convert=$(command -v convert-im6.q16 2>/dev/null || true)
gmx=$(command -v gmx 2>/dev/null || true)
blasdir=/usr/lib/x86_64-linux-gnu/openblas-openmp
blasinc=/usr/include/x86_64-linux-gnu/openblas-openmp
missing=""
[ -n "$convert" ] || missing="$missing convert-im6.q16 (imagemagick)"
[ -e "$blasdir/libopenblas.so.0" ] || missing="$missing $blasdir/libopenblas.so.0 (libopenblas0-openmp)"
[ -e "$blasinc/cblas.h" ] || missing="$missing $blasinc/cblas.h (libopenblas-openmp-dev)"
[ -n "$gmx" ] || missing="$missing gmx (gromacs)"
[ -e /usr/share/gromacs/top/oplsaa.ff/spce.itp ] || missing="$missing oplsaa.ff/spce.itp (gromacs-data)"
command -v gcc >/dev/null 2>&1 || missing="$missing gcc"
if [ -n "$missing" ]; then
	echo "skip: real OpenMP programs: missing$missing (scripts/deps.sh check installs them)"
	exit 0
fi

layer=${OMPREAL_LAYER_DIR:-$build/lib/asteal}
[ -e "$layer/libgomp.so.1" ] ||
	fail "no layer: $layer/libgomp.so.1 does not exist (make builds it; OMPREAL_LAYER_DIR=DIR takes it from DIR)"
layer=$(cd "$layer" && pwd)
layer_lib="$layer/libgomp.so.1"

test_tmp ompreal
A="$build/bin/asteal"
T0=$(date +%s%N)

# The same OpenMP settings for every run; lazy binding (see above).
# Waits sleep (OMP_WAIT_POLICY=passive), as the layer's do: spinning,
# the system's libgomp made GROMACS beside two busy threads twice as slow
# (a thread spins out its time slice at a barrier while the thread it
# waits for waits for a CPU).  Results do not depend on it.
export OMP_NUM_THREADS=2 OMP_WAIT_POLICY=passive GMX_MAXBACKUP=-1
unset LD_BIND_NOW LD_PRELOAD OMP_DYNAMIC OMP_PROC_BIND OMP_PLACES GOMP_CPU_AFFINITY \
	OMP_THREAD_LIMIT OPENBLAS_NUM_THREADS MAGICK_THREAD_LIMIT GMX_OPENMP_MAX_THREADS

# Each binary's closure holds libgomp.so.1 (ldd; the system's libgomp).
closure() {
	ldd "$1" 2>&1 | grep -q "libgomp\.so\.1 => /" || fail "$1: libgomp.so.1 is not in its closure: $(ldd "$1" 2>&1)"
}
closure "$convert"
closure "$gmx"
ldd "$convert" | grep -q "libMagickCore" || fail "$convert does not link libMagickCore"
ldd "$gmx" | grep -q "libgromacs" || fail "$gmx does not link libgromacs"
sys_lib=$(ldd "$convert" | sed -n 's/.*libgomp\.so\.1 => \([^ ]*\).*/\1/p')
# A stand-in is the system's libgomp itself (the same file).
standin=$(python3 -c 'import os, sys; print(int(os.path.samefile(sys.argv[1], sys.argv[2])))' \
	"$layer_lib" "$sys_lib") || fail "comparing $layer_lib with $sys_lib"

# ---- the dgemm program, built here ----
dg="$build/tests/ompreal_dgemm"
if [ -z "$(find "$dg" -newer tests/ompreal_dgemm.c 2>/dev/null)" ]; then
	mkdir -p "$build/tests"
	gcc -std=c11 -O2 -Wall -Wextra -D_POSIX_C_SOURCE=200809L -I"$blasinc" \
		-o "$dg.tmp" tests/ompreal_dgemm.c "$blasdir/libopenblas.so.0" \
		-Wl,--disable-new-dtags,-rpath,"$blasdir" >"$tmp/gcc.log" 2>&1 ||
		fail "building $dg: $(cat "$tmp/gcc.log")"
	mv -f "$dg.tmp" "$dg"
fi
closure "$dg"
ldd "$dg" | grep -q "libopenblas\.so\.0 => $blasdir/libopenblas\.so\.0 " ||
	fail "$dg does not load OpenBLAS's OpenMP build: $(ldd "$dg")"

# The runner: runs a program with LD_DEBUG=bindings and a deadline,
# watching its threads; and reads the bindings back.
cat >"$tmp/run.py" <<'EOF'
"""run.py TMP NAME LIMIT LIB CMD...: run CMD, its output in TMP/NAME.out
and TMP/NAME.err, LD_DEBUG=bindings into TMP/NAME.ld.PID, and print
'pid=P threads=T secs=S rc=R gomp=G': T the most threads it had (its
/proc status read every 2 ms), G the file GOMP_parallel of the library
whose path holds LIB was bound to (its first call), or '-' when none
was or when the process's GOMP_*/omp_* symbols went to more than one
file (then a line saying where they went follows).  Exit 1 when CMD
outlived LIMIT seconds (killed)."""
import glob, os, re, subprocess, sys, time

def run(tmp, name, limit, lib, cmd):
    env = dict(os.environ, LD_DEBUG="bindings",
               LD_DEBUG_OUTPUT=os.path.join(tmp, name + ".ld"))
    with open(os.path.join(tmp, name + ".out"), "wb") as out, \
         open(os.path.join(tmp, name + ".err"), "wb") as err:
        t0 = time.monotonic()
        p = subprocess.Popen(cmd, stdout=out, stderr=err, env=env)
        most = 0
        while p.poll() is None:
            try:
                with open(f"/proc/{p.pid}/status") as f:
                    for line in f:
                        if line.startswith("Threads:"):
                            most = max(most, int(line.split()[1]))
            except (OSError, ValueError):
                pass
            if time.monotonic() - t0 > limit:
                p.kill()
                p.wait()
                print(f"pid={p.pid} threads={most} secs={limit} rc=killed gomp=-")
                sys.exit(1)
            time.sleep(0.002)
        secs = time.monotonic() - t0
    gomp, why = bound(tmp, name, lib)
    print(f"pid={p.pid} threads={most} secs={secs:.2f} rc={p.returncode} gomp={gomp}")
    if why:
        print(why)

BIND = re.compile(r"binding file (\S+) \[\d+\] to (\S+) \[\d+\]: normal symbol `((?:GOMP_|omp_)\w*)'")

def bound(tmp, name, lib):
    targets, gp = set(), set()
    for path in glob.glob(os.path.join(tmp, name + ".ld.*")):
        with open(path, errors="replace") as f:
            for line in f:
                m = BIND.search(line)
                if m:
                    targets.add(m.group(2))
                    if m.group(3) == "GOMP_parallel" and lib in m.group(1):
                        gp.add(m.group(2))
        os.unlink(path)
    if len(gp) != 1 or len(targets) != 1:
        return "-", (f"GOMP_parallel of {lib} bound to {sorted(gp) or 'nothing'}; "
                     f"GOMP_*/omp_* bound to {sorted(targets) or 'nothing'}")
    return gp.pop(), ""

run(sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4], sys.argv[5:])
EOF

# field KEY FILE: the value of KEY=VALUE in FILE's first line holding it.
field() { sed -n "s/^\(.* \)\{0,1\}$1=\([^ ]*\).*/\2/p" "$2" | head -1; }
# Prepend the layer to the library path.
layer_path="$layer${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

# real RUNTIME NAME LIB CMD...: run CMD (a real program) on RUNTIME:
# system (the system's libgomp), layer (no daemon) or daemon (the layer,
# joining the test's asteald); check it ran and that GOMP_parallel of
# LIB went to that runtime's libgomp, with 2 threads or more.  Its run
# line in $tmp/RUNTIME-NAME.run, its pid in $pid.
real() {
	rt=$1 name=$2 lib=$3
	shift 3
	case $rt in
	system) set -- env ASTEAL_SOCKET=none "$@" ;;
	layer) set -- env ASTEAL_SOCKET=none LD_LIBRARY_PATH="$layer_path" "$@" ;;
	daemon) set -- env ASTEAL_SOCKET="$sock" ASTEAL_JOB_NAME="ompreal-$name" \
		LD_LIBRARY_PATH="$layer_path" "$@" ;;
	esac
	run="$tmp/$rt-$name.run"
	python3 "$tmp/run.py" "$tmp" "$rt-$name" 60 "$lib" "$@" >"$run" ||
		fail "$rt: $name ran past its deadline: $(cat "$run")"
	[ "$(field rc "$run")" = 0 ] ||
		fail "$rt: $name: $(head -1 "$run"): $(tail -5 "$tmp/$rt-$name.err")"
	# shellcheck disable=SC2034 # read by runs through eval
	pid=$(field pid "$run")
	gomp=$(field gomp "$run")
	[ "$gomp" != - ] || fail "$rt: $name: $(tail -1 "$run")"
	case $rt in
	system) [ "$gomp" != "$layer_lib" ] || fail "system: $name ran on the layer ($gomp)" ;;
	*) [ "$gomp" = "$layer_lib" ] || fail "$rt: $name ran on $gomp, not the layer $layer_lib" ;;
	esac
	threads=$(field threads "$run")
	[ "$threads" -ge 2 ] || fail "$rt: $name had $threads thread(s), not a team of 2"
	echo "$rt: $name: $(field secs "$run") s, $threads threads, GOMP_parallel of $lib on $gomp"
}

# ---- the programs' inputs ----
# A plasma with a fixed seed, appended 28 times: 240x8400 (see 1.).
plasma() {
	"$convert" -seed 4242 -size 240x300 plasma:fractal -duplicate 27 -append -depth 16 "$1"
}
plasma "$tmp/plasma.ppm" || fail "convert: making the input"
plasma "$tmp/plasma2.ppm" || fail "convert: making the input again"
cmp -s "$tmp/plasma.ppm" "$tmp/plasma2.ppm" || fail "convert: the seeded plasma is not the same twice"
# GROMACS: a box of SPC/E water, solvated and preprocessed here.
cat >"$tmp/topol.top" <<'EOF'
#include "oplsaa.ff/forcefield.itp"
#include "oplsaa.ff/spce.itp"
[ system ]
water
[ molecules ]
EOF
cat >"$tmp/md.mdp" <<'EOF'
integrator     = md
dt             = 0.002
nsteps         = 300
nstcalcenergy  = 50
nstenergy      = 50
nstlog         = 50
cutoff-scheme  = Verlet
coulombtype    = PME
rcoulomb       = 1.0
rvdw           = 1.0
tcoupl         = v-rescale
tc-grps        = System
tau_t          = 0.1
ref_t          = 300
gen_vel        = yes
gen_temp       = 300
gen_seed       = 42
ld_seed        = 42
constraints    = h-bonds
EOF
(cd "$tmp" && "$gmx" -quiet solvate -cs spc216.gro -box 3 3 3 -o water.gro) >"$tmp/solvate.log" 2>&1 ||
	fail "gmx solvate: $(tail -5 "$tmp/solvate.log")"
nw=$(sed -n 's/.*SOL *( *3 atoms): *\([0-9]*\) residues.*/\1/p' "$tmp/solvate.log" | head -1)
[ -n "$nw" ] || fail "gmx solvate: no water count: $(tail -5 "$tmp/solvate.log")"
echo "SOL $nw" >>"$tmp/topol.top"
(cd "$tmp" && "$gmx" -quiet grompp -f md.mdp -c water.gro -p topol.top -o md.tpr) >"$tmp/grompp.log" 2>&1 ||
	fail "gmx grompp: $(tail -8 "$tmp/grompp.log")"

# ---- one runtime's runs, compared with the system's ----
# runs RUNTIME [layer]: the three programs on RUNTIME (see real), their
# results compared with the system runtime's; with daemon, each beside a
# fib allotted before it starts and still running when it ends.  With
# layer, `convert -list resource` runs on the layer too.
fibs=""
beside_start() {
	[ "$1" = daemon ] || return 0
	fib=$("$A" submit --parsable --name "fib-$2" --output "$tmp/fib-$2.out" -- "$build/jobs/fib" 49) ||
		fail "daemon: submit fib beside $2"
	fibs="$fibs $fib"
	wait_for 20 running "$fib" || fail "daemon: fib beside $2 never allotted: $("$A" jobs)"
}
beside_end() {
	[ "$1" = daemon ] || return 0
	"$A" jobs "$fib" >/dev/null 2>&1 || fail "daemon: fib ended before $2 did: $(cat "$tmp/fib-$2.out")"
	"$A" cancel "$fib" >/dev/null || fail "daemon: cancel fib"
	"$A" wait --timeout 20 "$fib" >/dev/null 2>&1
	[ $? -ne 124 ] || fail "daemon: fib beside $2 did not end when cancelled"
}
# running ID: job ID is listed with CPUs.
running() { "$A" --json jobs "$1" 2>/dev/null | json 'len(d[0]["cpus"])' 2>/dev/null | grep -q '^[1-9]'; }
json() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }

runs() {
	rt=$1
	# 1. ImageMagick
	threads=$(env ${2:+LD_LIBRARY_PATH="$layer_path"} ASTEAL_SOCKET=none "$convert" -list resource |
		sed -n 's/^ *Thread: *//p')
	[ "$threads" = 2 ] || fail "$rt: convert -list resource: Thread: '$threads', not 2"
	beside_start "$rt" convert
	real "$rt" convert libMagickCore "$convert" "$tmp/plasma.ppm" -resize 110% -blur 0x3 \
		-depth 16 "$tmp/$rt-convert.ppm"
	eval "pid_convert_$rt=\$pid"
	beside_end "$rt" convert
	if [ "$rt" != system ]; then
		cmp -s "$tmp/system-convert.ppm" "$tmp/$rt-convert.ppm" ||
			fail "$rt: convert's output differs from the system libgomp's: $(cmp "$tmp/system-convert.ppm" "$tmp/$rt-convert.ppm" 2>&1)"
		echo "$rt: convert: output identical to the system libgomp's ($(wc -c <"$tmp/$rt-convert.ppm") bytes)"
	fi

	# 2. OpenBLAS
	beside_start "$rt" dgemm
	real "$rt" dgemm openblas-openmp/libopenblas.so.0 "$dg" 2000 "$tmp/$rt-dgemm.bin"
	eval "pid_dgemm_$rt=\$pid"
	beside_end "$rt" dgemm
	out="$tmp/$rt-dgemm.out"
	grep -q " parallel=openmp threads=2 .* check=ok$" "$out" || fail "$rt: dgemm: $(cat "$out")"
	echo "$rt: $(cat "$out")"
	if [ "$rt" != system ]; then
		for f in sum fnv; do
			[ "$(field $f "$out")" = "$(field $f "$tmp/system-dgemm.out")" ] ||
				fail "$rt: dgemm's $f differs: $(cat "$out") / system: $(cat "$tmp/system-dgemm.out")"
		done
		cmp -s "$tmp/system-dgemm.bin" "$tmp/$rt-dgemm.bin" || fail "$rt: dgemm's C differs from the system libgomp's"
		echo "$rt: dgemm: C bitwise identical to the system libgomp's"
	fi

	# 3. GROMACS
	beside_start "$rt" gmx
	real "$rt" gmx libgromacs "$gmx" -quiet mdrun -s "$tmp/md.tpr" -deffnm "$tmp/$rt-gmx" \
		-ntmpi 1 -ntomp 2 -pin off -reprod
	eval "pid_gmx_$rt=\$pid"
	beside_end "$rt" gmx
	grep -q "^Using 2 OpenMP threads" "$tmp/$rt-gmx.log" ||
		fail "$rt: mdrun did not use 2 OpenMP threads: $(grep -i openmp "$tmp/$rt-gmx.log")"
	if [ "$rt" != system ]; then
		"$gmx" -quiet check -e "$tmp/system-gmx.edr" -e2 "$tmp/$rt-gmx.edr" >"$tmp/$rt-check.log" 2>&1 ||
			fail "$rt: gmx check: $(tail -5 "$tmp/$rt-check.log")"
		if ! grep -q "^There are [0-9]* terms to compare" "$tmp/$rt-check.log" ||
			! grep -q "^Files read successfully" "$tmp/$rt-check.log"; then
			fail "$rt: gmx check read nothing: $(tail -5 "$tmp/$rt-check.log")"
		fi
		if grep -q "step *[0-9]*:.*step *[0-9]*:" "$tmp/$rt-check.log"; then
			fail "$rt: mdrun's energies differ from the system libgomp's beyond gmx check's tolerance: $(grep "step *[0-9]*:.*step" "$tmp/$rt-check.log" | head -8)"
		fi
		same="identical bytes"
		cmp -s "$tmp/system-gmx.edr" "$tmp/$rt-gmx.edr" && cmp -s "$tmp/system-gmx.gro" "$tmp/$rt-gmx.gro" ||
			same="not the same bytes, but within tolerance"
		echo "$rt: gmx: $(sed -n 's/^There are \([0-9]*\) terms to compare.*/\1/p' "$tmp/$rt-check.log") energy terms within gmx check's tolerance (rel 0.001, abs 0.001); energies and final coordinates: $same"
	fi
}

runs system
runs layer layer

# ---- the layer's runs under asteald, beside fib ----
listening() { grep -q 'listening on' "$tmp/daemon.log" 2>/dev/null; }
sock="$tmp/asteald.sock"
"$build/bin/asteald" --foreground --socket "$sock" --db "$tmp/history.db" \
	--cpus 0-1 --quantum-ms 10 >"$tmp/daemon.log" 2>&1 &
daemon_pid=$!
wait_for 20 listening || fail "asteald did not start"
export ASTEAL_SOCKET="$sock"
runs daemon layer

# The history: each fib and, on the layer, each real program as an
# adaptive job: its runtime said how many workers it has and reported
# the work it did (a program not on the layer would be neither), with an
# allotment row (more only if its allotment changed while it ran).
cat >"$tmp/hist.py" <<'EOF'
"""hist.py FILE STANDIN FIBS PIDS: the history (asteal --json history)
holds the fib jobs FIBS (ids, comma-separated), each with an allotment
row, and unless STANDIN is 1 an adaptive job for each pid of PIDS
(name=pid,...): workers and work reported, an allotment row."""
import json, sys
d = json.load(open(sys.argv[1]))
standin, fibs = sys.argv[2] == "1", [int(x) for x in sys.argv[3].split(",")]
pids = dict(x.split("=") for x in sys.argv[4].split(","))
rows = {}
for r in d["allotments"]:
    rows[r["job_id"]] = rows.get(r["job_id"], 0) + 1
bad = [f"fib {i}: no allotment row" for i in fibs if rows.get(i, 0) < 1]
found = []
if not standin:
    for name, pid in pids.items():
        jobs = [j for j in d["jobs"] if str(j["pid"]) == pid]
        if not jobs:
            bad.append(f"{name} (pid {pid}): no job")
        elif rows.get(jobs[0]["id"], 0) < 1:
            bad.append(f"{name} (pid {pid}): job {jobs[0]['id']} has no allotment row")
        elif not (int(jobs[0].get("workers") or 0) >= 1 and int(jobs[0].get("work_ns") or 0) > 0):
            bad.append(f"{name} (pid {pid}): job {jobs[0]['id']} is not adaptive "
                       f"(workers {jobs[0].get('workers')}, work_ns {jobs[0].get('work_ns')})")
        else:
            found.append(f"{name} job {jobs[0]['id']} ({rows[jobs[0]['id']]} rows)")
print("; ".join(bad) if bad else ", ".join(found) or "fib jobs recorded")
sys.exit(1 if bad else 0)
EOF
fiblist=$(printf '%s' "${fibs# }" | tr ' ' ',')
# shellcheck disable=SC2154
pids="convert=$pid_convert_daemon,dgemm=$pid_dgemm_daemon,gmx=$pid_gmx_daemon"
recorded() {
	"$A" --json history >"$tmp/history.json" 2>/dev/null &&
		python3 "$tmp/hist.py" "$tmp/history.json" "$standin" "$fiblist" "$pids" >"$tmp/hist.out"
}
wait_for 10 recorded || fail "daemon: the history: $(cat "$tmp/hist.out")"
if [ "$standin" = 1 ]; then
	echo "daemon: history: the fib jobs recorded; the real programs' jobs not checked: $layer_lib is the system's libgomp (a stand-in), which does not join asteald (needs the layer)"
else
	echo "daemon: history: $(cat "$tmp/hist.out")"
fi
kill "$daemon_pid"
wait "$daemon_pid" 2>/dev/null
daemon_pid=""

ms=$((($(date +%s%N) - T0) / 1000000))
echo "ompreal: ok ($((ms / 1000)).$((ms % 1000 / 100)) s; layer $layer_lib$([ "$standin" = 1 ] && echo ", a stand-in"))"
