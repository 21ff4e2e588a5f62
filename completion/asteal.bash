# asteal.bash - bash completion for asteal(1), the command line of the
# asteal scheduler.  Installed by `make install` as
# $(BASHCOMPDIR)/asteal (bash-completion loads it on first use); or
# `. completion/asteal.bash` by hand.  Self-contained: it uses the
# bash-completion package's helpers only when they are loaded.
#
# Completes the global options (before the command or after it, as asteal
# takes them), the commands, each command's options, the values of
# --format and -o (the command's columns, from `asteal CMD --helpformat`,
# after the commas of a list too; or table, json, csv), --state, --user,
# --since, --until, --signal (names in the case typed: TERM, term,
# SIGTERM), --cpus and --omp, files for --socket, --output, --error, --db
# and --plot, the program of `run` and `submit` (the executables on PATH,
# each once: no shell functions, builtins or aliases, which asteal cannot
# run) and then its arguments, and job ids: the running jobs', from
# `asteal --json jobs`, and for `history` every job the history has, from
# `asteal history --jobs --since @0 --format id` (the whole history, not
# the command's default of today), each asked with a one-second bound
# (nothing when asteal or its daemon is missing).  Options may be given as
# "--name value" or "--name=value".  tests/completion.test.sh checks it.

_asteal_commands="run submit wait cancel jobs history status show help"

# The options of one command.
_asteal_options()
{
	case $1 in
	run) echo "--name --cpus --omp --chdir --time --stats --help --" ;;
	submit) echo "--name --cpus --omp --output --error --chdir --time --wrap" \
		"--parsable --help --" ;;
	wait) echo "--timeout --help" ;;
	cancel) echo "--signal --user --name --state --help" ;;
	jobs) echo "--watch --interval --user --name --state --since --until" \
		"--format --helpformat --noheader --parsable --csv --help" ;;
	history) echo "--jobs --user --name --state --since --until --format" \
		"--helpformat --noheader --parsable --csv --limit --plot --db --help" ;;
	status | show) echo "--help" ;;
	esac
	# the global options, which asteal takes after the command too
	case $1 in
	run | submit | wait | cancel | jobs | history | status | show)
		echo "--socket --json" ;;
	esac
}

# Whether option $2 of command $1 takes the next word as its value.
_asteal_valued()
{
	case $2 in
	--socket) return 0 ;;
	-J | --name | -c | --cpus | --omp | -D | --chdir | -t | --time)
		[[ $1 == run || $1 == submit ]] && return 0 ;;
	esac
	case $1 in
	submit)
		[[ $2 == -o || $2 == --output || $2 == -e || $2 == --error ||
		   $2 == --wrap ]] ;;
	wait) [[ $2 == -t || $2 == --timeout ]] ;;
	cancel)
		[[ $2 == -s || $2 == --signal || $2 == -u || $2 == --user ||
		   $2 == --name || $2 == --state ]] ;;
	jobs | history)
		case $2 in
		-u | --user | --name | --state | -S | --since | -E | --until | -o | \
		--format | --interval | --limit | --plot | --db) return 0 ;;
		esac
		return 1 ;;
	*) return 1 ;;
	esac
}

# Signal names, without and (when the word starts so) with "SIG", in
# lower case when the word is (asteal takes any case); the real-time ones
# are left out.
_asteal_signals()
{
	local s names=""
	for s in $(compgen -A signal); do
		case $s in
		SIGRTMIN* | SIGRTMAX*) continue ;;
		esac
		case $1 in
		SIG* | sig*) ;;
		*) s=${s#SIG} ;;
		esac
		case $1 in
		[a-z]*) s=${s,,} ;;
		esac
		names="$names $s"
	done
	echo "$names"
}

# The programs asteal can run whose names start with $1: the executable
# files of the PATH's folders, each name once (a program is asteal's to
# exec: no function, builtin or alias); a word with a slash: files and
# folders.
_asteal_programs()
{
	local dir f seen=" " IFS=:
	if [[ $1 == */* ]]; then
		compopt -o filenames 2>/dev/null
		IFS=$'\n'
		for f in $(compgen -f -- "$1"); do
			[ -d "$f" ] || [ -x "$f" ] && printf '%s\n' "$f"
		done
		return 0
	fi
	for dir in $PATH; do
		[ -d "${dir:-.}" ] || continue
		IFS=$'\n'
		for f in $(compgen -f -- "${dir:-.}/$1"); do
			f=${f##*/}
			[[ $seen == *" $f "* ]] && continue
			[ -x "${dir:-.}/$f" ] && [ ! -d "${dir:-.}/$f" ] || continue
			seen="$seen$f "
			printf '%s\n' "$f"
		done
		IFS=:
	done
}

# asteal itself, bounded to ASTEAL_COMPLETION_TIMEOUT seconds (1 unless
# set), with the line's --socket ($1, may be empty) and the arguments
# after it: its output, or nothing on any failure.
_asteal_ask()
{
	command -v asteal >/dev/null 2>&1 || return 0
	local bound="" socket=$1
	shift
	command -v timeout >/dev/null 2>&1 &&
		bound="timeout ${ASTEAL_COMPLETION_TIMEOUT:-1}"
	if [ -n "$socket" ]; then
		$bound asteal --socket "$socket" "$@" 2>/dev/null
	else
		$bound asteal "$@" 2>/dev/null
	fi
}

# The columns of command $1 (history with --jobs when $2 is 1), in lower
# case, from `asteal CMD --helpformat` (which needs no daemon).
_asteal_columns()
{
	local line
	if [ "$2" = 1 ]; then
		_asteal_ask "" "$1" --jobs --helpformat
	else
		_asteal_ask "" "$1" --helpformat
	fi | while read -r line; do
		line=${line%% *}
		[ -n "$line" ] && [ "$line" != COLUMN ] && printf '%s\n' "${line,,}"
	done
}

# 1 to the number of CPUs online (from /proc/cpuinfo, with builtins only).
_asteal_cpu_counts()
{
	local line n=0 i out=""
	while read -r line; do
		[[ $line == processor* ]] && n=$((n + 1))
	done </proc/cpuinfo 2>/dev/null
	for ((i = 1; i <= (n > 0 ? n : 1); i++)); do
		out="$out $i"
	done
	echo "$out"
}

# The ids of the running jobs, from the daemon named by $1 (a socket path,
# or empty for the default); with $2 = history, of every job in the
# history, ended or running.  Silent and empty on any failure.
_asteal_job_ids()
{
	local out line
	if [ "${2:-}" = history ]; then
		out=$(_asteal_ask "$1" history --jobs --since @0 --format id --noheader) || return 0
		printf '%s\n' "$out" | while read -r line; do
			[[ $line =~ ^[0-9]+$ ]] && printf '%s\n' "$line"
		done
		return 0
	fi
	out=$(_asteal_ask "$1" --json jobs) || return 0
	printf '%s\n' "$out" | grep -o '"id" *: *"\{0,1\}[0-9][0-9]*' | grep -o '[0-9][0-9]*$'
}

# COMPREPLY for a comma-separated list $2 of the words $1: the words not
# yet in it after its last comma, each with the list before.
_asteal_list()
{
	local before="" last=$2 w
	if [[ $2 == *,* ]]; then
		before=${2%,*},
		last=${2##*,}
	fi
	COMPREPLY=()
	for w in $1; do
		[[ ,$before == *",$w,"* ]] && continue
		[[ $w == "${last,,}"* ]] && COMPREPLY+=("$before$w")
	done
}

# COMPREPLY from a word list, or files (with a pattern in $3: the files
# matching it, and folders); one reply per line, so names may hold blanks.
_asteal_words() { mapfile -t COMPREPLY < <(compgen -W "$1" -- "$2"); }
_asteal_files()
{
	compopt -o filenames 2>/dev/null
	if [ -n "${3:-}" ]; then
		mapfile -t COMPREPLY < <(compgen -f -X "!$3" -- "$2"; compgen -d -- "$2")
	else
		mapfile -t COMPREPLY < <(compgen -f -- "$2")
	fi
}

_asteal()
{
	local cur prev i w cmd="" cmd_at=0 socket="" dashdash=0 program=0 jobs=0
	COMPREPLY=()
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=""
	[ "$COMP_CWORD" -gt 0 ] && prev=${COMP_WORDS[COMP_CWORD - 1]}
	# "--opt=value": bash splits at '=' (COMP_WORDBREAKS); put it back
	# together as prev="--opt", cur="value".
	if [ "$cur" = "=" ] && [[ $prev == --* ]]; then
		cur=""
	elif [ "$prev" = "=" ] && [ "$COMP_CWORD" -gt 1 ] &&
	     [[ ${COMP_WORDS[COMP_CWORD - 2]} == --* ]]; then
		prev=${COMP_WORDS[COMP_CWORD - 2]}
	fi

	# Walk the words before the cursor: the command (the first word that
	# is not a global option or its value), the socket named before or
	# after it, history's --jobs, and for run and submit where the
	# program is: after "--", or the first word that is neither an
	# option nor an option's value.
	i=1
	while [ "$i" -lt "$COMP_CWORD" ]; do
		w=${COMP_WORDS[i]}
		if [ "$dashdash" -eq 0 ] && [ "$program" -eq 0 ]; then
			case $w in
			--socket)
				if [ "${COMP_WORDS[i + 1]:-}" = "=" ]; then
					socket=${COMP_WORDS[i + 2]:-}
					i=$((i + 3))
				else
					socket=${COMP_WORDS[i + 1]:-}
					i=$((i + 2))
				fi
				continue ;;
			--)
				[ -n "$cmd" ] && dashdash=$i ;;
			--jobs)
				jobs=1 ;;
			-*)
				if [ -n "$cmd" ] && _asteal_valued "$cmd" "$w"; then
					[ "${COMP_WORDS[i + 1]:-}" = "=" ] && i=$((i + 1))
					i=$((i + 1))
				fi ;;
			*)
				if [ -z "$cmd" ]; then
					cmd=$w
					cmd_at=$i
				elif [[ $cmd == run || $cmd == submit ]]; then
					program=$i
				fi ;;
			esac
		fi
		i=$((i + 1))
	done

	# run's and submit's program, then its arguments.
	if [ "$dashdash" -gt 0 ] || [ "$program" -gt 0 ]; then
		[ "$program" -gt 0 ] || program=$((dashdash + 1))
		if [ "$COMP_CWORD" -eq "$program" ]; then
			mapfile -t COMPREPLY < <(_asteal_programs "$cur")
		elif declare -F _command_offset >/dev/null 2>&1; then
			_command_offset "$program"
		else
			_asteal_files "" "$cur"
		fi
		return 0
	fi

	# The value of an option.
	case $prev in
	--socket | --output | --db | --error | -e)
		_asteal_files "" "$cur"
		return 0 ;;
	--plot)
		_asteal_files "" "$cur" "*.svg"
		return 0 ;;
	--chdir | -D)
		mapfile -t COMPREPLY < <(compgen -d -- "$cur")
		return 0 ;;
	--wrap)
		return 0 ;;
	-o | --format)
		# submit's output file; the columns of jobs and history
		if [ "$cmd" = submit ]; then
			_asteal_files "" "$cur"
		elif [[ $cmd == jobs || $cmd == history ]]; then
			_asteal_list "$(_asteal_columns "$cmd" "$jobs")" "$cur"
			[[ $cur == *,* ]] || _asteal_list "${COMPREPLY[*]} table json csv" "$cur"
		else
			_asteal_words "table json csv" "$cur"
		fi
		return 0 ;;
	--state)
		if [ "$cmd" = history ]; then
			_asteal_words "running completed failed killed unknown timeout" "$cur"
		else
			_asteal_words "running waiting idle unmanaged stopped" "$cur"
		fi
		return 0 ;;
	--user | -u)
		mapfile -t COMPREPLY < <(compgen -u -- "$cur")
		return 0 ;;
	--signal | -s)
		_asteal_words "$(_asteal_signals "$cur")" "$cur"
		return 0 ;;
	--since | --until | -S | -E)
		_asteal_words "now today yesterday -30s -5min -1h -1d" "$cur"
		return 0 ;;
	--cpus | -c)
		_asteal_words "$(_asteal_cpu_counts)" "$cur"
		return 0 ;;
	--omp)
		_asteal_words "layer system" "$cur"
		return 0 ;;
	--name | --timeout | --time | --interval | --limit | -J | -t)
		return 0 ;;
	esac

	if [ -z "$cmd" ]; then
		if [[ $cur == -* ]]; then
			_asteal_words "--socket --json --help --version -h -V" "$cur"
		else
			_asteal_words "$_asteal_commands" "$cur"
		fi
		return 0
	fi

	if [[ $cur == -* ]]; then
		_asteal_words "$(_asteal_options "$cmd")" "$cur"
		return 0
	fi
	case $cmd in
	help)
		[ "$COMP_CWORD" -eq $((cmd_at + 1)) ] &&
			_asteal_words "$_asteal_commands" "$cur" ;;
	run | submit)
		mapfile -t COMPREPLY < <(_asteal_programs "$cur") ;;
	wait | cancel | jobs)
		_asteal_words "$(_asteal_job_ids "$socket")" "$cur" ;;
	history | show)
		_asteal_words "$(_asteal_job_ids "$socket" history)" "$cur" ;;
	esac
	return 0
}

complete -F _asteal asteal
