#!/bin/sh
test_description='the app: help from the action table, resize, colours, leaving a sane terminal'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"
. "$HEARTH_SOURCE_DIR/tests/lib/app-lib.sh"

# Colour escapes in a capture: 8 colours (30-37, 40-47) or 256 (38;5, 48;5).
has_colour() {
	grep -E '\[(([0-9]+;)*(3[0-7]|4[0-7]|38;5;[0-9]+|48;5;[0-9]+))m' "$1" >/dev/null
}

test_expect_success 'a Home with two versions' '
	hearth init home &&
	cd home &&
	printf "one\n" >notes.txt &&
	hearth record -m "first version" &&
	printf "two\n" >notes.txt &&
	hearth record -m "second version"
'

test_expect_success 'the help overlay lists every binding of the action table' '
	hearth --dump-actions >bindings &&
	test "$(wc -l <bindings)" -gt 20 &&
	grep -E "^q +quit +" bindings &&
	cd home &&
	APP_WIDTH=150 APP_HEIGHT=110 &&
	app_start &&
	app_wait "second version" &&
	app_keys "?" &&
	app_wait "Help: every key binding" &&
	app_screen >../help-screen &&
	while IFS= read -r line; do
		grep -F -q -- "$line" ../help-screen || { echo "not in the help: $line"; exit 1; }
	done <../bindings &&
	app_keys "?" &&
	app_wait_gone "Help: every key binding" &&
	app_quit
'

test_expect_success 'a resize lays everything out again' '
	cd home &&
	app_start &&
	app_wait "second version" &&
	app_tmux resize-window -x 60 -y 15 &&
	app_wait_line 14 "head" &&
	app_wait_line 15 "Enter changes" &&
	app_screen >small &&
	grep "1 History" small &&
	sed -n 15p small | grep -F "…" &&
	app_tmux resize-window -x 120 -y 40 &&
	app_wait_line 39 "head" &&
	app_wait_line 40 "q quit" &&
	app_quit
'

test_expect_success 'at 40x12 History keeps the Message column: author and time give way first' '
	cd home &&
	APP_WIDTH=40 APP_HEIGHT=12 &&
	app_start &&
	app_wait "second version" &&
	app_screen >../narrow &&
	grep "Version .*Message" ../narrow &&
	grep -E "^ *. ?[0-9a-f]{8} .*second version" ../narrow &&
	grep -E "^ *[0-9a-f]{8} .*first version" ../narrow &&
	app_tmux resize-window -x 60 -y 12 &&
	app_wait "Time" &&
	app_screen >../middle &&
	grep "Version .*Time .*Message" ../middle &&
	grep "second version" ../middle &&
	app_tmux resize-window -x 100 -y 12 &&
	app_wait "Author" &&
	app_screen | grep "Version .*Time .*Author .*Message" &&
	app_quit
'

test_expect_success 'TERM=dumb: the line CLI'"'"'s status and log instead, and why' '
	cd home &&
	app_start TERM=dumb &&
	app_wait "app-exit=0" &&
	app_screen -J >../dumb &&
	grep "hearth: the terminal TERM=dumb cannot move the cursor, so the app cannot draw" ../dumb &&
	grep "^At version [0-9a-f]* (head)\.$" ../dumb &&
	grep "^[0-9a-f]* second version$" ../dumb &&
	grep "^[0-9a-f]* first version$" ../dumb &&
	! grep -F "[" ../dumb
'

test_expect_success 'a TERM terminfo does not know: the same, saying so' '
	cd home &&
	app_start TERM=no-such-terminal &&
	app_wait "app-exit=0" &&
	app_screen -J >../unknown &&
	grep "TERM=no-such-terminal is not in the terminfo database" ../unknown &&
	grep "second version" ../unknown
'

test_expect_success 'colours show on a colour terminal' '
	cd home &&
	app_start &&
	app_wait "second version" &&
	app_screen -e >../colour &&
	has_colour ../colour &&
	app_quit
'

test_expect_success 'NO_COLOR leaves attributes only' '
	cd home &&
	app_start NO_COLOR=1 &&
	app_wait "second version" &&
	app_screen -e >../no-colour &&
	! has_colour ../no-colour &&
	grep -F "[7m" ../no-colour &&
	app_quit
'

test_expect_success 'a monochrome terminal (vt100) works with attributes' '
	cd home &&
	app_start TERM=vt100 &&
	app_wait "second version" &&
	app_keys j Enter &&
	app_wait "1 path changed" &&
	app_screen -e >../mono &&
	! has_colour ../mono &&
	app_quit
'

test_expect_success 'quitting leaves the terminal as it was and the shell usable' '
	cd home &&
	app_start &&
	app_wait "second version" &&
	app_keys j k &&
	app_quit &&
	app_type "stty -g >$TEST_ROOT/stty.after; echo usable-\$((40 + 2))" &&
	app_keys Enter &&
	app_wait "usable-42" &&
	app_screen | grep -F "echo usable-\$((40 + 2))" &&
	test_cmp "$TEST_ROOT/stty.before" "$TEST_ROOT/stty.after"
'

test_expect_success 'SIGTERM ends the app and restores the terminal' '
	cd home &&
	app_start &&
	app_wait "second version" &&
	kill -TERM "$(app_pid)" &&
	app_wait "app-exit=143" &&
	# The prompt is on the screen already: wait for a line stty -g is done
	# before (waiting for the prompt read the file before stty wrote it).
	app_type "stty -g >$TEST_ROOT/stty.after; echo saved-\$((40 + 2))" &&
	app_keys Enter &&
	app_wait "saved-42" &&
	test_cmp "$TEST_ROOT/stty.before" "$TEST_ROOT/stty.after"
'

# The app writes a key's time once it has drawn the screen the key made.
# Nothing on the screen tells that draw from the first one ("1 History"
# shows before j too), and a q read with the j quits before it: wait for
# the line itself.
timed_key() {
	grep -E -q "^key $1 [0-9.]+$" "$TEST_ROOT/timings"
}

test_expect_success 'HEARTH_APP_TIMINGS records the first screen and each key' '
	cd home &&
	app_start HEARTH_APP_TIMINGS=$TEST_ROOT/timings &&
	app_wait "second version" &&
	app_keys j &&
	test_wait_for "timed_key j" &&
	app_quit &&
	grep -E "^first-screen [0-9.]+$" "$TEST_ROOT/timings" && timed_key j
'

test_done
