#!/bin/sh
test_description='hearth.yaml(5) and hearth(1) list every config key, theme role, key binding, environment variable and exit status the program has, and only those'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"
. "$HEARTH_SOURCE_DIR/tests/lib/docs-lib.sh"

CONFIG_PAGE=$MAN_DIR/hearth.yaml.5

test_expect_success 'every config key has an entry in hearth.yaml(5), and every entry is a key' '
	docs_dump key | cut -f1 | sort >keys &&
	test "$(wc -l <keys)" -ge 12 &&
	docs_page_items "$CONFIG_PAGE" KEYS | sort >page-keys &&
	test_cmp keys page-keys
'

test_expect_success 'each key entry gives the default of the option table' '
	docs_rendered_items "$CONFIG_PAGE" KEYS >rendered &&
	docs_dump key | while IFS="	" read -r name type default; do
		text=$(grep "^$name	" rendered | cut -f2) &&
		after=${text#*Default: } &&
		after=${after#none, } && after=${after#empty, } && after=${after#\`} &&
		case $after in
		"$default"*) ;;
		*) echo "$name: the default $default is not in: $text"; exit 1 ;;
		esac
	done
'

test_expect_success 'the enumerated values of durability are each described' '
	for mode in full group none; do
		grep "^\.It Li $mode$" "$CONFIG_PAGE" >/dev/null || { echo "durability $mode"; exit 1; }
	done
'

test_expect_success 'every config example of hearth.yaml(5) is a config hearth accepts' '
	mkdir examples &&
	for file in $(docs_page_displays "$CONFIG_PAGE" examples/display); do
		case $(head -1 "$file") in
		"\$ "* | "hearth: "* | "roles:"*) continue ;;
		esac
		{
			grep -q "^roots:" "$file" ||
				printf "roots:\n  - {name: ssd, path: ssd}\n  - {name: hdd, path: hdd}\n"
			grep -q "^state:" "$file" || printf "state: state\n"
			cat "$file"
		} >"$file.yaml" &&
		hearth -c "$file.yaml" config check >/dev/null || { cat "$file.yaml"; exit 1; }
		checked=$((${checked:-0} + 1))
	done &&
	test "$checked" -ge 12
'

test_expect_success 'every theme role is in the Roles list of hearth.yaml(5), with its description' '
	docs_dump role | sort >roles &&
	test "$(wc -l <roles)" -ge 20 &&
	awk "/^\.Ss Roles/ { inside = 1; next } /^\.S[hs] / { inside = 0 }
		inside && /^\.It Ic / { name = \$3; next }
		inside && name != \"\" && !/^\./ { print name \"\t\" \$0; name = \"\" }" \
		"$CONFIG_PAGE" | sort >page-roles &&
	test_cmp roles page-roles
'

test_expect_success 'the themes that ship are the ones the page names' '
	ls "$HEARTH_SOURCE_DIR"/themes/*.yaml | sed "s|.*/||; s|\.yaml$||" | sort >themes &&
	for theme in $(cat themes); do
		grep "^\.Ql $theme" "$CONFIG_PAGE" >/dev/null || { echo "theme $theme"; exit 1; }
	done
'

test_expect_success 'the keys of hearth(1) are those of the action table, in the help overlay'"'"'s groups' '
	docs_dump binding >bindings &&
	test "$(wc -l <bindings)" -ge 30 &&
	awk -F"\t" "!(\$1 in seen) { seen[\$1] = 1; order[++n] = \$1 }
		{ lines[\$1] = lines[\$1] \$0 \"\n\" }
		END { for (i = 1; i <= n; i++) printf \"%s\", lines[order[i]] }" bindings >expected &&
	docs_page_bindings >page-bindings &&
	test_cmp expected page-bindings
'

test_expect_success 'the keys of hearth(1) are the lines of hearth --dump-actions' '
	hearth --dump-actions | awk "{
		keys = substr(\$0, 1, 20); sub(/ +\$/, \"\", keys)
		rest = substr(\$0, 22); name = rest; sub(/ .*/, \"\", name)
		text = rest; sub(/^[^ ]+ +/, \"\", text)
		print keys \"\t\" name \"\t\" text
	}" | sort >actions &&
	docs_page_bindings | cut -f2- | sort >page-actions &&
	test_cmp actions page-actions
'

# Variables the program reads but keeps to itself: HEARTH_FAULT,
# HEARTH_FAULT_BATCH, HEARTH_KILL and HEARTH_POWERLOSS (with its _STASH)
# inject faults, kills and power cuts for the crash tests, HEARTH_HOLD holds
# a command mid-call for the cancel tests (backend/io/io.c); HEARTH_RECONCILE_PAGE, HEARTH_RECONCILE_KILL_AFTER
# and HEARTH_WATCH_FAULT make small pages, kills between them and lost
# events for the index tests (t04xx).
UNDOCUMENTED_ENV='HEARTH_FAULT HEARTH_FAULT_BATCH HEARTH_HOLD HEARTH_KILL HEARTH_POWERLOSS HEARTH_POWERLOSS_STASH HEARTH_RECONCILE_PAGE HEARTH_RECONCILE_KILL_AFTER HEARTH_WATCH_FAULT'
# Variables hearth(1) documents ahead of the code that will read them
# (and says so): none now.
NOT_YET_READ_ENV=''

test_expect_success 'every environment variable the program reads is in ENVIRONMENT of hearth(1)' '
	cat "$HEARTH_SOURCE_DIR"/backend/*.c "$HEARTH_SOURCE_DIR"/backend/*/*.c "$HEARTH_SOURCE_DIR"/config/*.c \
	    "$HEARTH_SOURCE_DIR"/themes/*.c "$HEARTH_SOURCE_DIR"/tui/*.c "$HEARTH_SOURCE_DIR"/model/*.c |
		grep -o "getenv(\"[A-Z_]*\")" | sed "s/getenv(\"\(.*\)\")/\1/" | sort -u >read &&
	awk "/^\.Sh ENVIRONMENT/ { inside = 1; next } /^\.Sh / { inside = 0 }
		inside && /^\.It Ev / { print \$3 }" "$MAN_DIR/hearth.1" | sort -u >documented &&
	for name in $(cat read); do
		case " $UNDOCUMENTED_ENV " in *" $name "*) continue ;; esac
		grep -x "$name" documented >/dev/null || { echo "$name is read but not documented"; exit 1; }
	done &&
	for name in $(cat documented); do
		case " $NOT_YET_READ_ENV " in
		*" $name "*)
			! grep -x "$name" read >/dev/null ||
			{ echo "$name is read now: hearth(1) says nothing reads it yet"; exit 1; }
			continue ;;
		esac
		test "$name" = TERM || grep -x "$name" read >/dev/null ||
		{ echo "$name is documented but nothing reads it"; exit 1; }
	done
'

test_expect_success 'every exit status of hearth_exit_status is in EXIT STATUS of hearth(1)' '
	sed -n "/^hearth_exit_status/,/^}/p" "$HEARTH_SOURCE_DIR/backend/error.c" |
		sed -n "s/.*return \([0-9]*\);.*/\1/p" | sort -u >statuses &&
	test "$(wc -l <statuses)" -ge 4 &&
	awk "/^\.Sh EXIT STATUS/ { inside = 1; next } /^\.Sh / { inside = 0 }
		inside && /^\.It [0-9]+$/ { print \$2 }" "$MAN_DIR/hearth.1" | sort -u >page-statuses &&
	test_cmp statuses page-statuses
'

test_done
