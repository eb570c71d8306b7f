#!/bin/sh
test_description='the bash and zsh completions offer commands, options, version ids and peer names'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"

command -v bash >/dev/null 2>&1 || test_skip_all 'bash is not installed'
BASH_COMPLETION=$HEARTH_SOURCE_DIR/completion/hearth.bash
ZSH_COMPLETION=$HEARTH_SOURCE_DIR/completion/_hearth

# What bash offers for a command line typed up to its end (a trailing space
# starts a new word), one word a line, sorted.
complete_bash() {
	bash --norc --noprofile -c '
		. "$1" || exit 1
		complete -p hearth >/dev/null || exit 1
		line=$2
		read -ra COMP_WORDS <<<"$line"
		COMP_WORDS[0]=$HEARTH_BIN
		case $line in *" ") COMP_WORDS+=("") ;; esac
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		COMP_LINE=$line COMP_POINT=${#line}
		_hearth
		((${#COMPREPLY[@]} == 0)) || printf "%s\n" "${COMPREPLY[@]}" | sort' complete "$BASH_COMPLETION" "$1"
}

# The same for zsh, with the completion system's functions replaced by ones
# that print what they are given.
complete_zsh() {
	zsh -f -c '
		_call_program() { shift; eval "$@" }
		compadd() {
			while [[ $1 == -* ]]; do
				[[ $1 == -- ]] && { shift; break }
				[[ $1 == -[SPJVXx] ]] && shift
				shift
			done
			print -l -- "$@"
		}
		_describe() { while [[ $1 == -t ]]; do shift 2; done; shift; print -l -- ${${(P)1}%%:*} }
		_files() { print -- "(files$*)" }
		_message() { print -- "(message $*)" }
		compset() { [[ $1 == -P && $PREFIX == ${~2}* ]] && PREFIX=${PREFIX#${~2}} }
		words=(${=2})
		words[1]=$HEARTH_BIN
		[[ $2 == *" " ]] && words+=("")
		CURRENT=$#words
		PREFIX=$words[-1]
		source "$1" | sort' complete "$ZSH_COMPLETION" "$1"
}

"$HEARTH_BIN" --dump-docs | awk -F'\t' '$1 == "command" { print $2 }' | sort >commands

test_expect_success 'a Home with versions and two peers' '
	hearth init home >/dev/null &&
	cd home &&
	printf "peers:\n  - {name: laptop, url: ssh://me@laptop/home/me/Home}\n  - {name: usb, url: /media/usb}\n" \
		>>.hearth/config.yaml &&
	echo one >file && hearth record -m one >/dev/null &&
	echo two >file && hearth record -m two >/dev/null &&
	hearth log --oneline | cut -d" " -f1 | sort >../versions
'

test_expect_success 'bash: the completion loads and completes a command name' '
	complete_bash "hearth sta" >got &&
	printf "stats\nstatus\n" >expected &&
	test_cmp expected got
'

test_expect_success 'bash: every command of the program, and nothing else' '
	complete_bash "hearth " >got &&
	test_cmp commands got
'

test_expect_success 'bash: the options of a command, and of the program' '
	complete_bash "hearth log -" >got &&
	printf "%s\n" --grep --help --max-count --oneline --patch --porcelain -n -p -z | sort >expected &&
	test_cmp expected got &&
	complete_bash "hearth --v" >got &&
	echo --version >expected &&
	test_cmp expected got
'

test_expect_success 'bash: version ids where a version goes, from the Home of the line' '
	cd home &&
	complete_bash "hearth checkout " >../got &&
	{ echo head; cat ../versions; } | sort >../expected &&
	test_cmp ../expected ../got &&
	cd .. &&
	complete_bash "hearth -c home/.hearth/config.yaml show " >got &&
	test_cmp expected got
'

test_expect_success 'bash: paths where a path goes, nothing after an option that takes a number' '
	cd home &&
	complete_bash "hearth show head fi" >../got &&
	echo file >../expected &&
	test_cmp ../expected ../got &&
	complete_bash "hearth log -n " >../got &&
	test ! -s ../got
'

test_expect_success 'bash: peer names from the config' '
	cd home &&
	bash --norc --noprofile -c ". \"$BASH_COMPLETION\"; _hearth_program=(\"$HEARTH_BIN\"); _hearth_globals=(); _hearth_peers" >../got &&
	printf "laptop\nusb\n" >../expected &&
	test_cmp ../expected ../got
'

test_expect_success 'bash: every command and every option of the program completes' '
	for command in $(cat commands); do
		complete_bash "hearth ${command%?}" | grep -x "$command" >/dev/null ||
			{ echo "command $command"; exit 1; }
	done &&
	"$HEARTH_BIN" --dump-docs | awk -F"\t" "\$1 == \"option\" && \$3 !~ /global/ { print \$2, \$3 }" |
	while read -r command flags; do
		for flag in $(echo "$flags" | tr "," " "); do
			case $flag in -*) ;; *) continue ;; esac
			complete_bash "hearth $command -" | grep -x -- "$flag" >/dev/null ||
				{ echo "hearth $command $flag"; exit 1; }
		done
	done
'

if command -v zsh >/dev/null 2>&1; then
	test_expect_success 'zsh: the completion parses' '
		zsh -n "$ZSH_COMPLETION" &&
		head -1 "$ZSH_COMPLETION" | grep "^#compdef hearth$"
	'

	test_expect_success 'zsh: commands, options and version ids' '
		complete_zsh "hearth " >got &&
		test_cmp commands got &&
		complete_zsh "hearth log -" >got &&
		printf "%s\n" --grep --help --max-count --oneline --patch --porcelain -n -p -z | sort >expected &&
		test_cmp expected got &&
		cd home &&
		complete_zsh "hearth checkout " >../got &&
		{ echo head; cat ../versions; } | sort >../expected &&
		test_cmp ../expected ../got &&
		complete_zsh "hearth show head " >../got &&
		echo "(files)" >../expected &&
		test_cmp ../expected ../got
	'
else
	test_expect_success 'zsh: not installed here; only bash was tried' 'true'
fi

test_done
