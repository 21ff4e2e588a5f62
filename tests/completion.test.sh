#!/bin/sh
# completion.test.sh BUILD - completion/asteal.bash in bash: source it,
# fill COMP_WORDS and COMP_CWORD as bash does for a command line, call the
# completion function, and compare COMPREPLY:
#  1. it registers itself for `asteal`;
#  2. commands and global options; `help` completes commands;
#  3. each command's options; --format gives exactly table json csv (also
#     as --format=); --signal names (TERM, KILL, and SIGTERM after SIG);
#     -s too, in the case typed (te: term); --since offers relative times
#     and words; --state the command's states;
#     --omp layer and system;
#  4. files for --output, --socket and --db, only *.svg (and folders) for --plot,
#     programs after `run --` and `run` (each once, none of the shell's
#     own names), then files;
#  5. job ids come from `asteal --json jobs`, and for history from `asteal
#     history --jobs --since @0 --format id` (ended jobs too, of any day) (a stand-in asteal that
#     records its arguments: --socket given on the line, before or after
#     the command, is passed on), and there are none, silently, when
#     asteal fails or is not installed, or does not answer within
#     ASTEAL_COMPLETION_TIMEOUT seconds;
#  6. once BUILD has asteal, every option its help shows for a command is
#     offered for that command, and -o/--format offer the command's
#     columns (asteal CMD --helpformat), after a list's comma too.
set -u

build=${1:?usage: sh tests/completion.test.sh BUILD}
. scripts/lib.sh
test_tmp completion

command -v bash >/dev/null 2>&1 || fail "bash is missing"
script="$(pwd)/completion/asteal.bash"
[ -f "$script" ] || fail "no $script"
# The completion waits a second for asteal, as a user at a terminal would;
# here, in run.sh's idle lane beside other tests and a sanitizer build's
# asteal, a second can pass before asteal gets a CPU: 120 s bounds it
# (section 5 checks the bound itself).
export ASTEAL_COMPLETION_TIMEOUT=120

# complete WORD... : COMPREPLY for the command line WORD... (the last word
# is the one being completed; "" for a new word), one per line, sorted;
# stderr too, so that any error shows.
# The completion runs with PATH=$cpath: a folder of stand-ins, so that no
# real asteal or daemon is asked.
cat >"$tmp/drive.bash" <<'EOF'
. "$ASTEAL_COMPLETION" || exit 1
COMP_WORDS=("$@")
COMP_CWORD=$(($# - 1))
COMP_LINE="$*"
COMP_POINT=${#COMP_LINE}
saved_path=$PATH
PATH=$ASTEAL_TEST_PATH
_asteal || exit 1
PATH=$saved_path
[ ${#COMPREPLY[@]} -gt 0 ] && printf '%s\n' "${COMPREPLY[@]}" | sort
exit 0
EOF
complete_line() {
	ASTEAL_COMPLETION="$script" ASTEAL_TEST_PATH="$cpath" bash "$tmp/drive.bash" "$@" 2>&1
}
# expect "WORDS" "EXPECTED": the replies are exactly EXPECTED (words).
expect() {
	# shellcheck disable=SC2086
	got=$(complete_line $1 "${3-}" | tr '\n' ' ' | sed 's/ $//')
	[ "$got" = "$2" ] || fail "'$1 ${3-}<TAB>' gave '$got', expected '$2'"
}
# has "WORDS" "CUR" "WORD..." : the replies include each WORD.
has() {
	# shellcheck disable=SC2086
	complete_line $1 "$2" >"$tmp/got"
	for w in $3; do
		grep -qx -- "$w" "$tmp/got" || fail "'$1 $2<TAB>' lacks $w: $(tr '\n' ' ' <"$tmp/got")"
	done
}
# hasnt "WORDS" "CUR" "WORD..." : the replies include none of the WORDs.
hasnt() {
	# shellcheck disable=SC2086
	complete_line $1 "$2" >"$tmp/got"
	for w in $3; do
		! grep -qx -- "$w" "$tmp/got" || fail "'$1 $2<TAB>' offers $w"
	done
}

# ---- 1. registered ----
reg=$(bash -c '. "$1" && complete -p asteal' sh "$script" 2>&1)
[ "$reg" = "complete -F _asteal asteal" ] || fail "not registered for asteal: $reg"

# Two PATHs for the completion: one with a stand-in asteal, one with none;
# both with the tools the completion uses, and bash (a program to offer).
mkdir -p "$tmp/fake" "$tmp/none"
for t in grep timeout bash; do
	ln -s "$(command -v $t)" "$tmp/fake/$t"
	ln -s "$(command -v $t)" "$tmp/none/$t"
done
cat >"$tmp/fake/asteal" <<EOF
#!/bin/sh
echo "\$*" >>"$tmp/asteal.args"
case "\$*" in
*history*) printf '3\\n12\\n40\\n' ;;
*) echo '{"jobs": [{"id": 7, "name": "fib", "pid": 70}, {"id":12,"name":"x","pid":99}]}' ;;
esac
EOF
chmod +x "$tmp/fake/asteal"
cpath="$tmp/none"

# ---- 2. commands and global options ----
expect "asteal" "cancel help history jobs run show status submit wait" ""
expect "asteal" "help history" "h"
expect "asteal" "--help --json --socket --version" "--"
expect "asteal --json --socket /tmp/x.sock" "cancel help history jobs run show status submit wait" ""
expect "asteal help" "cancel help history jobs run show status submit wait" ""
echo "commands and global options: ok"

# ---- 3. options and their values ----
expect "asteal run" "-- --chdir --cpus --help --json --name --omp --socket --stats --time" "-"
expect "asteal submit" "-- --chdir --cpus --error --help --json --name --omp --output --parsable --socket --time --wrap" "-"
expect "asteal run --omp" "layer system" ""
expect "asteal submit --omp =" "system" "s"
expect "asteal run --cpus" "$(awk '/^processor/ { n++ } END { for (i = 1; i <= n; i++) s = s (i > 1 ? " " : "") i; print s }' /proc/cpuinfo)" ""
expect "asteal wait" "--help --json --socket --timeout" "-"
expect "asteal cancel" "--help --json --name --signal --socket --state --user" "-"
expect "asteal jobs" "--csv --format --help --helpformat --interval --json --name --noheader --parsable --since --socket --state --until --user --watch" "-"
expect "asteal history" "--csv --db --format --help --helpformat --jobs --json --limit --name --noheader --parsable --plot --since --socket --state --until --user" "-"
expect "asteal history --state" "completed failed killed running timeout unknown" ""
expect "asteal jobs --state" "waiting" "w"
expect "asteal history --format" "csv json table" ""
expect "asteal history --format" "json" "j"
expect "asteal history --format =" "csv json table" ""
expect "asteal --json history 3 --since -1h --format" "csv json table" ""
has "asteal cancel --signal" "" "TERM KILL INT HUP USR1"
hasnt "asteal cancel --signal" "" "SIGTERM RTMIN+1"
has "asteal cancel --signal" "T" "TERM TRAP"
hasnt "asteal cancel --signal" "T" "KILL SIGTERM"
has "asteal cancel --signal" "SIGT" "SIGTERM"
has "asteal history --since" "" "now -1h today yesterday"
has "asteal cancel -s" "" "TERM KILL INT HUP USR1"
expect "asteal cancel -s" "term" "te"
expect "asteal cancel 3 --signal" "sigkill" "sigk"
expect "asteal run --name" "" ""
expect "asteal submit --time" "" ""
expect "asteal run -t 5 -J x --json" "bash" "bas"
echo "options and values: ok"

# ---- 4. files and programs ----
mkdir -p "$tmp/f/sub"
: >"$tmp/f/a.svg"
: >"$tmp/f/b.txt"
has "asteal history --plot" "$tmp/f/" "$tmp/f/a.svg $tmp/f/sub"
hasnt "asteal history --plot" "$tmp/f/" "$tmp/f/b.txt"
has "asteal submit --output" "$tmp/f/" "$tmp/f/a.svg $tmp/f/b.txt"
has "asteal submit -e" "$tmp/f/" "$tmp/f/a.svg $tmp/f/b.txt"
has "asteal --socket" "$tmp/f/" "$tmp/f/b.txt"
has "asteal history --db" "$tmp/f/" "$tmp/f/a.svg $tmp/f/b.txt $tmp/f/sub"
has "asteal run --stats --" "bas" "bash"
has "asteal submit --name x --" "bas" "bash"
has "asteal run -- ls" "$tmp/f/" "$tmp/f/b.txt"
# programs: each once (bash in two folders of the PATH), never the
# completion's own functions nor builtins; without "--" too
mkdir -p "$tmp/none2"
ln -s "$(command -v bash)" "$tmp/none2/bash"
cpath="$tmp/none:$tmp/none2"
expect "asteal run --" "bash" "bas"
expect "asteal run --" "" "_ast"
expect "asteal submit --" "" "compg"
expect "asteal run" "bash" "bas"
expect "asteal run -J x -c 2 --json" "bash" "bas"
has "asteal run bash" "$tmp/f/" "$tmp/f/b.txt"
cpath="$tmp/none"
echo "files and programs: ok"

# ---- 5. job ids ----
expect "asteal cancel" "" ""
[ ! -e "$tmp/asteal.args" ] || fail "a stand-in asteal ran without being on PATH"
cpath="$tmp/fake"
expect "asteal cancel" "12 7" ""
expect "asteal --socket $tmp/s.sock jobs 7" "12 7" ""
expect "asteal history" "12" "1"
expect "asteal history" "12 3 40" ""
grep -qx -- "history --jobs --since @0 --format id --noheader" "$tmp/asteal.args" ||
	fail "history's ids were not asked of the history: $(cat "$tmp/asteal.args")"
expect "asteal history --socket $tmp/s.sock" "40" "4"
grep -qx -- "--socket $tmp/s.sock history --jobs --since @0 --format id --noheader" "$tmp/asteal.args" ||
	fail "the socket after the command was not passed on: $(cat "$tmp/asteal.args")"
grep -qx -- "--json jobs" "$tmp/asteal.args" || fail "asteal was not asked '--json jobs': $(cat "$tmp/asteal.args")"
grep -qx -- "--socket $tmp/s.sock --json jobs" "$tmp/asteal.args" ||
	fail "the line's --socket was not passed on: $(cat "$tmp/asteal.args")"
printf '#!/bin/sh\necho "no daemon" >&2\nexit 69\n' >"$tmp/fake/asteal"
expect "asteal wait" "" ""
# An asteal that answers after 2 s: no ids within a bound of 1 s, its ids
# within the test's (timeout is on the PATH here).
cat >"$tmp/fake/asteal" <<EOF
#!/bin/sh
$(command -v sleep) 2
echo '{"jobs": [{"id": 7, "name": "fib", "pid": 70}]}'
EOF
cpath="$tmp/fake:$tmp/none"
got=$(ASTEAL_COMPLETION_TIMEOUT=1 complete_line asteal cancel "" | tr '\n' ' ')
[ -z "$got" ] || fail "'asteal cancel <TAB>' with an asteal slower than the 1 s bound gave '$got'"
expect "asteal cancel" "7" ""
cpath="$tmp/fake"
echo "job ids: ok"

# ---- 6. asteal's own options and columns ----
cpath="$tmp/none"
if [ -x "$build/bin/asteal" ]; then
	mkdir -p "$tmp/real"
	ln -s "$(cd "$build/bin" && pwd)/asteal" "$tmp/real/asteal"
	cpath="$tmp/real:$tmp/none"
	has "asteal jobs -o" "" "id name eff cputime command table json csv"
	expect "asteal jobs --format" "id,name,uid id,name,user" "id,name,u"
	expect "asteal history --jobs -o" "elapsed" "el"
	expect "asteal history -o" "" "el"
	has "asteal history -o" "" "allot desire class"
	expect "asteal jobs -o" "pid,preempted" "pid,p"
	echo "columns from asteal's --helpformat"
	cpath="$tmp/none"
	for c in run submit wait cancel jobs history; do
		for o in $("$build/bin/asteal" help "$c" 2>&1 | grep -o -- '--[a-z][a-z-]*' | sort -u); do
			case $o in --socket | --json | --version) continue ;; esac
			has "asteal $c" "-" "$o"
		done
	done
	echo "every option of asteal's help is offered"
else
	echo "$build/bin/asteal not built: its help not compared"
fi
echo ok
