# shellcheck shell=sh
# lib.sh - what the benchmark scripts share.  Source it after setting
# bench_name (the script's name in messages) and limit (a cell's time
# limit in seconds):  . "$(dirname "$0")/lib.sh"
#
#   fail CMD RC OUT   print the failing command, its exit status and its
#                     output, and exit 1
#   job_time OUT RC CMD
#                     TIME becomes the time_s of a job run's output OUT
#                     (exit status RC; 124 is timeout's, shown as >LIMIT);
#                     a failed run or one without check=ok stops the
#                     script, naming CMD
#   steal, total      the host's steal ticks and all its ticks so far
#                     (/proc/stat, every CPU): a sitting's steal is the
#                     change of one over the change of the other

fail() {
	# shellcheck disable=SC2154  # set by the script that sources this
	echo "$bench_name: FAILED (exit $2): $1" >&2
	printf '%s\n' "$3" | sed 's/^/  | /' >&2
	exit 1
}

job_time() {
	if [ "$2" -eq 124 ]; then
		# shellcheck disable=SC2154  # set by the script that sources this
		TIME=">$limit"
		return 0
	fi
	jt_line=$(printf '%s\n' "$1" | grep '^job=' | tail -n 1)
	TIME=$(printf '%s\n' "$jt_line" |
	       sed -n 's/.* time_s=\([0-9.][0-9.]*\).*/\1/p')
	case "$jt_line" in
	*" check=ok"*) jt_ok=1 ;;
	*) jt_ok=0 ;;
	esac
	if [ "$2" -ne 0 ] || [ "$jt_ok" -eq 0 ] || [ -z "$TIME" ]; then
		fail "$3" "$2" "$1"
	fi
}

steal() { awk '/^cpu /{ print $9 }' /proc/stat; }
total() { awk '/^cpu /{ s = 0; for (i = 2; i <= NF; i++) s += $i; print s }' /proc/stat; }
