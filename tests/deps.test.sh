#!/bin/sh
# deps.test.sh BUILD - scripts/deps.sh asks each make target for what it
# uses, against a fake dpkg-query (the packages it reports missing), a fake
# id (root or not) and a fake apt-get (which records what it was asked) on
# PATH:
#  1. a user without the check-only packages (cmocka, the aarch64 cross
#     compiler, qemu, munge and Slurm, the real OpenMP programs of
#     tests/ompreal.test.sh: ImageMagick, OpenBLAS, GROMACS, g++ and
#     gfortran for tests/omp.test.sh, tmux for tests/watch.test.sh) and
#     the bench-only ones (g++, oneTBB, LLVM's libomp, ImageMagick and
#     OpenBLAS for bench/corun's OpenMP mixes) can build and run the demo:
#     deps.sh build and demo pass and say nothing; check names exactly
#     the check-only ones in its apt-get line, bench exactly the
#     bench-only ones, and neither installs anything;
#  2. python3 missing: demo names it alone, build still passes; make demo
#     stops at that, before compiling anything;
#  3. as root, only the missing packages of the target are installed
#     (apt-get install gets exactly those; none for demo);
#  4. an unknown target is refused (exit 2); several targets ask for the
#     union; no dpkg-query: a note, and the build goes on; libsmartcols
#     missing (the command line's tables): build names it alone;
#  5. the Makefile's targets call deps.sh with their own target: demo,
#     check, asan, tsan, bench; plain make never.
# It builds nothing and uses no build, so it runs once: in the build
# ASTEAL_TEST_ONCE_IN names (make check: the TSan build, whose idle lane
# has room), the normal build when that is unset.
set -u

build=${1:?usage: sh tests/deps.test.sh BUILD}
if [ "${ASTEAL_TEST_SAN:-}" != "${ASTEAL_TEST_ONCE_IN:-}" ]; then
	echo "skip: run once, in the ${ASTEAL_TEST_ONCE_IN:-normal} build's tests"
	exit 0
fi
. scripts/lib.sh
test_tmp deps

fake="$tmp/bin"
mkdir -p "$fake"
# dpkg-query -W -f='${Status}' PKG: missing when PKG is in $tmp/missing.
cat >"$fake/dpkg-query" <<EOF
#!/bin/sh
for p; do :; done
if grep -qxF -- "\$p" "$tmp/missing"; then
	echo "dpkg-query: no packages found matching \$p" >&2
	exit 1
fi
printf 'install ok installed'
EOF
cat >"$fake/id" <<EOF
#!/bin/sh
cat "$tmp/uid"
EOF
cat >"$fake/apt-get" <<EOF
#!/bin/sh
echo "\$*" >>"$tmp/apt.log"
EOF
chmod +x "$fake/dpkg-query" "$fake/id" "$fake/apt-get"

# deps TARGET...: run deps.sh with the fakes; $rc, $out (stderr and stdout).
deps() {
	: >"$tmp/apt.log"
	out=$(PATH="$fake:$PATH" sh scripts/deps.sh "$@" 2>&1)
	rc=$?
}
# missing PKG...: what the fake dpkg-query reports missing.
missing() {
	printf '%s\n' "$@" >"$tmp/missing"
}
# asked WORDS: the line deps.sh printed for the user, after "apt-get install".
asked() {
	printf '%s\n' "$out" | sed -n 's/^deps: install them with:  sudo apt-get install //p'
}

CHECK_ONLY="libcmocka-dev gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user munge slurmctld slurmd slurm-client libslurm-dev imagemagick libopenblas0-openmp libopenblas-openmp-dev gromacs g++ gfortran libtbb-dev tmux"
BENCH_ONLY="g++ libtbb-dev libomp5-14 imagemagick libopenblas0-openmp libopenblas-openmp-dev"

# ---- 1. a user without the test and benchmark packages ----
echo 1000 >"$tmp/uid"
# shellcheck disable=SC2086
missing $CHECK_ONLY $BENCH_ONLY
for t in build demo; do
	deps $t
	[ "$rc" -eq 0 ] || fail "deps.sh $t without the check and bench packages: exit $rc: $out"
	[ -z "$out" ] || fail "deps.sh $t said: $out"
	[ ! -s "$tmp/apt.log" ] || fail "deps.sh $t ran apt-get $(cat "$tmp/apt.log")"
done
deps check
[ "$rc" -eq 1 ] || fail "deps.sh check with packages missing: exit $rc, not 1: $out"
check_asked=$(asked)
[ "$check_asked" = "$CHECK_ONLY" ] || fail "deps.sh check asks for '$check_asked', not '$CHECK_ONLY': $out"
[ ! -s "$tmp/apt.log" ] || fail "deps.sh check ran apt-get as a user: $(cat "$tmp/apt.log")"
deps bench
[ "$rc" -eq 1 ] || fail "deps.sh bench with packages missing: exit $rc, not 1: $out"
[ "$(asked)" = "$BENCH_ONLY" ] || fail "deps.sh bench asks for '$(asked)', not '$BENCH_ONLY': $out"
echo "user: build and demo pass; check asks for $check_asked; bench for $(asked)"

# ---- 2. python3 missing ----
missing python3 libtbb-dev
deps demo
[ "$rc" -eq 1 ] || fail "deps.sh demo without python3: exit $rc, not 1: $out"
[ "$(asked)" = python3 ] || fail "deps.sh demo without python3 asks for '$(asked)': $out"
deps build
[ "$rc" -eq 0 ] || fail "deps.sh build without python3: exit $rc: $out"
PATH="$fake:$PATH" env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory \
	BUILD="$tmp/build" demo >"$tmp/make.log" 2>&1 && fail "make demo without python3 succeeded"
grep -q "sudo apt-get install python3$" "$tmp/make.log" ||
	fail "make demo without python3 did not ask for it: $(cat "$tmp/make.log")"
[ ! -e "$tmp/build" ] || fail "make demo built something before its packages were there"
echo "python3 missing: demo asks for it, build does not; make demo stops first"

# ---- 3. root installs what its target misses, nothing else ----
echo 0 >"$tmp/uid"
missing libcmocka-dev libomp5-14
deps demo
[ "$rc" -eq 0 ] && [ ! -s "$tmp/apt.log" ] || fail "root deps.sh demo: exit $rc, apt-get $(cat "$tmp/apt.log")"
deps check
[ "$rc" -eq 0 ] || fail "root deps.sh check: exit $rc: $out"
grep -qx "install -y -qq --no-install-recommends libcmocka-dev" "$tmp/apt.log" ||
	fail "root deps.sh check ran apt-get: $(cat "$tmp/apt.log")"
echo "root: demo installs nothing, check installs libcmocka-dev alone"

# ---- 4. bad targets, several targets, no dpkg-query ----
echo 1000 >"$tmp/uid"
deps demo check2
[ "$rc" -eq 2 ] || fail "deps.sh with an unknown target: exit $rc, not 2"
case "$out" in *"unknown target 'check2'"*) ;; *) fail "deps.sh check2 said: $out" ;; esac
missing libcmocka-dev libtbb-dev python3
deps bench check
[ "$(asked | tr ' ' '\n' | sort | tr '\n' ' ')" = "libcmocka-dev libtbb-dev python3 " ] ||
	fail "deps.sh bench check asks for '$(asked)', not libcmocka-dev, libtbb-dev and python3"
mkdir -p "$tmp/nodpkg"
for t in sh awk sed printf cat; do
	p=$(command -v "$t") && ln -s "$p" "$tmp/nodpkg/$t"
done
out=$(PATH="$tmp/nodpkg" sh scripts/deps.sh demo 2>&1) || fail "deps.sh without dpkg-query failed: $out"
case "$out" in *"no dpkg-query"*python3*) ;; *) fail "deps.sh without dpkg-query said: $out" ;; esac
missing libsmartcols-dev
deps build
[ "$rc" -eq 1 ] && [ "$(asked)" = libsmartcols-dev ] ||
	fail "deps.sh build without libsmartcols: exit $rc, asks for '$(asked)': $out"
echo "unknown target refused; bench+check asks for the union; no dpkg-query: a note;" \
	"build asks for libsmartcols"

# ---- 5. the Makefile's targets ----
for t in demo check asan tsan bench; do
	want=$t
	case $t in asan | tsan) want=check ;; esac
	# -n prints the recipes (sub-makes run with -n too, building nothing).
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -n --no-print-directory BUILD="$tmp/build" "$t" \
		>"$tmp/n.log" 2>&1 || fail "make -n $t: $(tail -5 "$tmp/n.log")"
	calls=$(grep -o 'scripts/deps\.sh.*' "$tmp/n.log" | sort -u)
	[ "$calls" = "scripts/deps.sh $want" ] || fail "make $t calls '$calls', not scripts/deps.sh $want"
done
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -n --no-print-directory BUILD="$tmp/build" all \
	>"$tmp/n.log" 2>&1 || fail "make -n all: $(tail -5 "$tmp/n.log")"
! grep -q 'deps\.sh' "$tmp/n.log" || fail "plain make calls deps.sh"
echo "make demo, check, asan, tsan, bench call deps.sh for their own target; make does not"
echo ok
