#!/bin/sh
# deps.sh [TARGET...] - make sure the Debian packages a make target needs
# are installed.  TARGET is one of
#
#   build   make: the library, the daemon, the command line, the jobs
#   demo    make demo: build, and python3 (the co-run verdict)
#   check   make check: build, and the tests' tools (cmocka, the aarch64
#           cross compiler and qemu, man, systemd-analyze, sqlite3, ...;
#           munge, Slurm and libslurm-dev for tests/slurm.test.sh's
#           one-node cluster and the SPANK plugin it loads; ImageMagick,
#           OpenBLAS's OpenMP build and GROMACS, the real OpenMP programs
#           of tests/ompreal.test.sh: about 97 MB to download, 36
#           packages, 515 MB installed; g++ and gfortran for the C++ and
#           Fortran programs of tests/omp.test.sh; oneTBB for the
#           comparison kernels bench/run.sh's smoke runs; tmux, the
#           terminal tests/watch.test.sh reads `asteal jobs --watch` in)
#   bench   make bench: build, and g++ and oneTBB (the comparison kernels),
#           LLVM's libomp, ImageMagick and OpenBLAS's OpenMP build (the
#           OpenMP runtimes and programs of bench/omp.sh and bench/corun)
#
# (default: check).  Each target asks only for what it uses, so a user
# without the test or benchmark packages can build and run the demo.
# Missing packages are installed with apt-get when we are root; otherwise
# the exact command is printed and we stop (exit 1).  Without dpkg-query
# (not Debian) the list is printed as a note and we go on.  The Makefile
# calls it from make demo (demo), make check, asan and tsan (check) and
# make bench (bench); make deps asks for every target's packages.
set -eu

BUILD_PKGS="gcc make pkg-config libc6-dev libssl-dev libevent-dev libprotobuf-c-dev
	protobuf-c-compiler libsqlite3-dev libsystemd-dev libncurses-dev libsmartcols-dev"
DEMO_PKGS="python3"
CHECK_PKGS="python3 pkg-config file procps libcmocka-dev sqlite3 systemd
	groff-base man-db gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user
	munge slurmctld slurmd slurm-client libslurm-dev
	imagemagick libopenblas0-openmp libopenblas-openmp-dev gromacs
	g++ gfortran libtbb-dev tmux"
BENCH_PKGS="python3 g++ libtbb-dev libomp5-14 imagemagick libopenblas0-openmp
	libopenblas-openmp-dev"

[ $# -gt 0 ] || set -- check
wanted="$BUILD_PKGS"
for target in "$@"; do
	case "$target" in
	build) ;;
	demo) wanted="$wanted $DEMO_PKGS" ;;
	check) wanted="$wanted $CHECK_PKGS" ;;
	bench) wanted="$wanted $BENCH_PKGS" ;;
	*)
		echo "deps: unknown target '$target' (build, demo, check or bench)" >&2
		exit 2
		;;
	esac
done
# Each package once, in the order first named.
wanted=$(printf '%s\n' $wanted | awk 'NF && !seen[$0]++')

if ! command -v dpkg-query >/dev/null 2>&1; then
	echo "deps: no dpkg-query (not Debian?): make sure these, or your" \
	     "system's equivalents, are installed:" $wanted >&2
	exit 0
fi

missing=""
for p in $wanted; do
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	case "$status" in
	*"install ok installed"*) ;;
	*) missing="$missing $p" ;;
	esac
done

[ -z "$missing" ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
	echo "deps: installing$missing" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >&2 || { echo "deps: apt-get update failed" >&2; exit 1; }
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >&2 ||
		{ echo "deps: apt-get install failed" >&2; exit 1; }
	exit 0
fi

echo "deps: missing Debian packages ($*):$missing" >&2
echo "deps: install them with:  sudo apt-get install$missing" >&2
exit 1
