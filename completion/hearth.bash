# bash completion for hearth(1): commands, options, version ids and peer
# names. The commands, their options and what their arguments are come from
# the program itself (`hearth --dump-docs`, the table the CLI dispatches
# on), so a new command completes with no change here; version ids come
# from `hearth log --oneline`, peer names from `hearth config check`.
# Installed as $(PREFIX)/share/bash-completion/completions/hearth.

# The dump's records of one kind ("command" or "option"), tab separated.
_hearth_records()
{
	"${_hearth_program[@]}" --dump-docs 2>/dev/null | while IFS=$'\t' read -r kind rest; do
		[[ $kind == "$1" ]] && printf '%s\n' "$rest"
	done
}

_hearth_commands()
{
	_hearth_records command | cut -f1
}

# The flags of a command's options, and which of them take an argument:
# "-m, --message MSG" gives "-m MSG" and "--message MSG" on two lines.
_hearth_option_flags()
{
	local name text description flag argument
	local -a flags
	while IFS=$'\t' read -r name text description; do
		[[ $name == "$1" ]] || continue
		[[ $text == *"(global)"* ]] && continue
		argument=${text##* }
		[[ $argument == -* ]] && argument=
		IFS=' ' read -ra flags <<<"${text//,/ }"
		for flag in "${flags[@]}"; do
			[[ $flag == -* ]] && printf '%s %s\n' "$flag" "$argument"
		done
	done < <(_hearth_records option)
}

# hearth's global options as typed on this line (-c FILE), for the calls
# that read the Home.
_hearth_ask()
{
	"${_hearth_program[@]}" "${_hearth_globals[@]}" "$@" 2>/dev/null
}

_hearth_versions()
{
	printf '%s\n' head
	_hearth_ask log --oneline | cut -d' ' -f1
}

_hearth_peers()
{
	_hearth_ask config check | awk '
		/^peers:/ { inside = 1; next }
		/^[^ ]/ { inside = 0 }
		inside && /^  - name: / { name = $3; gsub(/"/, "", name); print name }'
}

# Adds to COMPREPLY the words on standard input that start with the
# current word (given with < <(...), since a pipe would run it in a subshell).
_hearth_add()
{
	local word
	while IFS= read -r word; do
		[[ -n $word && $word == "$_hearth_current"* ]] && COMPREPLY+=("$word")
	done
}

_hearth_add_files()
{
	local IFS=$'\n'
	COMPREPLY+=($(compgen -f -- "$_hearth_current"))
	compopt -o filenames 2>/dev/null
}

_hearth_add_folders()
{
	local IFS=$'\n'
	COMPREPLY+=($(compgen -d -- "$_hearth_current"))
	compopt -o filenames 2>/dev/null
}

# Completes one argument named by the usage's word for it: VERSION, PATH,
# FILE, DIR, COMMAND, PEER or a literal word such as "check".
_hearth_add_kind()
{
	case $1 in
	VERSION) _hearth_add < <(_hearth_versions) ;;
	PATH | FILE) _hearth_add_files ;;
	DIR) _hearth_add_folders ;;
	COMMAND) _hearth_add < <(_hearth_commands) ;;
	PEER)
		_hearth_add < <(_hearth_peers)
		_hearth_add_folders
		;;
	*[A-Z]*) ;;
	*) _hearth_add <<<"$1" ;;
	esac
}

_hearth()
{
	local -a words=("${COMP_WORDS[@]}") _hearth_program _hearth_globals
	local cword=$COMP_CWORD _hearth_current=${COMP_WORDS[COMP_CWORD]}
	local i=1 command=

	COMPREPLY=()
	_hearth_program=("${words[0]/#\~/$HOME}")

	# The program's options come before the command. bash splits
	# "--config=FILE" into three words at '='.
	for ((i = 1; i < cword; i++)); do
		case ${words[i]} in
		-c)
			_hearth_globals+=(-c "${words[i + 1]/#\~/$HOME}")
			((i++))
			;;
		--config)
			[[ ${words[i + 1]-} == "=" ]] && _hearth_globals+=(-c "${words[i + 2]/#\~/$HOME}")
			((i += 2))
			;;
		--config=*) _hearth_globals+=(-c "${words[i]#--config=}") ;;
		-*) ;;
		*)
			command=${words[i]}
			break
			;;
		esac
	done

	if [[ -z $command ]]; then
		if [[ ${words[cword - 1]} == -c ||
		    (${words[cword - 1]} == "=" && ${words[cword - 2]-} == --config) ]]; then
			_hearth_add_files
		elif [[ $_hearth_current == -* ]]; then
			_hearth_add < <(printf '%s\n' -c --config= -h --help --version)
			[[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == *= ]] && compopt -o nospace 2>/dev/null
		else
			_hearth_add < <(_hearth_commands)
		fi
		return 0
	fi

	local usage
	usage=$(_hearth_records command | awk -F'\t' -v name="$command" '$1 == name { print $2 }')
	local -A takes_argument=()
	local flag argument
	while read -r flag argument; do
		takes_argument[$flag]=$argument
	done < <(_hearth_option_flags "$command")

	# The argument of an option, named as an argument is: --take VERSION
	# gets version ids, -n N nothing.
	local previous=${words[cword - 1]}
	if ((cword - 1 > i)) && [[ -n ${takes_argument[$previous]-} ]]; then
		_hearth_add_kind "${takes_argument[$previous]}"
		return 0
	fi
	if [[ $_hearth_current == -* ]]; then
		_hearth_add < <(printf '%s\n' "${!takes_argument[@]}" --help | sort)
		return 0
	fi

	# Which argument this is, not counting options and their arguments.
	local position=0 j seen_flags=" "
	for ((j = i + 1; j < cword; j++)); do
		if [[ ${words[j]} == -* ]]; then
			seen_flags+="${words[j]} "
			[[ -n ${takes_argument[${words[j]}]-} ]] && ((j++))
		else
			((position++))
		fi
	done

	# The usage without its optional options: "[-p] VERSION [PATH] | --cat
	# VERSION PATH" gives two forms; use the first whose flags were all
	# typed. A flag's argument ("--take VERSION") is not an argument slot;
	# "--mine|--theirs" is one of several flags, "ID|PATH" one of several
	# kinds of argument.
	local form chosen= word skip alternative
	local -a forms slots form_words alternatives
	while [[ $usage =~ \[-[^][]*\] ]]; do
		usage=${usage/"${BASH_REMATCH[0]}"/}
	done
	IFS=$'\x1f' read -ra forms <<<"${usage// | /$'\x1f'}"
	for form in "${forms[@]}"; do
		chosen=$form
		local all_seen=1
		IFS=' ' read -ra form_words <<<"$form"
		for word in "${form_words[@]}"; do
			[[ $word == -* && $seen_flags != *" $word "* ]] && all_seen=0
		done
		((all_seen)) && break
	done
	skip=0
	IFS=' ' read -ra form_words <<<"$chosen"
	for word in "${form_words[@]}"; do
		if ((skip)); then
			skip=0
		elif [[ $word == -* ]]; then
			IFS='|' read -ra alternatives <<<"$word"
			for alternative in "${alternatives[@]}"; do
				[[ -n ${takes_argument[$alternative]-} ]] && skip=1
			done
		else
			slots+=("$word")
		fi
	done
	((${#slots[@]})) || return 0

	local slot last=$((${#slots[@]} - 1))
	if ((position > last)); then
		[[ ${slots[last]} == *... || ${slots[last]} == *...\] ]] || return 0
		slot=${slots[last]}
	else
		slot=${slots[position]}
	fi
	# An optional argument that may also be the next one: `ls [VERSION]
	# [PATH]` takes a version or a path there.
	[[ $slot == \[*\] ]] && ((position < last)) && slot+="|${slots[position + 1]}"
	local kind
	IFS='|' read -ra alternatives <<<"$slot"
	for kind in "${alternatives[@]}"; do
		_hearth_add_kind "${kind//[\[\].]/}"
	done
	return 0
}

complete -F _hearth hearth
