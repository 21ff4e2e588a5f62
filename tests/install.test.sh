#!/bin/sh
# install.test.sh BUILD - `make install` and `make uninstall` (mk/install.mk)
# into a temporary DESTDIR:
#  1. PREFIX=/usr installs exactly the expected files: the programs (asteald
#     in sbin, the others in bin; asteal when BUILD has it), libasteal.a,
#     libasteal.so.VERSION with the symlinks libasteal.so.0 (the soname
#     recorded in the library) and libasteal.so, asteal.h as in client-lib/,
#     asteal.pc (version ASTEAL_VERSION), the systemd units with
#     ExecStart=/usr/sbin/asteald, the sysusers and tmpfiles files, the two
#     man pages and the bash completion, the SPANK plugin where libslurm-dev
#     is installed (in lib/slurm/), the OpenMP layer as lib/asteal/
#     libgomp.so.1 (soname libgomp.so.1, the build's), which the installed
#     asteal names as its folder; no installed text names DESTDIR or
#     keeps an @...@ placeholder;
#     the shared library exports exactly the names asteal.h declares
#     ASTEAL_API (nm -D), each in the version node ASTEAL_1;
#  2. a small fork/join job written here (task groups, spawn/sync,
#     asteal_for) builds against the installed header and library through
#     `pkg-config asteal` (PKG_CONFIG_SYSROOT_DIR=DESTDIR), dynamically
#     (it needs libasteal.so.0, binds asteal_start@ASTEAL_1 and loads the
#     installed library) and statically (no libasteal.so.0 needed), and
#     both print the right results with ASTEAL_SOCKET=none;
#     pkg-config --define-variable=prefix moves every directory;
#  3. the default PREFIX is /usr/local, substituted into the service and
#     the layer's folder compiled into asteal;
#  4. `make uninstall` leaves no file behind.
# Only in the normal build: a sanitizer build's library needs its runtime
# on the link line, which pkg-config does not give.
set -u

build=${1:?usage: sh tests/install.test.sh BUILD}
if [ -n "${ASTEAL_TEST_SAN:-}" ]; then
	echo "install: checked in the normal build only"
	exit 0
fi
. scripts/lib.sh
test_tmp install

version=$(sed -n 's/^#define ASTEAL_VERSION "\(.*\)"$/\1/p' client-lib/asteal.h)
[ -n "$version" ] || fail "no ASTEAL_VERSION in client-lib/asteal.h"

# make from inside `make check`: not the caller's jobserver or flags.
mk() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory BUILD="$build" "$@" \
		>"$tmp/make.log" 2>&1 || fail "make $*: $(tail -20 "$tmp/make.log")"
}

# ---- 1. make install PREFIX=/usr ----
d="$tmp/dest"
mk install DESTDIR="$d" PREFIX=/usr
cat >"$tmp/expected" <<EOF
usr/bin/asteal-plot
usr/bin/asteal-profile
usr/bin/asteal-sim
usr/include/asteal.h
usr/lib/libasteal.a
usr/lib/libasteal.so
usr/lib/libasteal.so.0
usr/lib/libasteal.so.$version
usr/lib/asteal/libgomp.so.1
usr/lib/pkgconfig/asteal.pc
usr/lib/systemd/system/asteald.service
usr/lib/systemd/system/asteald.socket
usr/lib/sysusers.d/asteal.conf
usr/lib/tmpfiles.d/asteal.conf
usr/sbin/asteald
usr/share/bash-completion/completions/asteal
usr/share/man/man1/asteal.1
usr/share/man/man8/asteald.8
EOF
[ -x "$build/bin/asteal" ] && echo usr/bin/asteal >>"$tmp/expected"
# The SPANK plugin, where libslurm-dev lets make build it (slurm/slurm.mk).
[ -f /usr/include/slurm/spank.h ] && echo usr/lib/slurm/asteal_spank.so >>"$tmp/expected"
sort -o "$tmp/expected" "$tmp/expected"
(cd "$d" && find . \( -type f -o -type l \) | sed 's|^\./||' | sort) >"$tmp/installed"
diff "$tmp/expected" "$tmp/installed" >"$tmp/diff" ||
	fail "installed files differ from the expected ones (< missing, > extra): $(cat "$tmp/diff")"
echo "installed $(wc -l <"$tmp/installed") files under PREFIX=/usr"

for p in usr/sbin/asteald usr/bin/asteal-sim usr/bin/asteal-plot usr/bin/asteal-profile; do
	[ -x "$d/$p" ] || fail "$p is not executable"
done
"$d/usr/sbin/asteald" --version | grep -q "^asteald $version " ||
	fail "the installed asteald is not version $version"
lib="$d/usr/lib"
[ -f "$lib/libasteal.so.$version" ] && [ ! -L "$lib/libasteal.so.$version" ] ||
	fail "libasteal.so.$version is not a regular file"
[ "$(readlink "$lib/libasteal.so.0")" = "libasteal.so.$version" ] ||
	fail "libasteal.so.0 -> $(readlink "$lib/libasteal.so.0"), expected libasteal.so.$version"
[ "$(readlink "$lib/libasteal.so")" = libasteal.so.0 ] ||
	fail "libasteal.so -> $(readlink "$lib/libasteal.so"), expected libasteal.so.0"
soname=$(readelf -d "$lib/libasteal.so.$version" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = libasteal.so.0 ] || fail "the library's soname is '$soname', not libasteal.so.0"
cmp -s "$d/usr/include/asteal.h" client-lib/asteal.h || fail "the installed asteal.h is not client-lib/asteal.h"
# The OpenMP layer: the build's, in a folder of its own, which asteal knows.
cmp -s "$lib/asteal/libgomp.so.1" "$build/lib/asteal/libgomp.so.1" ||
	fail "lib/asteal/libgomp.so.1 is not the build's layer"
[ -x "$lib/asteal/libgomp.so.1" ] || fail "lib/asteal/libgomp.so.1 is not executable"
omp_soname=$(readelf -d "$lib/asteal/libgomp.so.1" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$omp_soname" = libgomp.so.1 ] || fail "the layer's soname is '$omp_soname', not libgomp.so.1"
if [ -x "$build/bin/asteal" ]; then
	grep -aqx '#define CLI_OMP_DIR "/usr/lib/asteal"' "$build/gen/cli/paths.h" &&
		strings -a "$d/usr/bin/asteal" | grep -qx /usr/lib/asteal ||
		fail "the installed asteal does not name /usr/lib/asteal, the layer's folder"
fi
grep -qx "Version: $version" "$lib/pkgconfig/asteal.pc" || fail "asteal.pc is not version $version"
grep -qx "prefix=/usr" "$lib/pkgconfig/asteal.pc" || fail "asteal.pc: prefix is not /usr"
grep -qx "ExecStart=/usr/sbin/asteald --admin-group asteal" "$lib/systemd/system/asteald.service" ||
	fail "asteald.service: $(grep ExecStart "$lib/systemd/system/asteald.service")"
cmp -s "$lib/systemd/system/asteald.socket" systemd/asteald.socket || fail "asteald.socket differs from systemd/"
cmp -s "$lib/sysusers.d/asteal.conf" systemd/asteal.sysusers || fail "sysusers.d/asteal.conf differs"
cmp -s "$lib/tmpfiles.d/asteal.conf" systemd/asteal.tmpfiles || fail "tmpfiles.d/asteal.conf differs"
cmp -s "$d/usr/share/bash-completion/completions/asteal" completion/asteal.bash || fail "the completion differs"
for f in usr/lib/pkgconfig/asteal.pc usr/lib/systemd/system/asteald.service; do
	! grep -q "$d" "$d/$f" || fail "$f names the DESTDIR: $(grep "$d" "$d/$f")"
	! grep -q "@[a-z]*@" "$d/$f" || fail "$f keeps a placeholder: $(grep "@[a-z]*@" "$d/$f")"
done
echo "libasteal.so.$version, soname $soname; asteal.pc $version; ExecStart=/usr/sbin/asteald"

# The shared library exports what asteal.h declares ASTEAL_API (its
# functions, the asteal__ names of the inline fast paths) and nothing
# else, each in the version node ASTEAL_1.
awk '/^ASTEAL_API / {
	if (match($0, /asteal_[a-z0-9_]*\(/)) { print substr($0, RSTART, RLENGTH - 1); next }
	n = split($0, w, /[^A-Za-z0-9_]+/)
	for (i = n; i > 0; i--) if (w[i] ~ /^asteal_/) { print w[i]; break }
}' "$d/usr/include/asteal.h" | sort -u >"$tmp/api"
[ "$(wc -l <"$tmp/api")" -ge 10 ] || fail "asteal.h declares only $(wc -l <"$tmp/api") names ASTEAL_API"
grep -qx asteal_start "$tmp/api" && grep -qx asteal__spawn_slow "$tmp/api" && grep -qx asteal__tls "$tmp/api" ||
	fail "the names asteal.h exports miss asteal_start, asteal__spawn_slow or asteal__tls: $(cat "$tmp/api")"
nm -D --defined-only "$lib/libasteal.so.$version" >"$tmp/nm" || fail "nm -D failed on libasteal.so.$version"
awk '!($2 == "A" && $3 == "ASTEAL_1") { print $3 }' "$tmp/nm" >"$tmp/exported"
unversioned=$(grep -v '@@ASTEAL_1$' "$tmp/exported")
[ -z "$unversioned" ] || fail "libasteal exports symbols outside the version node ASTEAL_1: $unversioned"
sed 's/@@ASTEAL_1$//' "$tmp/exported" | sort -u >"$tmp/exported.names"
diff "$tmp/api" "$tmp/exported.names" >"$tmp/diff" ||
	fail "libasteal's exports differ from asteal.h's ASTEAL_API names (< not exported, > exported but not API): $(cat "$tmp/diff")"
grep -q ' A ASTEAL_1$' "$tmp/nm" || fail "libasteal has no version node ASTEAL_1"
echo "libasteal exports $(wc -l <"$tmp/api") names, all of asteal.h's ASTEAL_API and only those, in ASTEAL_1"

# ---- 2. a job built with pkg-config against the installed library ----
cat >"$tmp/job.c" <<'EOF'
/* job.c - fork/join Fibonacci and a parallel loop on the installed libasteal. */
#include <asteal.h>
#include <stdatomic.h>
#include <stdio.h>

struct fib_arg { long n, r; };

static long fib(long n);

static void fib_task(void *p)
{
	struct fib_arg *a = p;

	a->r = fib(a->n);
}

static long fib(long n)
{
	struct fib_arg a;
	asteal_group g;
	long y;

	if (n < 2)
		return n;
	a.n = n - 1;
	a.r = 0;
	asteal_group_init(&g);
	if (asteal_spawn(&g, fib_task, &a) < 0)
		return -1;
	y = fib(n - 2);
	if (asteal_sync(&g) < 0)
		return -1;
	return a.r + y;
}

static _Atomic long total;

static void sum_body(long lo, long hi, void *arg)
{
	long s = 0;

	(void)arg;
	for (long i = lo; i < hi; i++)
		s += i;
	atomic_fetch_add(&total, s);
}

struct root_arg { long fib; int for_rc; };

static void root(void *p)
{
	struct root_arg *r = p;

	r->fib = fib(24);
	r->for_rc = asteal_for(0, 100000, 1000, sum_body, NULL);
}

int main(void)
{
	struct root_arg r = { 0, -1 };

	if (asteal_start(NULL) < 0 || asteal_run(root, &r) < 0)
		return 1;
	printf("fib(24)=%ld sum=%ld for=%d workers=%d version=%s\n", r.fib,
	       atomic_load(&total), r.for_rc, asteal_workers(), ASTEAL_VERSION);
	return asteal_stop() < 0 ? 1 : 0;
}
EOF
want="fib(24)=46368 sum=4999950000 for=0 workers=2 version=$version"
pc() {
	PKG_CONFIG_PATH="$lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$d" pkg-config "$@"
}
cflags=$(pc --cflags asteal) || fail "pkg-config --cflags asteal failed"
libs=$(pc --libs asteal) || fail "pkg-config --libs asteal failed"
slibs=$(pc --static --libs asteal) || fail "pkg-config --static --libs asteal failed"
[ "$(pc --modversion asteal)" = "$version" ] || fail "pkg-config --modversion: $(pc --modversion asteal)"
case " $cflags " in *" -I$d/usr/include "*) ;; *) fail "cflags '$cflags' miss -I$d/usr/include" ;; esac
case " $libs " in *" -L$lib "*) ;; *) fail "libs '$libs' miss -L$lib" ;; esac
case " $libs " in *" -lasteal "*) ;; *) fail "libs '$libs' miss -lasteal" ;; esac
case " $slibs " in *" -lprotobuf-c "*) ;; *) fail "static libs '$slibs' miss -lprotobuf-c" ;; esac
moved=$(PKG_CONFIG_PATH="$lib/pkgconfig" pkg-config --define-variable=prefix=/opt/x \
	--cflags --libs asteal)
# shellcheck disable=SC2086,SC2116
[ "$(echo $moved)" = "-I/opt/x/include -L/opt/x/lib -lasteal" ] ||
	fail "--define-variable=prefix=/opt/x gives '$moved'"
echo "pkg-config: cflags '$cflags', libs '$libs', static '$slibs'"

# shellcheck disable=SC2086
cc -std=c11 -Wall -Werror $cflags -o "$tmp/job-dynamic" "$tmp/job.c" $libs ||
	fail "the job does not build against the installed shared library"
# shellcheck disable=SC2086
cc -std=c11 -Wall -Werror -static $cflags -o "$tmp/job-static" "$tmp/job.c" $slibs ||
	fail "the job does not build statically against the installed libasteal.a"
readelf -d "$tmp/job-dynamic" | grep -q 'NEEDED.*\[libasteal\.so\.0\]' ||
	fail "the dynamic job does not need libasteal.so.0"
nm -D --undefined-only "$tmp/job-dynamic" | grep -q ' asteal_start@ASTEAL_1$' ||
	fail "the dynamic job does not bind asteal_start@ASTEAL_1: $(nm -D --undefined-only "$tmp/job-dynamic" | grep asteal)"
! readelf -d "$tmp/job-static" 2>/dev/null | grep -q NEEDED ||
	fail "the static job needs shared libraries: $(readelf -d "$tmp/job-static" | grep NEEDED)"
LD_LIBRARY_PATH="$lib" ldd "$tmp/job-dynamic" | grep -q "libasteal\.so\.0 => $lib/libasteal\.so\.0 " ||
	fail "the dynamic job does not load the installed library: $(LD_LIBRARY_PATH="$lib" ldd "$tmp/job-dynamic")"
for kind in dynamic static; do
	out=$(LD_LIBRARY_PATH="$lib" ASTEAL_SOCKET=none ASTEAL_WORKERS=2 "$tmp/job-$kind" 2>&1) ||
		fail "the $kind job failed: $out"
	[ "$out" = "$want" ] || fail "the $kind job printed '$out', expected '$want'"
	echo "$kind job: $out"
done

# ---- 3. the default PREFIX ----
d2="$tmp/dest-default"
mk install DESTDIR="$d2"
[ -x "$d2/usr/local/sbin/asteald" ] || fail "the default PREFIX is not /usr/local"
grep -qx "ExecStart=/usr/local/sbin/asteald --admin-group asteal" "$d2/usr/local/lib/systemd/system/asteald.service" ||
	fail "default PREFIX: $(grep ExecStart "$d2/usr/local/lib/systemd/system/asteald.service")"
grep -qx "prefix=/usr/local" "$d2/usr/local/lib/pkgconfig/asteal.pc" || fail "default PREFIX: asteal.pc"
[ -f "$d2/usr/local/lib/asteal/libgomp.so.1" ] || fail "default PREFIX: no lib/asteal/libgomp.so.1"
if [ -x "$build/bin/asteal" ]; then
	strings -a "$d2/usr/local/bin/asteal" | grep -qx /usr/local/lib/asteal ||
		fail "default PREFIX: asteal does not name /usr/local/lib/asteal"
fi
echo "default PREFIX /usr/local: ExecStart=/usr/local/sbin/asteald"

# ---- 4. make uninstall ----
mk uninstall DESTDIR="$d" PREFIX=/usr
left=$(cd "$d" && find . \( -type f -o -type l \))
[ -z "$left" ] || fail "make uninstall left: $left"
echo "uninstall removed every file"
echo ok
