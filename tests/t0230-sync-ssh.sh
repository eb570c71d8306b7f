#!/bin/sh
test_description='sync over ssh with a real sshd on 127.0.0.1, a key made here, and named peers'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"

SSHD=/usr/sbin/sshd
test -x $SSHD || test_skip_all "no $SSHD (install openssh-server; .ci/run does)"
command -v ssh >/dev/null && command -v ssh-keygen >/dev/null ||
	test_skip_all "no ssh or ssh-keygen (install openssh-client)"

S=$TEST_ROOT/ssh
user=$(id -un)

# sshd as whoever runs the test: its own config, host key and authorized
# key, all in the scratch folder. As root it also needs its privilege
# separation folder.
start_sshd() {
	mkdir -p "$S" && chmod 700 "$S" &&
	ssh-keygen -q -t ed25519 -N "" -f "$S/host_key" &&
	ssh-keygen -q -t ed25519 -N "" -f "$S/user_key" &&
	cp "$S/user_key.pub" "$S/authorized_keys" &&
	if [ "$(id -u)" = 0 ]; then mkdir -p /run/sshd && chmod 755 /run/sshd; fi &&
	tries=0 &&
	while :; do
		port=$((20000 + ($$ * 7 + tries * 101) % 40000))
		cat >"$S/sshd_config" <<-EOF
		Port $port
		ListenAddress 127.0.0.1
		HostKey $S/host_key
		PidFile $S/sshd.pid
		AuthorizedKeysFile $S/authorized_keys
		StrictModes no
		UsePAM no
		PubkeyAuthentication yes
		PasswordAuthentication no
		KbdInteractiveAuthentication no
		PermitRootLogin yes
		AllowTcpForwarding no
		X11Forwarding no
		PrintMotd no
		LogLevel VERBOSE
		EOF
		# Its output away from ours: prove waits for every writer to close.
		$SSHD -f "$S/sshd_config" -D -e >/dev/null 2>"$S/sshd.log" </dev/null &
		sshd_pid=$!
		# Up once it listens, gone if the port was taken.
		test_wait_for "! kill -0 $sshd_pid 2>/dev/null || grep -q \"listening on\" \"$S/sshd.log\"" ||
			break
		if kill -0 $sshd_pid 2>/dev/null && grep -q "listening on" "$S/sshd.log"; then
			return 0
		fi
		tries=$((tries + 1))
		[ $tries -lt 20 ] || { cat "$S/sshd.log" >&2; return 1; }
	done
}

sshd_pid=
start_sshd || test_skip_all "sshd would not start here (see the log above)"
# test_done removes the scratch folder: the pid is kept here, not there.
trap 'kill $sshd_pid 2>/dev/null' EXIT

export HEARTH_SSH="ssh -F /dev/null -i $S/user_key -o IdentitiesOnly=yes -o BatchMode=yes \
-o UserKnownHostsFile=$S/known_hosts -o StrictHostKeyChecking=no -o LogLevel=ERROR"
# The remote `hearth` is this build's, wherever PATH points in the session.
export HEARTH_REMOTE_COMMAND="$HEARTH_BIN"

url="ssh://$user@127.0.0.1:$port$TEST_ROOT/a"

agree() {
	(cd a && hearth log | sed "s/ (arrived by sync)//") >log.a && (cd b && hearth log | sed "s/ (arrived by sync)//") >log.b && test_cmp log.a log.b &&
	(cd a && hearth ls -l head) >ls.a && (cd b && hearth ls -l head) >ls.b && test_cmp ls.a ls.b
}

clean() {
	(cd "$1" && hearth fsck) >fsck.out && grep "no problems" fsck.out
}

test_expect_success 'setup: a Home with history, an empty replica, a working ssh' '
	hearth init a >/dev/null && mkdir a/docs &&
	echo "über notes" >"a/docs/notes (1).txt" && head -c 3000000 /dev/urandom >a/big &&
	(cd a && hearth record -m first >/dev/null) &&
	hearth init b >/dev/null && test_tool join-home b a &&
	$HEARTH_SSH -p $port $user@127.0.0.1 true
'

test_expect_success 'sync over ssh takes in everything' '
	(cd b && hearth sync --porcelain "$url") >out &&
	grep "^status ok" out && grep "^ops_received [1-9]" out && grep "^chunks_received [1-9]" out &&
	agree && clean b &&
	(cd b && hearth checkout >/dev/null) && cmp a/big b/big &&
	test "$(cat "b/docs/notes (1).txt")" = "über notes"
'

test_expect_success 'both ways over ssh, to a path with a space and a quote' '
	mv a "a d'"'"'x" && url2="ssh://$user@127.0.0.1:$port$TEST_ROOT/a d'"'"'x" &&
	echo from-a >"a d'"'"'x/from-a" && (cd "a d'"'"'x" && hearth record -m "from a" >/dev/null) &&
	echo from-b >b/from-b && (cd b && hearth record -m "from b" >/dev/null) &&
	(cd b && hearth sync --porcelain "$url2") >out &&
	grep "^ops_received [1-9]" out && grep "^ops_sent [1-9]" out &&
	mv "a d'"'"'x" a && agree && clean a && clean b
'

test_expect_success 'clone over ssh, as the README says: origin, a conflict, resolved, converged' '
	hearth clone "$url" lap >out && grep "^Made replica" out &&
	(cd lap && hearth peers --porcelain) >peers && cut -f1,2 peers >names &&
	printf "origin\t%s\n" "$url" >expected && test_cmp expected names &&
	echo "laptop words" >"lap/docs/notes (1).txt" && (cd lap && hearth record -m lap >/dev/null) &&
	echo "desktop words" >"a/docs/notes (1).txt" && (cd a && hearth record -m desk >/dev/null) &&
	(cd lap && hearth sync origin >/dev/null && hearth conflicts --porcelain) >conflicts &&
	grep "^c[0-9a-f]* content docs/notes (1).txt$" conflicts &&
	(cd lap && hearth resolve --theirs "docs/notes (1).txt" >/dev/null && hearth sync origin >/dev/null) &&
	test "$(cat "lap/docs/notes (1).txt")" = "desktop words" &&
	(cd a && hearth checkout >/dev/null && hearth conflicts) >out && grep "No conflicts" out &&
	diff -r --exclude=.hearth --exclude=.hearth-id a lap &&
	clean a && clean lap
'

test_expect_success 'edits of different lines merge over ssh, on either side' '
	printf "1\n2\n3\n4\n5\n6\n" >a/docs/merge.txt && (cd a && hearth record -m base >/dev/null) &&
	(cd lap && hearth sync origin >/dev/null && hearth checkout >/dev/null) &&
	printf "one\n2\n3\n4\n5\n6\n" >a/docs/merge.txt && (cd a && hearth record -m desk >/dev/null) &&
	printf "1\n2\n3\n4\n5\nsix\n" >lap/docs/merge.txt && (cd lap && hearth record -m lap >/dev/null) &&
	(cd lap && hearth sync --porcelain origin) >out && grep "^files_merged 1$" out &&
	(cd a && hearth conflicts) >out && grep "No conflicts" out &&
	(cd a && hearth checkout >/dev/null) && (cd lap && hearth checkout >/dev/null) &&
	printf "one\n2\n3\n4\n5\nsix\n" >want && cmp want a/docs/merge.txt && cmp want lap/docs/merge.txt &&
	printf "one\n2\nthree\n4\n5\nsix\n" >a/docs/merge.txt && (cd a && hearth record -m desk >/dev/null) &&
	printf "one\n2\n3\n4\nfive\nsix\n" >lap/docs/merge.txt && (cd lap && hearth record -m lap >/dev/null) &&
	(cd lap && hearth sync --push origin >/dev/null) &&
	(cd a && hearth conflicts) >out && grep "No conflicts" out &&
	(cd lap && hearth sync origin >/dev/null && hearth conflicts) >out && grep "No conflicts" out &&
	(cd a && hearth checkout >/dev/null) && (cd lap && hearth checkout >/dev/null) &&
	printf "one\n2\nthree\n4\nfive\nsix\n" >want && cmp want a/docs/merge.txt &&
	cmp want lap/docs/merge.txt && clean a && clean lap
'

test_expect_success 'a joined Home served over ssh by its config file' '
	mkdir -p j/ssd j/hdd/Videos && echo film >j/hdd/Videos/trip.mkv &&
	printf "roots:\n  - name: ssd\n    path: %s/j/ssd\n  - name: hdd\n    path: %s/j/hdd\nstate: %s/j/state\n" \
	    "$TEST_ROOT" "$TEST_ROOT" "$TEST_ROOT" >j/home.yaml &&
	hearth -c j/home.yaml init >/dev/null && (cd j/ssd && hearth record -m joined >/dev/null) &&
	hearth clone "ssh://$user@127.0.0.1:$port$TEST_ROOT/j/home.yaml" jlap >/dev/null &&
	test "$(cat jlap/Videos/trip.mkv)" = film
'

test_expect_success 'a named peer from the config, peers and sync --all' '
	cat >>b/.hearth/config.yaml <<-EOF &&
	peers:
	  - name: laptop
	    url: $url
	  - name: desk
	    url: $TEST_ROOT/a
	EOF
	echo more >a/more && (cd a && hearth record -m more >/dev/null) &&
	(cd b && hearth sync laptop) >out && grep "^Synced with laptop ($url)" out &&
	(cd b && hearth peers --porcelain) >peers &&
	grep "^laptop	$url	1	[0-9a-f]\{32\}	" peers && grep "^desk	" peers &&
	echo again >a/again && (cd a && hearth record -m again >/dev/null) &&
	(cd b && hearth sync --all) >out &&
	grep "^Synced with laptop" out && grep "^Synced with desk" out &&
	(cd b && hearth peers) >peers && grep "^laptop ssh://" peers && grep "last success" peers &&
	agree
'

test_expect_success 'an unreachable peer fails with what ssh said, and peers records it' '
	(cd b && test_expect_code 1 hearth sync "ssh://$user@127.0.0.1:1$TEST_ROOT/a" 2>../err) &&
	grep "exited with status 255" err && grep -i "refused\|connect" err &&
	(cd b && hearth peers --porcelain) >peers &&
	grep "^ssh://$user@127.0.0.1:1$TEST_ROOT/a	.*	0	-	" peers
'

test_expect_success 'a remote path that is no Home: the remote error comes back' '
	(cd b && test_expect_code 1 hearth sync "ssh://$user@127.0.0.1:$port$TEST_ROOT/nowhere" \
	    2>../err) &&
	grep "cannot serve $TEST_ROOT/nowhere" err
'

test_done
