#!/bin/sh
test_description='sync refuses other Homes, copied replicas, other protocol versions and bad frames, changing nothing'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"

# What a Home holds, to compare before and after a refused sync. Chunks
# that came whole before the refusal may stay (checked, and not asked for
# again by the rerun): content no op names yet, so no count of them here.
snapshot() {
	(cd "$1" && { hearth log --oneline; hearth ls -l head 2>&1; true; } &&
	 hearth stats | grep -E "^(ops|versions|nodes|blobs) ")
}

# No pack file the store does not list (once a lock has collected them).
no_orphans() {
	test "$(ls "$1/.hearth/packs" | wc -l)" = \
	     "$( (cd "$1" && hearth stats) | sed -n "s/^packs  *\([0-9]*\)$/\1/p")"
}

clean() {
	(cd "$1" && hearth fsck) >fsck.out && grep "no problems" fsck.out
}

# A sync through the meddling proxy standing in for ssh.
proxied() {
	rule=$1 && shift &&
	HEARTH_SSH="$HEARTH_TEST_TOOL sync-proxy $rule" HEARTH_REMOTE_COMMAND="$HEARTH_BIN" \
	    hearth sync "$@" "ssh://localhost$TEST_ROOT/a"
}

test_expect_success 'setup: two replicas in step, and a stranger' '
	hearth init a >/dev/null &&
	echo one >a/one && head -c 3000000 /dev/urandom >a/big &&
	(cd a && hearth record -m first >/dev/null) &&
	hearth init b >/dev/null && test_tool join-home b a &&
	(cd b && hearth sync ../a >/dev/null) &&
	hearth init stranger >/dev/null && echo s >stranger/s &&
	(cd stranger && hearth record -m s >/dev/null)
'

test_expect_success 'a different Home is refused, and nothing changes' '
	snapshot b >before && snapshot stranger >before.stranger &&
	test_expect_code 1 hearth -c b/.hearth/config.yaml sync stranger 2>err &&
	grep "is another Home" err &&
	snapshot b >after && test_cmp before after &&
	snapshot stranger >after.stranger && test_cmp before.stranger after.stranger
'

# A copy this hearth makes is found at its first write (t0330); one an
# older hearth made kept no note of its folder and claims the id still.
test_expect_success 'a copied state folder an older hearth made (one replica id twice) is refused' '
	cp -a a copy && test_tool meta-delete copy/.hearth/store.db state_stamp &&
	echo c >copy/c && (cd copy && hearth record -m c >/dev/null) &&
	snapshot a >before &&
	(cd copy && test_expect_code 1 hearth sync ../a 2>../err) &&
	grep "both copies claim replica [0-9a-f]\{8\}: one was copied; run .hearth reid. on the copy" err &&
	snapshot a >after && test_cmp before after
'

test_expect_success 'a Home is not its own peer' '
	(cd a && test_expect_code 2 hearth sync . 2>../err) && grep "this Home itself" err
'

home_of() { sed -n "s/^home: //p" "$1/.hearth/root"; }
replica=00112233445566778899aabbccddeeff

test_expect_success 'a client speaking only newer versions gets a clear refusal' '
	test_tool frame hello 6 7 $(home_of a) $replica >hello &&
	test_expect_code 1 hearth serve a <hello >reply 2>err &&
	grep "peer speaks protocol 6-7, we need 1-5" err &&
	test_tool frames <reply >frames &&
	printf "HELLO\nERROR peer speaks protocol 6-7, we need 1-5; upgrade the local hearth\n" >expected &&
	sed "s/ (hearth-test-tool)//; s/^ERROR [^:]*: /ERROR /" frames >frames.plain &&
	test_cmp expected frames.plain
'

test_expect_success 'a client overlapping our versions is answered' '
	test_tool frame hello 1 7 $(home_of a) $replica 0 >hello &&
	hearth serve a <hello >reply 2>err &&
	test_tool frames <reply >frames &&
	printf "HELLO\nDONE\n" >expected && test_cmp expected frames
'

test_expect_success 'a probe (a new replica asking whose Home this is) changes nothing' '
	snapshot a >before &&
	test_tool probe "$TEST_ROOT/a" >out &&
	test "$(cut -d" " -f1 out)" = "$(home_of a)" &&
	grep " hearth [0-9]" out &&
	snapshot a >after && test_cmp before after
'

test_expect_success 'serve refuses another Home and a replica claiming to be it' '
	test_tool frame hello 1 1 $replica $replica >hello &&
	test_expect_code 1 hearth serve a <hello >reply 2>err && grep "is another Home" err &&
	a_replica=$(cd b && hearth peers --porcelain | cut -f4) &&
	test -n "$a_replica" &&
	test_tool frame hello 1 1 $(home_of a) $a_replica >hello &&
	test_expect_code 1 hearth serve a <hello >reply 2>err && grep "both copies claim" err
'

test_expect_success 'oversized, unknown, corrupt, truncated and foreign first frames are refused' '
	snapshot a >before &&
	test_tool frame oversized >bad && test_expect_code 1 hearth serve a <bad >/dev/null 2>err &&
	grep "oversized frame" err &&
	test_tool frame raw 99 00 >bad && test_expect_code 1 hearth serve a <bad >/dev/null 2>err &&
	grep "unknown frame type 99" err &&
	test_tool frame badcrc HELLO 00 >bad && test_expect_code 1 hearth serve a <bad >/dev/null 2>err &&
	grep "bad checksum" err &&
	test_tool frame hello 1 1 $(home_of a) $replica | head -c 20 >bad &&
	test_expect_code 1 hearth serve a <bad >/dev/null 2>err && grep "closed the connection" err &&
	echo "Welcome to the machine" >bad &&
	test_expect_code 1 hearth serve a <bad >/dev/null 2>err &&
	grep "does not speak hearth.s sync protocol" err && grep "Welcome" err &&
	test_tool frame raw OPS 0102 >bad && test_expect_code 1 hearth serve a <bad >/dev/null 2>err &&
	grep "expected HELLO, got a OPS frame" err &&
	snapshot a >after && test_cmp before after
'

test_expect_success 'serve names what is wrong with its PATH, to the client too' '
	test_expect_code 1 hearth serve nowhere </dev/null >out 2>err &&
	grep "cannot serve nowhere" err &&
	mkdir -p plain && test_expect_code 1 hearth serve plain </dev/null >out 2>err &&
	grep "plain is not a Home" err &&
	test_tool frames <out >frames && grep "^ERROR .*not a Home" frames
'

test_expect_success 'the proxy relays an untouched sync (and the ssh transport works)' '
	echo relay >a/relay && (cd a && hearth record -m relay >/dev/null) &&
	(cd b && proxied down:any:0:none --porcelain) >out &&
	grep "^status ok" out && grep "^ops_received [1-9]" out
'

test_expect_success 'an ssh path under ~ is the remote home folder' '
	ln -s "$TEST_ROOT/a" "$HOME/a-link" &&
	echo tilde >a/tilde && (cd a && hearth record -m tilde >/dev/null) &&
	(cd b && HEARTH_SSH="$HEARTH_TEST_TOOL sync-proxy down:any:0:none" \
	    HEARTH_REMOTE_COMMAND="$HEARTH_BIN" hearth sync --porcelain "ssh://localhost/~/a-link") >out &&
	grep "^status ok" out && grep "^ops_received [1-9]" out
'

# Each: a new big file in a, then a sync into b that something breaks; b
# must be as it was, with no pack left behind, and the next sync completes.
for case in "down:CHUNK:1:flip:bad checksum" \
	    "down:CHUNK:2:hash:damaged chunk" \
	    "down:OPS:1:truncate:closed the connection" \
	    "down:any:3:oversize:oversized frame" \
	    "down:CHUNK:1:kill:closed the connection" \
	    "down:BLOB:1:hash:which this store does not hold" \
	    "down:BLOB:1:swap:whose chunks make other bytes" \
	    "down:OPS:1:hash:are not the ops it holds"; do
	rule=${case%:*} reason=${case##*:}
	test_expect_success "receiving: $rule is refused ($reason), nothing changes" '
		head -c 5000000 /dev/urandom >a/new-$test_count && (cd a && hearth record -m new >/dev/null) &&
		snapshot b >before &&
		(cd b && test_expect_code 1 proxied '"$rule"' 2>../err) &&
		grep "'"$reason"'" err &&
		snapshot b >after && test_cmp before after && no_orphans b && clean b &&
		(cd b && hearth sync ../a >/dev/null) && clean b && no_orphans b
	'
done

# Protocol 5 sends a chunk as the sender's pack stores it: a compressible
# one as its zstd frame, which the receiver decodes and checks before it
# keeps it. A changed byte, a label that lies, or a codec the protocol
# agreed on lacks are each refused, and nothing changes.
for case in "down:CHUNK:1:hash:damaged chunk\|does not decode::" \
	    "down:CHUNK:1:zstd:as a zstd frame that does not decode:random:" \
	    "down:CHUNK:1:incompressible:which protocol 4 does not have:random:4" \
	    "down:CHUNK:1:zstd:which protocol 4 does not have::4"; do
	old_ifs=$IFS && IFS=: && set -- $case && IFS=$old_ifs
	rule=$1:$2:$3:$4 reason=$5 content=${6-} ceiling=${7-}
	test_expect_success "receiving in codecs: $rule${ceiling:+ (protocol $ceiling)} is refused ($reason)" '
		if test "$content" = random
		then head -c 3000000 /dev/urandom
		else seq 1 400000 | sed "s/^/line $test_count of text /"
		fi >a/coded-$test_count &&
		(cd a && hearth record -m coded >/dev/null) &&
		snapshot b >before &&
		(cd b && HEARTH_SYNC_PROTOCOL_MAX=${ceiling:-5} test_expect_code 1 proxied '"$rule"' 2>../err) &&
		cat err && grep "'"$reason"'" err &&
		snapshot b >after && test_cmp before after && no_orphans b && clean b &&
		(cd b && hearth sync ../a >/dev/null && hearth checkout >/dev/null) && clean b &&
		no_orphans b && cmp a/coded-$test_count b/coded-$test_count
	'
done

# The same with the client sending: a must stay as it was.
for case in "up:CHUNK:1:flip:bad checksum" \
	    "up:CHUNK:1:hash:damaged chunk" \
	    "up:OPS:1:flip:bad checksum" \
	    "up:OPS:1:truncate:closed the connection" \
	    "up:CHUNK:2:kill:closed the connection" \
	    "up:OPS:1:hash:are not the ops it holds"; do
	rule=${case%:*} reason=${case##*:}
	test_expect_success "sending: $rule is refused ($reason), the server changes nothing" '
		head -c 5000000 /dev/urandom >b/new-$test_count && (cd b && hearth record -m new >/dev/null) &&
		snapshot a >before &&
		(cd b && test_expect_code 1 proxied '"$rule"' 2>../err) &&
		grep "'"$reason"'" err &&
		snapshot a >after && test_cmp before after && clean a &&
		(cd a && hearth sync ../b >/dev/null) && clean a && no_orphans a
	'
done

# A server that sends one op no honest peer would.
faked() {
	HEARTH_SSH="$HEARTH_TEST_TOOL fake-peer $1" hearth sync --pull "ssh://fake$TEST_ROOT/a"
}

for case in "own:as made by this replica, which never made it" \
	    "root:does not decode: place of the top folder or the trash" \
	    "trash:does not decode: place of the top folder or the trash" \
	    "gap:where fafafafa/1 was due" \
	    "noncanonical:non-canonical encoding"; do
	kind=${case%%:*} reason=${case#*:}
	test_expect_success "an op from a peer is refused: $kind" '
		snapshot b >before &&
		(cd b && test_expect_code 1 faked '"$kind"' 2>../err) &&
		grep "'"$reason"'" err &&
		snapshot b >after && test_cmp before after && clean b
	'
done

test_expect_success 'a peer that stops answering times out, and nothing changes' '
	snapshot b >before &&
	(cd b && HEARTH_SYNC_TIMEOUT_MS=300 test_expect_code 1 faked stall 2>../err) &&
	grep "no answer from fake for 0.3 s; gave up" err &&
	snapshot b >after && test_cmp before after
'

# The op comes with no version: the sync names it with a merge version
# of b's own (hearth(1), Naming versions), one op more.
test_expect_success 'the fake peer is otherwise honest: its plain op is taken' '
	(cd b && hearth stats) | sed -n "s/^ops  *//p" >ops.before &&
	(cd b && faked good) >out && grep "received 1 op" out &&
	(cd b && hearth stats) | sed -n "s/^ops  *//p" >ops.after &&
	test $(cat ops.after) = $(($(cat ops.before) + 2)) && clean b &&
	(cd b && hearth log --oneline) | head -n 1 | grep "Merge 1 op from" &&
	(cd b && hearth status --porcelain) | grep "^# unnamed 0$"
'

test_expect_success 'after all that, both replicas agree' '
	(cd a && hearth sync ../b >/dev/null) &&
	snapshot a >a.final && snapshot b >b.final &&
	(cd a && hearth log | sed "s/ (arrived by sync)//") >log.a && (cd b && hearth log | sed "s/ (arrived by sync)//") >log.b && test_cmp log.a log.b
'

test_done
