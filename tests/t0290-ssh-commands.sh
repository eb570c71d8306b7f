#!/bin/sh
test_description='how an ssh peer is reached: HEARTH_SSH with shell quoting, a peer'"'"'s remote_command and ssh_command, the hint on status 127, and clone keeping what it needed'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"

# Stand-ins for ssh to this machine, in a folder whose name holds a space:
# each writes its arguments one a line to $TEST_ROOT/args.NAME, then runs
# the remote command (its last argument) here. "bare" runs it with a PATH
# that holds no hearth, as a far side's non-interactive shell may.
mkdir "$TEST_ROOT/my ssh"
for name in fake other; do
	cat >"$TEST_ROOT/my ssh/$name" <<-EOF
	#!/bin/sh
	: >"$TEST_ROOT/args.$name"
	for word; do printf "%s\n" "\$word" >>"$TEST_ROOT/args.$name"; done
	for last; do :; done
	exec sh -c "\$last"
	EOF
done
cat >"$TEST_ROOT/my ssh/bare" <<-EOF
#!/bin/sh
for last; do :; done
exec env PATH=/usr/bin:/bin sh -c "\$last"
EOF
chmod +x "$TEST_ROOT/my ssh/"*

test_expect_success 'a Home to reach, and a replica of it' '
	hearth init a >/dev/null &&
	echo one >a/one.txt && (cd a && hearth record -m one >/dev/null) &&
	hearth init b >/dev/null && test_tool join-home b a
'

test_expect_success 'HEARTH_SSH is split as a shell would: quotes keep spaces, a backslash the next byte' '
	(cd b && HEARTH_SSH="'"'"'$TEST_ROOT/my ssh/fake'"'"' -o \"Opt=a b\" -o X\\ Y" \
	    HEARTH_REMOTE_COMMAND="$HEARTH_BIN" hearth sync "ssh://localhost$TEST_ROOT/a") >out &&
	grep "^Synced with" out &&
	sed -n "1,4p" "$TEST_ROOT/args.fake" >words &&
	printf "%s\n" -o "Opt=a b" -o "X Y" >expect &&
	test_cmp expect words
'

test_expect_success 'an unclosed quote is an error that names the command' '
	(cd b && ! HEARTH_SSH="ssh -o \"broken" hearth sync "ssh://localhost$TEST_ROOT/a") 2>err &&
	grep "the ssh command .ssh -o \"broken. has an unclosed double quote" err
'

test_expect_success 'status 127 from the far side names remote_command and how to set it' '
	printf "peers:\n  - name: far\n    url: ssh://localhost%s\n" "$TEST_ROOT/a" \
	    >>b/.hearth/config.yaml &&
	(cd b && ! HEARTH_SSH="\"$TEST_ROOT/my ssh/bare\"" hearth sync far) 2>err &&
	grep "exited with status 127" err &&
	grep "; the far side has no .hearth. on the PATH its non-interactive shell gets: give its full path as remote_command under this peer in the config (peers: - name: far ... remote_command: " err
'

test_expect_success 'a peer'"'"'s remote_command and ssh_command reach it with no variable set' '
	cat >>b/.hearth/config.yaml <<-EOF &&
	    remote_command: $HEARTH_BIN
	    ssh_command: "\"$TEST_ROOT/my ssh/other\" -o Peer=own"
	ssh_command: "\"$TEST_ROOT/my ssh/fake\""
	EOF
	(cd b && hearth config check) &&
	rm -f "$TEST_ROOT/args.fake" "$TEST_ROOT/args.other" &&
	(cd b && hearth sync far) >out && grep "^Synced with far" out &&
	grep "^Peer=own$" "$TEST_ROOT/args.other" && ! test -e "$TEST_ROOT/args.fake"
'

test_expect_success 'clone from ssh keeps what it needed as origin'"'"'s remote_command and ssh_command' '
	HEARTH_SSH="\"$TEST_ROOT/my ssh/fake\" -o Kept=yes" HEARTH_REMOTE_COMMAND="$HEARTH_BIN" \
	    hearth clone "ssh://localhost$TEST_ROOT/a" c >/dev/null &&
	grep "^    remote_command: " c/.hearth/config.yaml &&
	grep "^    ssh_command: " c/.hearth/config.yaml &&
	echo two >a/two.txt && (cd a && hearth record -m two >/dev/null) &&
	rm -f "$TEST_ROOT/args.fake" &&
	(cd c && hearth sync origin) >out && grep "^Synced with origin" out &&
	grep "^Kept=yes$" "$TEST_ROOT/args.fake" &&
	(cd c && hearth log --oneline) | grep " two$"
'

test_expect_success 'a clone that needed neither writes neither' '
	hearth clone a d >/dev/null &&
	! grep "remote_command\|ssh_command" d/.hearth/config.yaml
'

test_done
