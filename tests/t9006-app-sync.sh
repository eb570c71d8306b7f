#!/bin/sh
test_description='the app: the Sync view lists the peers with their status, syncs one or all on the worker, and Esc cancels'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"
. "$HEARTH_SOURCE_DIR/tests/lib/app-lib.sh"

# A stand-in for ssh: waits while $TEST_ROOT/hold exists (so a sync stays
# in "connecting" until the test lets it go, or for 10 minutes, a bound
# that only ends a hang), then runs the remote command (its last argument)
# here, as ssh to this machine would.
write_fake_ssh() {
	cat >"$TEST_ROOT/fake-ssh" <<-EOF
	#!/bin/sh
	deadline=\$((\$(date +%s) + 600))
	while [ -e "$TEST_ROOT/hold" ] && [ \$(date +%s) -lt \$deadline ]; do sleep 0.1; done
	for last; do :; done
	exec sh -c "\$last"
	EOF
	chmod +x "$TEST_ROOT/fake-ssh"
}

test_expect_success 'two replicas of one Home; b names a as two peers, one reached over "ssh"' '
	hearth init a >/dev/null &&
	printf "one\n" >a/notes.txt &&
	(cd a && hearth record -m base >/dev/null) &&
	hearth init b >/dev/null &&
	test_tool join-home b a &&
	(cd b && hearth sync ../a >/dev/null && hearth checkout >/dev/null) &&
	printf "peers:\n  - name: a\n    url: %s\n  - name: slow\n    url: ssh://localhost%s\n" \
	    "$TEST_ROOT/a" "$TEST_ROOT/a" >>b/.hearth/config.yaml &&
	(cd b && hearth peers) >out &&
	grep "^a " out &&
	grep "^slow " out &&
	write_fake_ssh
'

test_expect_success 'a records a new version' '
	echo "written on a" >a/fresh.txt &&
	(cd a && hearth record -m "fresh from a" >/dev/null)
'

test_expect_success '4 lists the peers of the config: a with the sync made by its path, slow never synced' '
	cd b &&
	APP_WIDTH=160 &&
	app_start HEARTH_SSH="$TEST_ROOT/fake-ssh" HEARTH_REMOTE_COMMAND="$HEARTH_BIN" &&
	app_wait "1 History" &&
	app_keys 4 &&
	app_wait "Last attempt" &&
	app_screen >"$TEST_ROOT/screen" &&
	grep -E "^  a +just now +ok just now +" "$TEST_ROOT/screen" &&
	test "$(grep -c "^  /" "$TEST_ROOT/screen")" = 0 &&
	grep -E "^  slow +never +never" "$TEST_ROOT/screen" &&
	grep "s sync  S sync all" "$TEST_ROOT/screen" &&
	app_keys j &&
	app_wait "Never synced: s syncs with it now." &&
	app_keys g
'

test_expect_success 's syncs the selected peer and the status line says what came in' '
	app_keys g s &&
	app_wait "Synced a: received" 30 &&
	app_screen >"$TEST_ROOT/screen" &&
	grep -E "Synced a: received [1-9][0-9]* ops? \(1 version\), sent 0; checkout brings them into the tree" \
	    "$TEST_ROOT/screen" &&
	grep -E "^  a +just now +ok just now +[1-9][0-9]* ops? [0-9.]+[KM]?B" "$TEST_ROOT/screen" &&
	grep "that sync received" "$TEST_ROOT/screen"
'

test_expect_success 'the status line then says head has changes for the tree' '
	app_keys j &&
	app_wait "to check out" 20
'

test_expect_success 'Esc cancels a running sync; the peer shows the failed attempt' '
	: >"$TEST_ROOT/hold" &&
	app_keys s &&
	app_wait "Syncing slow: connecting" 20 &&
	app_screen | grep -E "^  slow +never +syncing\.\.\." &&
	app_keys Escape &&
	app_wait "Sync cancelled" 20 &&
	app_wait "failed just now" 20 &&
	app_screen | grep "the last attempt (just now) failed"
'

test_expect_success 'S syncs every peer in turn; nothing is new by then' '
	rm -f "$TEST_ROOT/hold" &&
	app_keys S &&
	app_wait "Synced 2 peers: nothing new came in" 30 &&
	app_screen | grep -E "^  slow +just now +ok just now" &&
	app_quit
'

test_expect_success 'from the shell: b has a'"'"'s version; the tree waits for checkout' '
	cd b &&
	hearth log >"$TEST_ROOT/log" &&
	grep "fresh from a" "$TEST_ROOT/log" &&
	! test -e fresh.txt &&
	hearth checkout >/dev/null &&
	test "$(cat fresh.txt)" = "written on a" &&
	hearth fsck >/dev/null &&
	(cd ../a && hearth fsck >/dev/null)
'

# The guard on emptying stops auto_checkout when what a sync brought would
# delete every file; the CLI names --yes, which the app cannot be given,
# so the app asks instead.
test_expect_success 'with auto_checkout, a sync that would empty the tree asks; n keeps it, y checks it out' '
	cd b &&
	printf "auto_checkout: true\n" >>.hearth/config.yaml &&
	rm ../a/notes.txt ../a/fresh.txt &&
	(cd ../a && hearth record --yes -m "emptied on a" >/dev/null) &&
	app_start HEARTH_SSH="$TEST_ROOT/fake-ssh" HEARTH_REMOTE_COMMAND="$HEARTH_BIN" &&
	app_wait "1 History" &&
	app_keys 4 &&
	app_wait "Last attempt" &&
	app_keys g s &&
	app_wait "Delete many files?" 30 &&
	app_screen >"$TEST_ROOT/screen" &&
	grep -F "would delete 2 of the 2 files" "$TEST_ROOT/screen" &&
	grep -F "(every file)" "$TEST_ROOT/screen" &&
	grep -F "anyway?" "$TEST_ROOT/screen" &&
	! grep -F -e "--yes" "$TEST_ROOT/screen" &&
	app_keys n &&
	app_wait "Not checked out; the tree is as it was" 20 &&
	test -f notes.txt && test -f fresh.txt &&
	app_keys s &&
	app_wait "Delete many files?" 30 &&
	app_keys y &&
	app_wait "Checked out" 30 &&
	app_quit &&
	! test -e notes.txt && ! test -e fresh.txt &&
	hearth status >"$TEST_ROOT/status" && grep "Nothing changed" "$TEST_ROOT/status" &&
	hearth fsck >/dev/null
'

test_expect_success 'with no peers in the config the view says how to add one' '
	hearth init c >/dev/null &&
	cd c &&
	app_start &&
	app_wait "1 History" &&
	app_keys 4 &&
	app_wait "No peers in the config." &&
	app_screen >"$TEST_ROOT/screen" &&
	grep -F "      $TEST_ROOT/c/.hearth/config.yaml" "$TEST_ROOT/screen" &&
	grep -E "^ +peers:$" "$TEST_ROOT/screen" &&
	grep -E "^ +- name: laptop$" "$TEST_ROOT/screen" &&
	! grep "single replica" "$TEST_ROOT/screen" &&
	app_keys s &&
	app_wait "No peer to sync with" &&
	app_quit
'

test_done
