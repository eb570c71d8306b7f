#!/bin/sh
test_description='a sync killed at either end mid-transfer leaves both sides valid; the rerun completes it'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"

snapshot() {
	(cd "$1" && { hearth log --oneline; hearth ls -l head 2>&1; true; } &&
	 hearth stats | grep -E "^(ops|versions|nodes|chunks|blobs|packs) ")
}

clean() {
	(cd "$1" && hearth fsck) >fsck.out && grep "no problems" fsck.out
}

no_orphans() {
	test "$(ls "$1/.hearth/packs" | wc -l)" = \
	     "$( (cd "$1" && hearth stats) | sed -n "s/^packs  *\([0-9]*\)$/\1/p")"
}

# The process a sync client started: its `hearth serve`.
child_of() {
	pgrep -P "$1" 2>/dev/null || cat /proc/"$1"/task/"$1"/children 2>/dev/null
}

# Waits until folder $1 holds more than $2 files: the receiver's new pack
# has started, so the transfer is under way.
wait_for_pack() {
	test_wait_for "[ \$(ls \"$1\" | wc -l) -gt $2 ]"
}

# The big files only have to outlast the moment between a pack's first bytes
# and the kill; the sanitized build moves bytes about ten times slower, so an
# eighth of the size spans as long a transfer there.
megabyte=1000000
[ -z "${HEARTH_SANITIZED:-}" ] || megabyte=125000

test_expect_success 'setup: a replica with a big file, and an empty one' '
	hearth init a >/dev/null && hearth init b >/dev/null && test_tool join-home b a &&
	head -c $((200 * megabyte)) /dev/urandom >a/big && echo small >a/small &&
	(cd a && hearth record -m big >/dev/null)
'

test_expect_success 'the serving side killed (SIGKILL) while the client takes chunks in' '
	snapshot b >before &&
	packs=$(ls b/.hearth/packs | wc -l)
	(cd b && exec "$HEARTH_BIN" sync ../a >../out 2>../err) &
	client=$!
	wait_for_pack b/.hearth/packs $packs &&
	server=$(child_of $client) && test -n "$server" &&
	kill -9 $server &&
	! wait $client &&
	grep "closed the connection\|killed by signal 9" err &&
	snapshot b >after && test_cmp before after &&
	clean a && clean b && no_orphans b
'

test_expect_success 'the rerun completes it' '
	(cd b && hearth sync ../a >/dev/null) && clean b && no_orphans b &&
	(cd b && hearth checkout >/dev/null) && cmp a/big b/big
'

test_expect_success 'the serving side killed while it takes chunks in (a push)' '
	head -c $((150 * megabyte)) /dev/urandom >b/big2 && (cd b && hearth record -m big2 >/dev/null) &&
	snapshot a >before &&
	packs=$(ls a/.hearth/packs | wc -l)
	(cd b && exec "$HEARTH_BIN" sync ../a >../out 2>../err) &
	client=$!
	wait_for_pack a/.hearth/packs $packs &&
	server=$(child_of $client) && test -n "$server" &&
	kill -9 $server &&
	! wait $client &&
	snapshot a >after && test_cmp before after &&
	clean a && clean b
'

test_expect_success 'the orphan pack goes at the next lock, and the rerun completes it' '
	(cd b && hearth sync ../a >/dev/null) && clean a && no_orphans a &&
	(cd a && hearth checkout >/dev/null) && cmp a/big2 b/big2
'

test_expect_success 'the client killed while it takes chunks in' '
	head -c $((150 * megabyte)) /dev/urandom >a/big3 && (cd a && hearth record -m big3 >/dev/null) &&
	snapshot b >before &&
	packs=$(ls b/.hearth/packs | wc -l)
	(cd b && exec "$HEARTH_BIN" sync ../a >../out 2>../err) &
	client=$!
	wait_for_pack b/.hearth/packs $packs &&
	server=$(child_of $client) &&
	kill -9 $client && ! wait $client &&
	# The server sees its pipe close and goes too.
	test_wait_for "! kill -0 $server 2>/dev/null" &&
	snapshot b >after && test_cmp before after &&
	clean a && clean b &&
	(cd b && hearth sync ../a >/dev/null) && clean b && no_orphans b &&
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
