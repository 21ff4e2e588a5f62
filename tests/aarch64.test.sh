#!/bin/sh
# aarch64.test.sh BUILD - cross-build libasteal and four jobs for aarch64
# and run them under qemu-user: the aarch64 context switch, thread-pointer
# read and FP state saving, exercised by real spawns, steals and suspended
# syncs (every spawn pushed, 4 workers), and loops split on demand
# (phases).  It uses nothing of BUILD but its folder, so it runs once: in
# the build ASTEAL_TEST_ONCE_IN names (make check: the TSan build, whose
# idle lane has room), the normal build when that is unset.
set -eu

build=${1:?usage: aarch64.test.sh BUILD}
if [ "${ASTEAL_TEST_SAN:-}" != "${ASTEAL_TEST_ONCE_IN:-}" ]; then
	echo "skip: run once, in the ${ASTEAL_TEST_ONCE_IN:-normal} build's tests"
	exit 0
fi
cc=aarch64-linux-gnu-gcc
for tool in "$cc" qemu-aarch64; do
	command -v "$tool" >/dev/null ||
		{ echo "missing $tool (scripts/deps.sh installs it)"; exit 1; }
done

out="$build/aarch64"
mkdir -p "$out"
flags="-std=c11 -O2 -D_GNU_SOURCE -DASTEAL_NO_DAEMON -Wall -Wextra -Werror -pthread -Iclient-lib -Ipolicy -Iproto -Ijobs"
# libasteal is every client-lib/*.c (the OpenMP layer, in its own folder,
# is not built here), the estimator, the page (proto/page.c) and the
# aarch64 context switch.
lib="$(echo client-lib/*.c) policy/estimator.c proto/page.c client-lib/ctx_aarch64.S"
# Compiled once, linked into each job.
objs=""
for src in $lib jobs/common.c; do
	obj="$out/$(echo "$src" | tr / _).o"
	# shellcheck disable=SC2086
	$cc $flags -c -o "$obj" "$src" || { echo "FAILED: compiling $src"; exit 1; }
	objs="$objs $obj"
done
for job in fib nqueens matmul phases; do
	# shellcheck disable=SC2086
	$cc $flags -static -o "$out/$job" "jobs/$job.c" $objs -lm
done

run() {
	echo "+ qemu-aarch64 $*"
	line=$(ASTEAL_READY_LIMIT=0 qemu-aarch64 "$@")
	echo "$line"
	case "$line" in *check=ok*) ;; *) echo "FAILED: $*"; exit 1 ;; esac
}
file "$out/fib" | grep -q "ARM aarch64" || { echo "not an aarch64 binary"; exit 1; }
run "$out/fib" 25 --workers 4
run "$out/nqueens" 8 --workers 4
run "$out/matmul" 64 --workers 4
run "$out/phases" 3 --w1 1000 --w2 200 --h 64 --workers 4
