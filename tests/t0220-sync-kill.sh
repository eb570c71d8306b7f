#!/bin/sh
test_description='a sync killed at either end mid-transfer leaves both sides valid, keeps the chunks it made durable, and the rerun moves only the rest'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"

# What a Home holds apart from its chunks: those a killed sync made durable
# stay (docs/DESIGN.md §8, resuming), the rest is as it was.
snapshot() {
	(cd "$1" && { hearth log --oneline; hearth ls -l head 2>&1; true; } &&
	 hearth stats | grep -E "^(ops|versions|nodes|blobs) ")
}

# The chunks a Home holds, as hearth stats counts them.
chunks() {
	(cd "$1" && hearth stats) | sed -n "s/^chunks  *\([0-9]*\)$/\1/p"
}

field() {	# FILE KEY: the value of one porcelain line
	sed -n "s/^$2 //p" "$1"
}

clean() {
	(cd "$1" && hearth fsck) >fsck.out && grep "no problems" fsck.out
}

no_orphans() {
	test "$(ls "$1/.hearth/packs" | wc -l)" = \
	     "$( (cd "$1" && hearth stats) | sed -n "s/^packs  *\([0-9]*\)$/\1/p")"
}

# The stand-ins below hold a transfer half way, so no size has to outlast
# a race; the sanitized build moves bytes about ten times slower, so it
# gets an eighth of each to keep the test short.
megabyte=1000000
[ -z "${HEARTH_SANITIZED:-}" ] || megabyte=125000

test_expect_success 'setup: a replica with a big file, and an empty one' '
	hearth init a >/dev/null && hearth init b >/dev/null && test_tool join-home b a &&
	head -c $((200 * megabyte)) /dev/urandom >a/big && echo small >a/small &&
	(cd a && hearth record -m big >/dev/null)
'

# A stand-in for ssh to this machine that lets the first $HOLD_BYTES
# bytes of the peer's answer through, then holds the rest while
# $TEST_ROOT/hold exists: the sync stalls half way however fast the
# machine is, and makes what it has durable once the line is quiet, so a
# kill lands mid-transfer. dd with bs= passes each read on at once and
# count_bytes counts bytes, not reads (which a slow writer makes small);
# iflag=fullblock or head -c would sit on the last part of a block and
# stall the protocol. The serving hearth's pid goes to $TEST_ROOT/server.
cat >"$TEST_ROOT/slow-ssh" <<EOF
#!/bin/sh
for last; do :; done
deadline=\$((\$(date +%s) + 600))
sh -c "echo \\\$\\\$ >$TEST_ROOT/server; exec \$last" |
	{ dd bs=65536 count=\${HOLD_BYTES:-0} iflag=count_bytes 2>/dev/null
	while [ -e "$TEST_ROOT/hold" ] && [ \$(date +%s) -lt \$deadline ]; do sleep 0.1; done; exec cat; }
EOF
chmod +x "$TEST_ROOT/slow-ssh"

# On a failure the serving side may still be held, holding the lock of
# its Home: the cleanup of a test that holds one. (The line before each
# `( ... ) &` ends the && chain: a chain ending in & runs whole in the
# background, its assignments and cleanups lost to the test.)
release_server='rm -f "$TEST_ROOT/hold" "$TEST_ROOT/feeding"
	[ ! -s "$TEST_ROOT/server" ] || kill -9 $(cat "$TEST_ROOT/server") 2>/dev/null; wait; true'

test_expect_success 'the serving side killed (SIGKILL) while the client takes chunks in' '
	snapshot b >before &&
	held=$(chunks b) &&
	: >"$TEST_ROOT/hold" && rm -f "$TEST_ROOT/server" &&
	test_when_finished "$release_server"
	(cd b && HEARTH_SSH="$TEST_ROOT/slow-ssh" HOLD_BYTES=$((100 * megabyte)) \
	    HEARTH_REMOTE_COMMAND="$HEARTH_BIN" exec "$HEARTH_BIN" sync "ssh://localhost$TEST_ROOT/a" \
	    >../out 2>../err) &
	client=$!
	test_wait_for "test -s \"$TEST_ROOT/server\" && test \$(chunks b) -gt $held" &&
	kill -9 $(cat "$TEST_ROOT/server") &&
	rm "$TEST_ROOT/server" "$TEST_ROOT/hold" &&
	! wait $client &&
	grep "closed the connection\|killed by signal 9" err &&
	snapshot b >after && test_cmp before after &&
	clean a && clean b && no_orphans b &&
	chunks b >kept && test $(cat kept) -gt 0
'

test_expect_success 'the rerun completes it, asking only for the chunks still missing' '
	(cd b && hearth sync --porcelain ../a) >out && clean b && no_orphans b &&
	test $(( $(cat kept) + $(field out chunks_received) )) = $(chunks b) &&
	test $(field out chunk_bytes_received) -lt $((200 * megabyte)) &&
	(cd b && hearth checkout >/dev/null) && cmp a/big b/big
'

# The same the other way: passes the first $FEED_BYTES bytes the client
# sends on to the serving side and holds the rest while
# $TEST_ROOT/feeding exists. Once those bytes have passed
# ($TEST_ROOT/fed; a pipe holds 64 KiB at most) the serving side is
# taking chunks in; its pack is visible only once a batch is durable, so
# the test waits for the feed, not the pack.
cat >"$TEST_ROOT/feed-ssh" <<EOF
#!/bin/sh
for last; do :; done
deadline=\$((\$(date +%s) + 600))
{ dd bs=65536 count=\${FEED_BYTES:-0} iflag=count_bytes 2>/dev/null; : >"$TEST_ROOT/fed"
  while [ -e "$TEST_ROOT/feeding" ] && [ \$(date +%s) -lt \$deadline ]; do sleep 0.1; done
  exec cat; } |
	sh -c "echo \\\$\\\$ >$TEST_ROOT/server; exec \$last"
EOF
chmod +x "$TEST_ROOT/feed-ssh"

test_expect_success 'the serving side killed while it takes chunks in (a push)' '
	head -c $((150 * megabyte)) /dev/urandom >b/big2 && (cd b && hearth record -m big2 >/dev/null) &&
	snapshot a >before &&
	: >"$TEST_ROOT/feeding" && rm -f "$TEST_ROOT/server" "$TEST_ROOT/fed" &&
	test_when_finished "$release_server"
	(cd b && HEARTH_SSH="$TEST_ROOT/feed-ssh" FEED_BYTES=$((50 * megabyte)) \
	    HEARTH_REMOTE_COMMAND="$HEARTH_BIN" \
	    exec "$HEARTH_BIN" sync "ssh://localhost$TEST_ROOT/a" >../out 2>../err) &
	client=$!
	test_wait_for "test -e \"$TEST_ROOT/fed\" && test -s \"$TEST_ROOT/server\"" &&
	kill -9 $(cat "$TEST_ROOT/server") &&
	rm "$TEST_ROOT/server" "$TEST_ROOT/feeding" "$TEST_ROOT/fed" &&
	! wait $client &&
	snapshot a >after && test_cmp before after &&
	clean a && clean b
'

test_expect_success 'the orphan pack goes at the next lock, and the rerun completes it' '
	(cd b && hearth sync ../a >/dev/null) && clean a && no_orphans a &&
	(cd a && hearth checkout >/dev/null) && cmp a/big2 b/big2
'

# Killed half way: once the chunks of the first half are durable (hearth
# stats counts them), SIGKILL; the rerun moves at most the rest.
test_expect_success 'the client killed half way; the rerun moves at most the rest' '
	before_a=$(chunks a) &&
	head -c $((150 * megabyte)) /dev/urandom >a/big3 && (cd a && hearth record -m big3 >/dev/null) &&
	third=$(( ($(chunks a) - before_a) / 3 )) &&
	snapshot b >before &&
	held=$(chunks b) &&
	: >"$TEST_ROOT/hold"
	(cd b && HEARTH_SSH="$TEST_ROOT/slow-ssh" HOLD_BYTES=$((75 * megabyte)) \
	    HEARTH_REMOTE_COMMAND="$HEARTH_BIN" exec "$HEARTH_BIN" sync "ssh://localhost$TEST_ROOT/a" \
	    >../out 2>../err) &
	client=$!
	test_wait_for "test \$(chunks b) -ge $((held + third))" &&
	kill -9 $client && ! wait $client &&
	rm "$TEST_ROOT/hold" &&
	snapshot b >after && test_cmp before after &&
	kept=$(( $(chunks b) - held )) &&
	clean a && clean b &&
	(cd b && hearth sync --porcelain ../a) >out && clean b && no_orphans b &&
	moved=$(field out chunks_received) && total=$(( $(chunks b) - held )) &&
	echo "kept $kept of $total chunks; the rerun moved $moved" &&
	test $kept -ge $third && test $moved -le $((total - kept)) &&
	test $(field out chunk_bytes_received) -lt $((113 * megabyte)) &&
	(cd b && hearth log | sed "s/ (arrived by sync)//") >log.b && (cd a && hearth log | sed "s/ (arrived by sync)//") >log.a && test_cmp log.a log.b
'

for phase in "connecting" "receiving ops" "receiving chunks" "integrating" "sending ops" \
	     "sending chunks"; do
	test_expect_success "cancelled at \"$phase\": both sides as they were, the rerun completes" '
		head -c 6000000 /dev/urandom >a/c-$test_count && (cd a && hearth record -m c >/dev/null) &&
		head -c 6000000 /dev/urandom >b/c-$test_count && (cd b && hearth record -m c >/dev/null) &&
		snapshot a >a.before && snapshot b >b.before &&
		test_tool sync-cancel b "$TEST_ROOT/a" "'"$phase"'" >out &&
		grep "^cancelled: sync cancelled" out &&
		case "'"$phase"'" in
		sending*)	# the first half (the pull) was committed before
			snapshot a >a.after && test_cmp a.before a.after ;;
		*)	snapshot a >a.after && test_cmp a.before a.after &&
			snapshot b >b.after && test_cmp b.before b.after ;;
		esac &&
		clean a && clean b && no_orphans b &&
		(cd b && hearth sync ../a >/dev/null) && clean a && clean b && no_orphans a &&
		(cd b && hearth log | sed "s/ (arrived by sync)//") >log.b && (cd a && hearth log | sed "s/ (arrived by sync)//") >log.a && test_cmp log.a log.b
	'
done

test_done
