#!/bin/sh
test_description='the app: ssh never writes on its screen or reads its keys; a question ssh would ask fails with how to make the first contact'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"
. "$HEARTH_SOURCE_DIR/tests/lib/app-lib.sh"

# A stand-in for ssh meeting a host it does not know: it keeps its
# arguments, and when it can open the terminal it asks there, as ssh does,
# and waits for the answer; without one (or with BatchMode) it fails as
# ssh does, on stderr.
cat >"$TEST_ROOT/asking-ssh" <<EOF
#!/bin/sh
printf "%s\n" "\$@" >"$TEST_ROOT/args"
if ( : </dev/tty ) 2>/dev/null; then
	printf "The authenticity of host 'far' can't be established.\r\nAre you sure you want to continue connecting (yes/no)? " >/dev/tty
	read answer </dev/tty
	echo "answered \$answer" >"$TEST_ROOT/answered"
fi
echo "Host key verification failed." >&2
exit 255
EOF
chmod +x "$TEST_ROOT/asking-ssh"

test_expect_success 'a Home with an ssh peer the machine has never met' '
	hearth init a >/dev/null &&
	printf "peers:\n  - name: far\n    url: ssh://far/home/me/Home\n" >>a/.hearth/config.yaml
'

test_expect_success 's on it: nothing of ssh on the screen, a dialog that says what to do' '
	cd a &&
	app_start HEARTH_SSH="$TEST_ROOT/asking-ssh" &&
	app_wait "1 History" &&
	app_keys 4 &&
	app_wait "Last attempt" &&
	app_keys s &&
	app_wait "Sync failed" 30 &&
	app_screen >"$TEST_ROOT/screen" &&
	! grep "Are you sure" "$TEST_ROOT/screen" &&
	! grep "authenticity" "$TEST_ROOT/screen" &&
	grep "Host key verification failed" "$TEST_ROOT/screen" &&
	grep "make the first contact from a shell" "$TEST_ROOT/screen" &&
	! test -e "$TEST_ROOT/answered" &&
	grep -x "BatchMode=yes" "$TEST_ROOT/args"
'

test_expect_success 'keys still go to the app, and the screen needs no repaint' '
	app_keys Enter &&
	app_wait_gone "Sync failed" &&
	app_keys 1 &&
	app_wait "No versions yet" &&
	app_quit
'

test_expect_success 'from a shell the same ssh may ask: the CLI gives it the terminal' '
	cd a &&
	HEARTH_BIN_SAVED=$HEARTH_BIN &&
	HEARTH_BIN=true app_start && app_wait "app-exit=0" &&
	app_tmux send-keys -l "HEARTH_SSH=$TEST_ROOT/asking-ssh $HEARTH_BIN_SAVED sync far; echo cmd-exit=\$?" &&
	app_tmux send-keys Enter &&
	app_wait "Are you sure you want to continue connecting" 30 &&
	app_type "no" && app_keys Enter &&
	app_wait "cmd-exit=1" 30 &&
	grep "answered no" "$TEST_ROOT/answered" &&
	! grep -x "BatchMode=yes" "$TEST_ROOT/args"
'

test_done
