# lib.sh - what the shell tests and the demo share.  Source it from the top
# of the tree:  . scripts/lib.sh
#
#   test_tmp NAME     make a private temporary folder, $tmp, removed at exit
#                     after the test's daemon ($daemon_pid) and the test's
#                     own children are killed; a test with more to undo
#                     defines test_cleanup, which runs first
#   fail MESSAGE...   print "FAILED: MESSAGE" (and the tail of
#                     $tmp/daemon.log when there is one) and exit 1
#   wait_for SECONDS COMMAND...
#                     run COMMAND until it succeeds, for at most SECONDS:
#                     status 0 when it did, 1 when the time ran out
#   daemon_start ARGS...
#                     start "$build/bin/asteald" --foreground --socket
#                     "$sock" ARGS..., its output appended to $log, and
#                     wait (20 s) until it has said its n-th "listening"
#                     line, n the starts so far (a restarted daemon's
#                     too); its pid in $daemon_pid
#   daemon_stop       SIGTERM it; fail unless it exits 0
#   day_wait          in the last two minutes of a day, wait for the
#                     next: `asteal history` shows today by default, so a
#                     test that reads back its jobs so must not straddle
#                     midnight

daemon_pid=""

test_tmp() {
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/asteal-$1.XXXXXX") || exit 1
	trap test_exit EXIT
	trap 'exit 1' HUP INT TERM
}

test_exit() {
	# Under set -e too: nothing here may stop the removal.
	if command -v test_cleanup >/dev/null 2>&1; then
		test_cleanup || true
	fi
	if [ -n "$daemon_pid" ]; then
		kill "$daemon_pid" 2>/dev/null || true
	fi
	pkill -P $$ 2>/dev/null || true
	rm -rf "$tmp"
}

fail() {
	echo "FAILED: $*"
	if [ -f "${tmp:-}/daemon.log" ]; then
		sed 's/^/  daemon| /' "$tmp/daemon.log" | tail -20
	fi
	exit 1
}

# Run CMD... with its output in $tmp/out and $tmp/err, and fail unless it
# exits WANT: expect_rc WANT CMD... (whether or not set -e is on).
expect_rc() {
	want=$1
	shift
	case $- in *e*) errexit=1; set +e ;; *) errexit=0 ;; esac
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$errexit" -eq 0 ] || set -e
	[ "$rc" -eq "$want" ] || fail "$*: exit $rc, expected $want: $(cat "$tmp/err")"
}

wait_for() {
	limit=$1
	shift
	end=$(($(date +%s) + limit))
	until "$@"; do
		[ "$(date +%s)" -ge "$end" ] && return 1
		sleep 0.05
	done
}

daemon_starts=0

# Whether the daemon has said "listening" as often as it was started.
daemon_listening() {
	up=$(grep -c 'listening on' "$log" 2>/dev/null)
	[ "${up:-0}" -ge "$daemon_starts" ]
}

daemon_start() {
	daemon_starts=$((daemon_starts + 1))
	"$build/bin/asteald" --foreground --socket "$sock" "$@" >>"$log" 2>&1 &
	daemon_pid=$!
	wait_for 20 daemon_listening || fail "the daemon did not start"
}

daemon_stop() {
	kill -TERM "$daemon_pid"
	wait "$daemon_pid" || fail "the daemon exited with $? on SIGTERM"
	daemon_pid=""
}

# Whether local midnight is less than two minutes away.
day_late() { [ $(($(date -d 'tomorrow 00:00' +%s) - $(date +%s))) -lt 120 ]; }
day_not_late() { ! day_late; }

day_wait() {
	wait_for 130 day_not_late || fail "the day did not turn"
}
