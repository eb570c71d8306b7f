#!/bin/sh
test_description='hearth(1) documents every command and option the program accepts, and only those; hearth help CMD is the page'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"
. "$HEARTH_SOURCE_DIR/tests/lib/docs-lib.sh"

# The lists: the command table (what dispatches and what is parsed, each
# command's entry beside its code in tui/cli_*.c), the page (what is
# documented).
docs_dump command | cut -f1 | sort >commands
docs_page_commands >page
awk '$1 == "entry" { print $2 }' page | sort -u >page-commands
awk '$1 == "flag" || $1 == "item" { print $2, $3 }' page | sort -u >page-flags
awk '$1 == "item" { print $2, $3 }' page | sort -u >page-items
docs_source_flags | sort -u >source-options
cut -d' ' -f1,2 source-options | sort -u >source-flags
docs_table_flags | sort -u >table-options
grep -v ' global$' table-options | sort -u >table-flags

test_expect_success 'the lists are not empty (the parsers still read them)' '
	test "$(wc -l <commands)" -ge 14 &&
	test "$(wc -l <page-flags)" -ge 15 &&
	test "$(wc -l <source-flags)" -ge 15 &&
	grep "^record -m$" source-flags && grep "^log --max-count$" source-flags &&
	grep "^log -n yes$" source-options
'

test_expect_success 'every command has an entry in hearth(1), and every entry is a command' '
	comm -23 commands page-commands >undocumented &&
	comm -13 commands page-commands >unknown &&
	{ test ! -s undocumented || { echo "commands without an entry in man/hearth.1:"; cat undocumented; }; } &&
	{ test ! -s unknown || { echo "entries of man/hearth.1 that are no command:"; cat unknown; }; } &&
	test ! -s undocumented && test ! -s unknown
'

test_expect_success 'every option a command parses is described in its entry of hearth(1)' '
	comm -23 source-flags page-items >undocumented &&
	{ test ! -s undocumented || { echo "options parsed but not described (.It Fl) in man/hearth.1:"; cat undocumented; }; } &&
	test ! -s undocumented
'

test_expect_success 'every option an entry of hearth(1) names is parsed by that command' '
	sed -n "s/ global$//p" table-options | sort -u >global-flags &&
	sort -u source-flags global-flags >accepted &&
	comm -13 accepted page-flags >unknown &&
	{ test ! -s unknown || { echo "options in man/hearth.1 that the command does not parse:"; cat unknown; }; } &&
	test ! -s unknown
'

test_expect_success 'every command parses its options by its table entry, none on the side' '
	docs_parsing_outside_table >outside &&
	{ test ! -s outside || { echo "option parsing outside the command table (use cli_next_option):"; cat outside; }; } &&
	test ! -s outside &&
	comm -3 source-flags table-flags >different &&
	test ! -s different
'

test_expect_success 'each command table entry sits in the file of its code' '
	for command in $(cat commands); do
		grep -l "^const struct cli_command cli_${command}_entry = {" \
			"$HEARTH_SOURCE_DIR"/tui/cli_*.c >where &&
		test "$(wc -l <where)" = 1 &&
		grep -q "^cli_${command}(" "$(cat where)" ||
			{ echo "the entry of $command is not beside cli_$command"; exit 1; }
	done
'

test_expect_success 'a Home to try every option in' '
	hearth init home >/dev/null &&
	echo one >home/file &&
	(cd home && hearth record -m one >/dev/null)
'

# An option the program does not parse says "unknown option"; give each
# option of the page an argument when it takes one and look for that.
test_expect_success 'the program accepts every option of the page' '
	cd home &&
	while read -r command flag; do
		argument=$(grep "^$command $flag " ../source-options | cut -d" " -f3)
		if grep -q "^$command $flag global$" ../table-options; then
			set -- "$flag" "$TEST_ROOT/home/.hearth/config.yaml" "$command"
		elif [ "$argument" = yes ]; then
			set -- "$command" "$flag" 1
		else
			set -- "$command" "$flag"
		fi
		timeout 20 "$HEARTH_BIN" "$@" </dev/null >/dev/null 2>../err || true
		if grep -q "unknown option" ../err; then
			echo "hearth $*: $(cat ../err)"
			exit 1
		fi
	done <../page-flags
'

test_expect_success 'the program options of the page are those cli.c parses' '
	docs_page_global_flags | sort -u >page-global &&
	docs_source_global_flags | sort -u >source-global &&
	test_cmp source-global page-global &&
	for flag in $(cat page-global); do
		case $flag in
		-c) hearth -c home/.hearth/config.yaml version >/dev/null ;;
		--config) hearth --config=home/.hearth/config.yaml version >/dev/null ;;
		*) hearth "$flag" >/dev/null ;;
		esac || { echo "hearth $flag fails"; exit 1; }
	done
'

test_expect_success 'hearth help CMD and CMD --help print the entry of hearth(1)' '
	for command in $(cat commands); do
		docs_page_entry "$command" >expected &&
		hearth help "$command" >actual &&
		test_cmp expected actual &&
		hearth "$command" --help >actual &&
		test_cmp expected actual &&
		head -1 actual | grep "^usage: hearth $command" >/dev/null &&
		test "$(wc -l <actual)" -gt 2 || { echo "help for $command"; exit 1; }
	done
'

test_expect_success 'a usage error shows the synopsis of the page' '
	test_expect_code 2 hearth log --no-such-option 2>err &&
	grep "^usage: hearth log \[-n n\] \[--oneline | --porcelain \[-z\]\] \[--grep text\] \[-p\] \[path\]$" err &&
	test_expect_code 2 hearth show 2>err &&
	grep "^       hearth show --cat version path$" err
'

test_expect_success 'the arguments the command table names are those of the synopsis' '
	awk "\$1 == \"arg\" { print \$2, \$3 }" page | tr "[:lower:]" "[:upper:]" | sort -u >page-args &&
	docs_table_arguments | sort -u >table-args &&
	comm -23 table-args page-args >missing &&
	{ test ! -s missing || { echo "usage words of cli.c not in the synopsis of man/hearth.1:"; cat missing; }; } &&
	test ! -s missing
'

test_done
