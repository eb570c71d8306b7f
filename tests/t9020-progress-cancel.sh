#!/bin/sh
test_description='progress that moves (bytes and chunks as they come, rate, time left) and cancels that hold: record, checkout and sync, on a terminal and in the app'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"
APP_WIDTH=160
. "$HEARTH_SOURCE_DIR/tests/lib/app-lib.sh"

# A stand-in for ssh to this machine that lets the first $HOLD_BYTES
# bytes of the peer's answer through as they come (dd passes each read on
# at once; count_bytes counts bytes, not reads), then holds the rest
# while $TEST_ROOT/hold exists: a sync stays half way for as long as a
# test needs.
cat >"$TEST_ROOT/slow-ssh" <<EOF
#!/bin/sh
for last; do :; done
deadline=\$((\$(date +%s) + 600))
sh -c "\$last" | { dd bs=65536 count=\${HOLD_BYTES:-0} iflag=count_bytes 2>/dev/null
	while [ -e "$TEST_ROOT/hold" ] && [ \$(date +%s) -lt \$deadline ]; do sleep 0.1; done; exec cat; }
EOF
chmod +x "$TEST_ROOT/slow-ssh"

# A file of zeros with no blocks behind it: big to read, free to keep.
big=512M

# A pane with the plain shell alone (the app, started and left at once).
shell_start() {
	HEARTH_BIN=true app_start && app_wait "app-exit=0"
}

# shell CMD: clears the pane, runs CMD in its shell (stderr the terminal)
# and shows its status as cmd-exit=N, once the screen shows it running.
shell() {
	app_tmux send-keys -l "clear; echo running; $1; echo cmd-exit=\$?"
	app_tmux send-keys Enter
	app_wait_gone "cmd-exit=" && app_wait "running"
}

test_expect_success 'a Home with a file of 24 MB; b, a replica of it, reaches it by the slow ssh' '
	hearth init a >/dev/null &&
	head -c 24000000 /dev/urandom >a/photos.bin &&
	(cd a && hearth record -m photos >/dev/null) &&
	hearth init b >/dev/null && test_tool join-home b a &&
	printf "peers:\n  - name: slow\n    url: ssh://localhost%s\n" "$TEST_ROOT/a" \
	    >>b/.hearth/config.yaml
'

test_expect_success 'sync on a terminal: chunks and bytes as they come, with rate and time left' '
	: >"$TEST_ROOT/hold" &&
	cd b &&
	shell_start &&
	app_tmux send-keys -l "export HEARTH_SSH=$TEST_ROOT/slow-ssh HOLD_BYTES=8000000 HEARTH_REMOTE_COMMAND=$HEARTH_BIN" &&
	app_tmux send-keys Enter &&
	shell "$HEARTH_BIN sync slow" &&
	app_wait " left" 30 &&
	app_screen >"$TEST_ROOT/screen" &&
	grep -E "^\[#*\.*\] receiving chunks ([1-9]|[1-9][0-9])% [1-9][0-9]*/[1-9][0-9]*, [0-9.]+ MiB of [0-9.]+ MiB, [0-9.]+ ([KM]iB|B)/s, [0-9]+ (s|min [0-9]+ s|h [0-9]+ min) left" \
	    "$TEST_ROOT/screen"
'

# The peer holds the rest: nothing moves, and the bar says so each second
# rather than show a rate that only decays (progress.h, PROGRESS_STALL_MS).
test_expect_success 'a connection that stalls: the bar says "stalled N s", counting' '
	app_wait ", stalled " 60 &&
	app_screen >"$TEST_ROOT/screen" &&
	grep -E "^\[#*\.*\] receiving chunks ([1-9]|[1-9][0-9])% [1-9][0-9]*/[1-9][0-9]*, [0-9.]+ MiB of [0-9.]+ MiB, stalled [2-9][0-9]* s" \
	    "$TEST_ROOT/screen" &&
	seconds=$(sed -n "s/.*, stalled \([0-9]*\) s.*/\1/p" "$TEST_ROOT/screen" | tail -n 1) &&
	app_wait ", stalled $((seconds + 1)) s" 60
'

test_expect_success 'Ctrl-C cancels it at the next safe point; the rerun asks only for the chunks not kept' '
	app_keys C-c &&
	app_wait "cancelling at the next safe point" &&
	app_wait "cmd-exit=" 30 &&
	app_screen >"$TEST_ROOT/screen" &&
	grep "sync cancelled" "$TEST_ROOT/screen" && grep "cmd-exit=1" "$TEST_ROOT/screen" &&
	rm -f "$TEST_ROOT/hold" &&
	all=$(cd a && hearth stats | sed -n "s/^chunks  *//p") &&
	kept=$(cd b && hearth stats | sed -n "s/^chunks  *//p") &&
	test "$kept" -gt 0 && test "$kept" -lt "$all" &&
	(cd b && HEARTH_SSH="$TEST_ROOT/slow-ssh" HEARTH_REMOTE_COMMAND="$HEARTH_BIN" \
	    hearth sync --porcelain slow) >out && grep "^status ok" out &&
	echo "of $all chunks, $kept kept across the cancel; the rerun took the rest" >&2 &&
	grep "^chunks_received $((all - kept))\$" out &&
	(cd b && hearth fsck) | grep "no problems" &&
	(cd b && hearth checkout >/dev/null) && cmp a/photos.bin b/photos.bin
'

test_expect_success 'record of a big file counts its bytes from the start; Ctrl-C stops inside it' '
	truncate -s $big b/zeros.bin &&
	shell "cd $TEST_ROOT/b && HEARTH_HOLD=storing:$((64 << 20)):$TEST_ROOT/held $HEARTH_BIN record -m zeros" &&
	test_wait_for "test -s \"$TEST_ROOT/held\"" &&
	app_wait "storing" 30 &&
	app_screen >"$TEST_ROOT/screen" &&
	grep -E "storing [0-9]+% [01]/[12], [1-9][0-9.]* [KMG]iB of 5[0-9.]+ MiB" "$TEST_ROOT/screen" &&
	! grep "100%" "$TEST_ROOT/screen" &&
	app_keys C-c &&
	app_wait "cancelling at the next safe point" &&
	rm "$TEST_ROOT/held" &&
	app_wait "cmd-exit=" 60 &&
	app_screen | grep "record cancelled; nothing was recorded" &&
	(cd b && hearth log --oneline) >log && ! grep zeros log &&
	(cd b && hearth status --porcelain) | grep "^A zeros.bin$"
'

test_expect_success 'checkout counts bytes too, and Ctrl-C leaves the tree as it was' '
	(cd b && hearth record -m zeros >/dev/null) &&
	rm b/zeros.bin && (cd b && hearth record -m "no zeros" >/dev/null) &&
	shell "HEARTH_HOLD=writing:$((64 << 20)):$TEST_ROOT/held $HEARTH_BIN checkout head~1" &&
	test_wait_for "test -s \"$TEST_ROOT/held\"" &&
	app_wait "writing" 30 &&
	app_screen | grep -E "writing [0-9]+% 0/1, [0-9.]+ [KMG]?i?B of 512.0 MiB" &&
	app_keys C-c &&
	app_wait "cancelling at the next safe point" &&
	rm "$TEST_ROOT/held" &&
	app_wait "cmd-exit=" 60 &&
	app_screen | grep "checkout cancelled; the working tree was not changed" &&
	! test -e b/zeros.bin &&
	(cd b && hearth status --porcelain) >status && ! grep -v "^#" status
'

test_expect_success 'in the app, Esc during a record stops it: nothing is recorded' '
	cd b &&
	truncate -s $big again.bin &&
	app_start HEARTH_HOLD=storing:$((64 << 20)):$TEST_ROOT/held &&
	app_wait "1 History" &&
	app_keys 3 r &&
	app_wait "Record every change" &&
	app_type "never" &&
	app_keys Enter &&
	test_wait_for "test -s \"$TEST_ROOT/held\"" &&
	app_wait "storing" 30 &&
	app_screen >"$TEST_ROOT/screen" &&
	grep -E "storing [0-9]+% 0/1, [1-9][0-9.]* [KMG]iB of 512.0 MiB" "$TEST_ROOT/screen" &&
	app_keys Escape &&
	rm "$TEST_ROOT/held" &&
	app_wait "Record cancelled; nothing was recorded" 60 &&
	app_quit &&
	hearth log --oneline >log && ! grep never log
'

test_expect_success 'in the app, Esc during a checkout stops it: the tree is as it was' '
	cd b &&
	hearth status --porcelain >"$TEST_ROOT/status.before" &&
	app_start HEARTH_HOLD=writing:$((64 << 20)):$TEST_ROOT/held &&
	app_wait "no zeros" &&
	app_keys j c &&
	app_wait "Check out version" &&
	app_keys y &&
	test_wait_for "test -s \"$TEST_ROOT/held\"" &&
	app_wait "writing" 30 &&
	app_screen | grep -E "writing [0-9]+% 0/1, [0-9.]+ [KMG]?i?B of 512.0 MiB" &&
	app_keys Escape &&
	rm "$TEST_ROOT/held" &&
	app_wait "Checkout cancelled; the Home is as it was" 60 &&
	app_quit &&
	! test -e zeros.bin &&
	hearth status --porcelain >"$TEST_ROOT/status.after" &&
	test_cmp "$TEST_ROOT/status.before" "$TEST_ROOT/status.after"
'

test_expect_success 'the Sync view: the panel counts chunks and bytes as they come, with rate and time left' '
	head -c 12000000 /dev/urandom >a/more.bin &&
	(cd a && hearth record -m more >/dev/null) &&
	: >"$TEST_ROOT/hold" &&
	cd b &&
	app_start HEARTH_SSH="$TEST_ROOT/slow-ssh" HOLD_BYTES=4000000 HEARTH_REMOTE_COMMAND="$HEARTH_BIN" &&
	app_wait "1 History" &&
	app_keys 4 &&
	app_wait "Last attempt" &&
	app_keys s &&
	app_wait "Syncing slow: receiving chunks" 30 &&
	app_wait " left" 30 &&
	app_screen >"$TEST_ROOT/screen" &&
	grep -E "receiving chunks ([1-9]|[1-9][0-9])% [1-9][0-9]*/[1-9][0-9]*, [0-9.]+ MiB of [0-9.]+ MiB, [0-9.]+ ([KM]iB|B)/s, [0-9]+ (s|min [0-9]+ s|h [0-9]+ min) left" \
	    "$TEST_ROOT/screen" &&
	app_wait ", stalled " 60 && app_screen | grep "receiving chunks .*, stalled [0-9]* s" &&
	app_keys Escape &&
	app_wait "Sync cancelled" 30 &&
	app_quit
'

test_expect_success 'a sync that brings conflicts says how many and of which kinds; 2 opens them' '
	rm -f "$TEST_ROOT/hold" &&
	(cd b && HEARTH_SSH="$TEST_ROOT/slow-ssh" HEARTH_REMOTE_COMMAND="$HEARTH_BIN" \
	    hearth sync slow >/dev/null && hearth checkout >/dev/null) &&
	printf "from a\n" >a/same.txt && (cd a && hearth record -m "same on a" >/dev/null) &&
	printf "from b\n" >b/same.txt && (cd b && hearth record -m "same on b" >/dev/null) &&
	cd b &&
	app_start HEARTH_SSH="$TEST_ROOT/slow-ssh" HEARTH_REMOTE_COMMAND="$HEARTH_BIN" &&
	app_wait "1 History" &&
	app_keys 4 &&
	app_wait "Last attempt" &&
	app_keys s &&
	app_wait "1 new conflict (1 name), 2 opens them" 30 &&
	app_screen | grep -E "Synced slow: 1 new conflict \(1 name\), 2 opens them; received" &&
	app_keys 2 &&
	app_wait "same~" 20 &&
	app_screen | grep -E "^  name +2 +same" &&
	app_quit
'

test_done
