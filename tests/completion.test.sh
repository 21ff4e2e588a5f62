#!/bin/sh
# completion.test.sh BUILD - completion/asteal.bash in bash: source it,
# fill COMP_WORDS and COMP_CWORD as bash does for a command line, call the
# completion function, and compare COMPREPLY:
#  1. it registers itself for `asteal`;
#  2. commands and global options; `help` completes commands;
#  3. each command's options; --format gives exactly table json csv (also
#     as --format=); --signal names (TERM, KILL, and SIGTERM after SIG);
#     --since offers relative times and words; --state the command's states;
#     --omp layer and system;
#  4. files for --output, --socket and --db, only *.svg (and folders) for --plot,
#     programs after `run --`;
#  5. job ids come from `asteal --json jobs` (a stand-in asteal that
#     records its arguments: --socket given on the line is passed on), and
#     there are none, silently, when asteal fails or is not installed;
#  6. once BUILD has asteal, every option its help shows for a command is
#     offered for that command.
set -u

build=${1:?usage: sh tests/completion.test.sh BUILD}
. scripts/lib.sh
test_tmp completion

command -v bash >/dev/null 2>&1 || fail "bash is missing"
script="$(pwd)/completion/asteal.bash"
[ -f "$script" ] || fail "no $script"

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
echo '{"jobs": [{"id": 7, "name": "fib", "pid": 70}, {"id":12,"name":"x","pid":99}]}'
EOF
chmod +x "$tmp/fake/asteal"
cpath="$tmp/none"

# ---- 2. commands and global options ----
expect "asteal" "cancel help history jobs run status submit wait" ""
expect "asteal" "help history" "h"
expect "asteal" "--help --json --socket --version" "--"
expect "asteal --json --socket /tmp/x.sock" "cancel help history jobs run status submit wait" ""
expect "asteal help" "cancel help history jobs run status submit wait" ""
echo "commands and global options: ok"

# ---- 3. options and their values ----
expect "asteal run" "-- --chdir --cpus --help --name --omp --stats" "-"
expect "asteal submit" "-- --chdir --cpus --error --help --name --omp --output --parsable --wrap" "-"
expect "asteal run --omp" "layer system" ""
expect "asteal submit --omp =" "system" "s"
expect "asteal run --cpus" "$(awk '/^processor/ { n++ } END { for (i = 1; i <= n; i++) s = s (i > 1 ? " " : "") i; print s }' /proc/cpuinfo)" ""
expect "asteal wait" "--help --timeout" "-"
expect "asteal cancel" "--help --name --signal --state --user" "-"
expect "asteal jobs" "--csv --format --help --interval --name --noheader --parsable --since --state --until --user --watch" "-"
expect "asteal history" "--csv --db --format --help --jobs --name --noheader --parsable --plot --since --state --until --user" "-"
expect "asteal history --state" "completed failed killed running unknown" ""
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
expect "asteal run --name" "" ""
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
echo "files and programs: ok"

# ---- 5. job ids ----
expect "asteal cancel" "" ""
[ ! -e "$tmp/asteal.args" ] || fail "a stand-in asteal ran without being on PATH"
cpath="$tmp/fake"
expect "asteal cancel" "12 7" ""
expect "asteal --socket $tmp/s.sock jobs 7" "12 7" ""
expect "asteal history" "12" "1"
grep -qx -- "--json jobs" "$tmp/asteal.args" || fail "asteal was not asked '--json jobs': $(cat "$tmp/asteal.args")"
grep -qx -- "--socket $tmp/s.sock --json jobs" "$tmp/asteal.args" ||
	fail "the line's --socket was not passed on: $(cat "$tmp/asteal.args")"
printf '#!/bin/sh\necho "no daemon" >&2\nexit 69\n' >"$tmp/fake/asteal"
expect "asteal wait" "" ""
echo "job ids: ok"

# ---- 6. asteal's own options ----
cpath="$tmp/none"
if [ -x "$build/bin/asteal" ]; then
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
