#!/bin/sh
# man.test.sh BUILD - the manual pages man/asteal.1 and man/asteald.8:
#  1. both render without a single warning, through groff with every
#     warning on (groff -man -ww) and through man-db's own pipeline
#     (man --warnings -l), and man-db's lexgrog parses their NAME line
#     (what whatis and apropos index);
#  2. each has the sections of a complete page (NAME, SYNOPSIS, DESCRIPTION,
#     OPTIONS, ENVIRONMENT, FILES, EXIT STATUS, EXAMPLES, SEE ALSO; asteald
#     also CONFIGURATION FILE, asteal also COMMANDS) and names
#     ASTEAL_VERSION in its title line;
#  3. asteald.8 and `asteald --help` list the same options, and each
#     configuration key of daemon/conf.h is in the page;
#  4. asteal.1 describes every command, and, once BUILD has asteal, every
#     option its help shows (`asteal --help`, `asteal help COMMAND`).
set -u

build=${1:?usage: sh tests/man.test.sh BUILD}
. scripts/lib.sh
test_tmp man

for tool in groff man lexgrog; do
	command -v "$tool" >/dev/null 2>&1 || fail "$tool is missing (scripts/deps.sh installs groff-base and man-db)"
done
version=$(sed -n 's/^#define ASTEAL_VERSION "\(.*\)"$/\1/p' client-lib/asteal.h)
[ -n "$version" ] || fail "no ASTEAL_VERSION in client-lib/asteal.h"

# The long options ("--name") in a text, one per line, sorted.
options() { grep -o -- '--[a-z][a-z-]*' "$1" | sort -u; }

for page in man/asteal.1 man/asteald.8; do
	name=$(basename "$page")
	# ---- 1. no warnings ----
	groff -man -ww -z -Tutf8 "$page" >"$tmp/groff.out" 2>&1 ||
		fail "$name: groff failed: $(cat "$tmp/groff.out")"
	[ ! -s "$tmp/groff.out" ] || fail "$name: groff warns: $(cat "$tmp/groff.out")"
	MANWIDTH=80 LC_ALL=C.UTF-8 man --warnings -l -Tutf8 "$page" >"$tmp/$name.raw" 2>"$tmp/man.err" ||
		fail "$name: man failed: $(cat "$tmp/man.err")"
	[ ! -s "$tmp/man.err" ] || fail "$name: man warns: $(cat "$tmp/man.err")"
	# Plain text to search: no overstrike or escape sequences.
	sed 's/\x1b\[[0-9;]*m//g' "$tmp/$name.raw" | sed 's/.\x08//g' >"$tmp/$name.txt"
	lexgrog "$page" >"$tmp/lexgrog.out" 2>&1 || fail "$name: lexgrog cannot parse NAME: $(cat "$tmp/lexgrog.out")"

	# ---- 2. sections and version ----
	sections="NAME|SYNOPSIS|DESCRIPTION|OPTIONS|ENVIRONMENT|FILES|EXIT STATUS|EXAMPLES|SEE ALSO"
	case $name in
	asteald.8) sections="$sections|CONFIGURATION FILE" ;;
	asteal.1) sections="$sections|COMMANDS" ;;
	esac
	old_ifs=$IFS
	IFS='|'
	for s in $sections; do
		grep -qx "$s" "$tmp/$name.txt" || fail "$name: no $s section"
	done
	IFS=$old_ifs
	grep -q "^\.TH .* \"asteal $version\" " "$page" || fail "$name: the title line does not name asteal $version"
	echo "$name: renders cleanly, $(wc -l <"$tmp/$name.txt") lines, all sections"
done

# ---- 3. asteald.8 and asteald --help ----
[ -x "$build/bin/asteald" ] || fail "$build/bin/asteald is not built"
"$build/bin/asteald" --help >"$tmp/asteald.help" || fail "asteald --help failed"
options "$tmp/asteald.help" >"$tmp/help.opts"
sed -n '/^OPTIONS$/,/^CONFIGURATION FILE$/p' "$tmp/asteald.8.txt" >"$tmp/asteald.options"
options "$tmp/asteald.options" | grep -vx -- '--name' >"$tmp/page.opts"
diff "$tmp/help.opts" "$tmp/page.opts" >"$tmp/opts.diff" ||
	fail "asteald --help (<) and asteald.8's OPTIONS (>) differ: $(cat "$tmp/opts.diff")"
keys=$(sed -n '/^ \* Config file:/,/^ \*\//p' daemon/conf.h | tr -d '\n' |
	sed 's/.*without the dashes (\([^)]*\)).*/\1/' | tr -d ' *' | tr ',' ' ')
[ -n "$keys" ] || fail "cannot read the configuration keys from daemon/conf.h"
sed -n '/^CONFIGURATION FILE$/,/^ENVIRONMENT$/p' "$tmp/asteald.8.txt" | tr -s ' \n' '  ' >"$tmp/conf.txt"
for k in $keys; do
	grep -q -- "$k" "$tmp/conf.txt" || fail "asteald.8: configuration key $k is not in CONFIGURATION FILE"
done
echo "asteald.8: the $(wc -l <"$tmp/help.opts") options of asteald --help, and the keys $keys"

# ---- 4. asteal.1: commands and options ----
for c in run submit wait cancel jobs history status help; do
	grep -q "^       $c\( \|$\)" "$tmp/asteal.1.txt" || fail "asteal.1: no entry for the command $c"
done
if [ -x "$build/bin/asteal" ]; then
	{
		"$build/bin/asteal" --help 2>&1
		for c in run submit wait cancel jobs history status; do
			"$build/bin/asteal" help "$c" 2>&1
		done
	} >"$tmp/asteal.help"
	for o in $(options "$tmp/asteal.help"); do
		grep -q -- "$o\([^a-z-]\|$\)" "$tmp/asteal.1.txt" || fail "asteal.1 does not describe $o (asteal's help shows it)"
	done
	echo "asteal.1: every command, and the $(options "$tmp/asteal.help" | wc -l) options of asteal's help"
else
	echo "asteal.1: every command ($build/bin/asteal not built: its help not compared)"
fi
echo ok
