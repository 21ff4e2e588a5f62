# asteal.bash - bash completion for asteal(1), the command line of the
# asteal scheduler.  Installed by `make install` as
# $(BASHCOMPDIR)/asteal (bash-completion loads it on first use); or
# `. completion/asteal.bash` by hand.  Self-contained: it uses the
# bash-completion package's helpers only when they are loaded.
#
# Completes the global options, the commands, each command's options, the
# values of --format, --state, --user, --since, --until, --signal, --cpus
# and --omp, files for --socket, --output, --error, --db and --plot,
# the program after `run --` and `submit --`, and job ids (of the running
# jobs, from `asteal --json jobs`, asked with a one-second bound; nothing
# when asteal or its daemon is missing).  Options may be given as
# "--name value" or "--name=value".  tests/completion.test.sh checks it.

_asteal_commands="run submit wait cancel jobs history status help"

# The options of one command.
_asteal_options()
{
	case $1 in
	run) echo "--name --cpus --omp --chdir --stats --help --" ;;
	submit) echo "--name --cpus --omp --output --error --chdir --wrap --parsable" \
		"--help --" ;;
	wait) echo "--timeout --help" ;;
	cancel) echo "--signal --user --name --state --help" ;;
	jobs) echo "--watch --interval --user --name --state --since --until" \
		"--format --noheader --parsable --csv --help" ;;
	history) echo "--jobs --user --name --state --since --until --format" \
		"--noheader --parsable --csv --plot --db --help" ;;
	status) echo "--help" ;;
	esac
}

# Signal names, without and (when the word starts so) with "SIG"; the
# real-time ones are left out.
_asteal_signals()
{
	local s names=""
	for s in $(compgen -A signal); do
		case $s in
		SIGRTMIN* | SIGRTMAX*) continue ;;
		esac
		case $1 in
		SIG*) names="$names $s" ;;
		*) names="$names ${s#SIG}" ;;
		esac
	done
	echo "$names"
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
# or empty for the default).  Silent and empty on any failure.
_asteal_job_ids()
{
	command -v asteal >/dev/null 2>&1 || return 0
	local out bound=""
	command -v timeout >/dev/null 2>&1 && bound="timeout 1"
	if [ -n "$1" ]; then
		out=$($bound asteal --socket "$1" --json jobs 2>/dev/null) || return 0
	else
		out=$($bound asteal --json jobs 2>/dev/null) || return 0
	fi
	printf '%s\n' "$out" | grep -o '"id" *: *"\{0,1\}[0-9][0-9]*' | grep -o '[0-9][0-9]*$'
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
	local cur prev i w cmd="" cmd_at=0 socket="" dashdash=0
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

	# Find the command (the first word that is not a global option or
	# its value) and the socket named before it.
	i=1
	while [ "$i" -lt "$COMP_CWORD" ]; do
		w=${COMP_WORDS[i]}
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
		-*) ;;
		*)
			cmd=$w
			cmd_at=$i
			break ;;
		esac
		i=$((i + 1))
	done

	# After "run --" or "submit --": the program, then its arguments.
	if [ -n "$cmd" ]; then
		i=$((cmd_at + 1))
		while [ "$i" -lt "$COMP_CWORD" ]; do
			if [ "${COMP_WORDS[i]}" = "--" ]; then
				dashdash=$i
				break
			fi
			i=$((i + 1))
		done
	fi
	if [ "$dashdash" -gt 0 ]; then
		if declare -F _command_offset >/dev/null 2>&1; then
			_command_offset $((dashdash + 1))
		elif [ "$COMP_CWORD" -eq $((dashdash + 1)) ]; then
			mapfile -t COMPREPLY < <(compgen -c -- "$cur")
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
	-o)
		# submit's output file; the columns of jobs and history
		if [ "$cmd" = submit ]; then
			_asteal_files "" "$cur"
		else
			_asteal_words "table json csv" "$cur"
		fi
		return 0 ;;
	--format)
		_asteal_words "table json csv" "$cur"
		return 0 ;;
	--state)
		if [ "$cmd" = history ]; then
			_asteal_words "running completed failed killed unknown" "$cur"
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
	--name | --timeout | --interval | -J | -t)
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
	wait | cancel | jobs | history)
		_asteal_words "$(_asteal_job_ids "$socket")" "$cur" ;;
	esac
	return 0
}

complete -F _asteal asteal
