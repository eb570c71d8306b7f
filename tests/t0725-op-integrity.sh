#!/bin/sh
test_description='fsck finds a flipped bit at any byte of any stored op and of the history, and names the op'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"

db=h/.hearth/store.db

# The N-th stored op (from 0, in replica and counter order) as hex.
op_hex() { sed -n "$(($1 + 1))p" ops; }
# Its kind, replica (first 8 hex) and counter (under 128: one varint byte).
op_kind() { case $(op_hex "$1" | cut -c3-4) in 01) echo place;; 02) echo set;; 03) echo commit;; esac; }
op_name() {
	echo "op $(op_hex "$1" | cut -c5-12)/$((0x$(op_hex "$1" | cut -c37-38))) ($(op_kind "$1"))"
}

# Flips each byte of COLUMN of the N-th row of TABLE in turn; fsck must
# fail and print $want each time; the bit is flipped back before the next.
walk() {
	table=$1 n=$2 column=$3 want=$4
	length=$(test_tool flip $db $table $n $column length) && test "$length" -gt 0 || return 1
	pos=0
	while test $pos -lt $length; do
		test_tool flip $db $table $n $column $pos &&
		(cd h && ! hearth fsck) >fsck.out 2>&1 &&
		grep -F "$want" fsck.out >/dev/null ||
		{ echo "byte $pos of $column of $table $n: fsck did not say \"$want\""; cat fsck.out;
		  return 1; }
		test_tool flip $db $table $n $column $pos || return 1
		pos=$((pos + 1))
	done
	echo "$table $n $column: $length bytes, each found" >&2
}

test_expect_success 'setup: ops of every kind, on files, a folder and a link' '
	hearth init h >/dev/null &&
	mkdir h/docs && echo one >h/docs/one && printf "two\n" >h/two && ln -s docs/one h/link &&
	(cd h && hearth record -m first >/dev/null) &&
	echo changed >h/two && mv h/docs/one h/docs/uno && rm h/link &&
	(cd h && hearth record -m "an edit, a move and a delete" >/dev/null) &&
	test_tool ops h >ops && test $(wc -l <ops) -lt 100 &&
	(cd h && hearth fsck) >fsck.out && grep "no problems" fsck.out
'

# A few ops of each kind: the first and the last of each.
test_expect_success 'the ops to walk: the first and last place, set and commit' '
	n=0 && : >chosen &&
	while test $n -lt $(wc -l <ops); do echo "$n $(op_kind $n)"; n=$((n + 1)); done >kinds &&
	for kind in place set commit; do
		grep " $kind$" kinds | head -n 1 | cut -d" " -f1 >>chosen &&
		grep " $kind$" kinds | tail -n 1 | cut -d" " -f1 >>chosen || return 1
	done &&
	sort -un chosen >chosen.sorted && test $(wc -l <chosen.sorted) = 6
'

test_expect_success 'every byte of each op'"'"'s encoding: fsck names the op' '
	for n in $(cat chosen.sorted); do walk op $n body "$(op_name $n)" || return 1; done
'

test_expect_success 'every byte of each op'"'"'s stored hash: fsck names the op' '
	for n in $(cat chosen.sorted); do walk op $n chain "$(op_name $n)" || return 1; done
'

test_expect_success 'every byte of the node a place or set is filed under' '
	for n in $(cat chosen.sorted); do
		test $(op_kind $n) = commit && continue
		walk op $n node "$(op_name $n): its row disagrees with its body" || return 1
	done
'

test_expect_success 'every byte of each version'"'"'s author and message in the history' '
	for n in 0 1; do
		walk version $n author "its row in the history is not what its COMMIT says" &&
		walk version $n message "its row in the history is not what its COMMIT says" || return 1
	done
'

test_expect_success 'a version without its COMMIT, and a COMMIT without its version' '
	cp -a h lost-version && cp -a h lost-commit &&
	test_tool row-drop lost-version/.hearth/store.db version 1 &&
	(cd lost-version && test_expect_code 1 hearth fsck) >fsck.out 2>&1 &&
	last=$(($(wc -l <ops) - 1)) && test $(op_kind $last) = commit &&
	grep "^commit $(op_hex $last | cut -c5-12)/$((0x$(op_hex $last | cut -c37-38))) has no version in the history" fsck.out &&
	test_tool row-drop lost-commit/.hearth/store.db op $last &&
	(cd lost-commit && test_expect_code 1 hearth fsck) >fsck.out 2>&1 &&
	grep "^version [0-9a-f]\{12\} has no COMMIT op" fsck.out
'

# Each read of an op checks its bytes against its chain (store_ops_next,
# store_get_op), not fsck alone: a flipped bit in a folder's name made an
# old version list, export and check out under a name never recorded.
test_expect_success 'every command that reads a damaged op refuses, naming it' '
	hearth init r >/dev/null && mkdir r/docs && echo one >r/docs/one && echo two >r/two &&
	(cd r && hearth record -m first >/dev/null) && first=$(cd r && hearth log --oneline | cut -d" " -f1) &&
	echo changed >r/two && (cd r && hearth record -m second >/dev/null) &&
	test_tool ops r >r.ops && place=$(head -n 1 r.ops) &&
	before_name=${place%%646f6373*} && test "$before_name" != "$place" &&
	test_tool flip r/.hearth/store.db op 0 body $((${#before_name} / 2)) &&
	want="op $(echo "$place" | cut -c5-12)/1 (place) is damaged: its bytes do not match its hash chain" &&
	(cd r && hearth status) >/dev/null &&
	for command in "ls $first" "export $first ../r.export" "log docs" "show $first" "diff $first" \
	    "checkout $first"; do
		(cd r && test_expect_code 1 hearth $command) >out 2>err &&
		grep -F "$want" err && ! grep eocs out || { echo "hearth $command"; cat out err; return 1; }
	done &&
	! test -e r.export && test "$(cat r/two)" = changed &&
	test_tool flip r/.hearth/store.db op 0 body $((${#before_name} / 2)) &&
	(cd r && hearth ls $first) >out && grep "^docs/$" out
'

test_expect_success 'every bit flipped back: the store is whole again' '
	(cd h && hearth fsck) >fsck.out && grep "no problems" fsck.out
'

test_expect_success 'a damaged op never travels: sync and clone refuse it, naming it' '
	hearth clone h c >/dev/null &&
	echo more >h/more && (cd h && hearth record -m more >/dev/null) &&
	last=$(($(test_tool ops h | wc -l) - 1)) &&
	test_tool ops h >ops &&
	test_tool flip $db op $last body 20 &&
	(cd c && hearth log --oneline) >log.before &&
	(cd c && test_expect_code 1 hearth sync ../h 2>../err) &&
	grep "$(op_name $last) in this store is damaged" err &&
	(cd c && hearth log --oneline) >log.after && test_cmp log.before log.after &&
	test_expect_code 1 hearth clone h d 2>err && grep "is damaged" err &&
	test_tool flip $db op $last body 20 && (cd c && hearth sync ../h >/dev/null)
'

test_expect_success 'fsck --repair fetches damaged ops from a peer, proved by the chain' '
	(cd c && hearth sync ../h >/dev/null) &&
	test_tool ops h >ops.before && n=$(wc -l <ops.before) &&
	set_op=$(grep -n "^0102" ops.before | tail -n 1 | cut -d: -f1) &&
	test_tool flip $db op $((set_op - 1)) body 40 &&
	test_tool flip $db op $((n - 1)) chain 3 &&
	test_tool flip $db op 0 node 5 &&
	test_tool flip $db version 0 author 2 &&
	(cd h && ! hearth fsck) >fsck.out && test $(grep -c "is damaged" fsck.out) = 2 &&
	(cd h && hearth fsck --repair ../c) >repair.out 2>&1 &&
	grep "2 damaged ops; 2 fetched and proved by the hash chain, 0 lacking" repair.out &&
	sed -n "/after the repair/,\$p" repair.out | grep "no problems" &&
	test_tool ops h >ops.after && test_cmp ops.before ops.after &&
	(cd h && hearth fsck) >fsck.out && grep "no problems" fsck.out
'

test_expect_success 'an op the peer lacks stays damaged, and the repair says so' '
	echo newest >h/newest && (cd h && hearth record -m newest >/dev/null) &&
	n=$(test_tool ops h | wc -l) && test_tool flip $db op $((n - 1)) body 25 &&
	(cd h && test_expect_code 1 hearth fsck --repair ../c) >repair.out 2>&1 &&
	grep "1 damaged op; 0 fetched and proved by the hash chain, 1 lacking" repair.out &&
	grep "sent no copy of 1 damaged op" repair.out &&
	test_tool flip $db op $((n - 1)) body 25 && (cd h && hearth fsck >/dev/null)
'

# A version's id commits to the bytes of the ops it names (store format 7):
# two stores that hold one op id with other bytes (here a copy whose PLACE
# names the file otherwise, its chain then made anew from those bytes, as
# a store of an older build or a replica that reused an id could hold)
# give the version two ids, and fsck finds each one right (only the copy's
# materialized head, made before, disagrees). With an id of the COMMIT
# alone they showed one id for two trees.
test_expect_success 'one version id never names two trees' '
	hearth init same >/dev/null && echo x >same/name-a &&
	(cd same && hearth record -m one >/dev/null) && cp -a same other &&
	test_tool ops other >ops.other &&
	name=$(printf name-a | od -An -tx1 | tr -d " \n") &&
	n=$(grep -n "$name" ops.other | head -n 1 | cut -d: -f1) && test -n "$n" &&
	at=$(sed -n "${n}p" ops.other | perl -ne "print index(\$_, qq($name)) / 2") &&
	test_tool flip other/.hearth/store.db op $((n - 1)) body $((at + 5)) &&
	test_tool store-format other/.hearth/store.db 3 &&
	(cd other && ! hearth fsck) >fsck.out && ! grep "^version" fsck.out &&
	test_tool derive same >tree.same && test_tool derive other >tree.other &&
	! test_cmp tree.same tree.other &&
	(cd same && hearth log) | sed -n "s/^version //p" >id.same &&
	(cd other && hearth log) | sed -n "s/^version //p" >id.other &&
	test $(wc -l <id.same) = 1 && ! test_cmp id.same id.other
'

# An older peer (protocol 1 or 2) sends no chains: the receiver chains what
# it takes in itself, from the bytes it received, and so holds the chain
# the sender holds; the versions get one id on both, and the next sync in
# this build's protocol compares the chains and finds no fork.
test_expect_success 'with an older peer (protocol 2) the chains and version ids still agree' '
	hearth init old-a >/dev/null && echo one >old-a/one && (cd old-a && hearth record -m one >/dev/null) &&
	hearth clone old-a old-b >/dev/null &&
	echo two >old-a/two && (cd old-a && hearth record -m two >/dev/null) &&
	echo three >old-b/three && (cd old-b && hearth record -m three >/dev/null) &&
	(cd old-b && HEARTH_SYNC_PROTOCOL_MAX=2 hearth sync --porcelain ../old-a) >old.out &&
	grep "^protocol 2$" old.out && grep "^status ok" old.out && grep "^ops_received [1-9]" old.out &&
	echo four >old-a/four && (cd old-a && hearth record -m four >/dev/null) &&
	(cd old-b && hearth sync ../old-a >/dev/null) &&
	(cd old-a && hearth log --oneline) >log.a && (cd old-b && hearth log --oneline) >log.b &&
	test_cmp log.a log.b && test $(wc -l <log.a) = 5 &&
	(cd old-a && hearth fsck) | grep "no problems" && (cd old-b && hearth fsck) | grep "no problems"
'

test_done
