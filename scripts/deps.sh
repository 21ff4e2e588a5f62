#!/bin/sh
# deps.sh - make sure the Debian packages asteal needs are installed.
#
# Missing packages are installed with apt-get when we are root; otherwise
# the exact command is printed and we stop (exit 1).  Called by every
# top-level make target that builds (make check, make demo, make bench).
set -eu

PACKAGES="gcc g++ make pkg-config libc6-dev libcmocka-dev libssl-dev libtbb-dev file
	gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user
	libevent-dev libprotobuf-c-dev protobuf-c-compiler libsqlite3-dev
	libsystemd-dev sqlite3 systemd groff-base man-db"

missing=""
for p in $PACKAGES; do
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

echo "deps: missing Debian packages:$missing" >&2
echo "deps: install them with:  sudo apt-get install$missing" >&2
exit 1
