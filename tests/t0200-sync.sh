#!/bin/sh
test_description='two replicas on one machine sync both ways and agree; only missing chunks travel'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"

# "key value" from `hearth sync --porcelain` output in file $1.
field() { sed -n "s/^$2 //p" "$1"; }

# Both replicas list the same history and the same head tree.
agree() {
	(cd a && hearth log | sed "s/ (arrived by sync)//") >log.a && (cd b && hearth log | sed "s/ (arrived by sync)//") >log.b && test_cmp log.a log.b &&
	(cd a && hearth ls -l head && hearth ls head d) >ls.a &&
	(cd b && hearth ls -l head && hearth ls head d) >ls.b && test_cmp ls.a ls.b
}

clean() {
	(cd "$1" && hearth fsck) >fsck.out && grep "no problems" fsck.out
}

test_expect_success 'setup: a Home with history, and an empty replica of it' '
	hearth init a >/dev/null &&
	mkdir -p a/d/e && echo one >a/d/one && echo two >a/d/e/two && printf "" >a/empty &&
	ln -s d/one a/link &&
	head -c 3000000 /dev/urandom >a/big &&
	(cd a && hearth record -m first >/dev/null) &&
	echo changed >a/d/one && (cd a && hearth record -m second >/dev/null) &&
	hearth init b >/dev/null &&
	test_tool join-home b a
'

test_expect_success 'the empty replica takes in all of it, into one new pack' '
	(cd b && hearth stats) | sed -n "s/^packs created *//p" >packs.before &&
	(cd b && hearth sync --porcelain ../a) >out &&
	test "$(field out status)" = ok &&
	test "$(field out ops_received)" -gt 0 &&
	test "$(field out versions_received)" = 2 &&
	test "$(field out chunks_received)" -ge 4 &&
	test "$(field out ops_sent)" = 0 &&
	(cd b && hearth stats) | sed -n "s/^packs created *//p" >packs.after &&
	test $(cat packs.after) = $(($(cat packs.before) + 1)) &&
	agree && clean a && clean b
'

test_expect_success 'the working tree is not touched by a sync; checkout brings it' '
	! test -e b/big &&
	(cd b && hearth status --porcelain) >out && grep "^# ahead [1-9]" out &&
	grep "^# changes [1-9]" out &&
	(cd b && hearth status) >out && grep "^Head has [1-9][0-9]* changes* the working tree lacks" out &&
	(cd b && hearth checkout >/dev/null) &&
	(cd b && hearth status --porcelain) >out && grep "^# changes 0$" out &&
	cmp a/big b/big && test "$(cat b/d/one)" = changed && test -L b/link &&
	test "$(readlink b/link)" = d/one && test -f b/empty && ! test -s b/empty
'

test_expect_success 'changes on both sides meet in one sync, both ways' '
	echo from-a >a/d/from-a && (cd a && hearth record -m "from a" >/dev/null) &&
	echo from-b >b/d/e/from-b && rm b/d/e/two && (cd b && hearth record -m "from b" >/dev/null) &&
	(cd b && hearth sync --porcelain ../a) >out &&
	test "$(field out ops_received)" -gt 0 && test "$(field out ops_sent)" -gt 0 &&
	test "$(field out local_ahead)" = 0 && test "$(field out remote_ahead)" = 0 &&
	agree && clean a && clean b
'

test_expect_success 'a second sync sends nothing, and leaves the stores as they were' '
	(cd a && hearth stats) >stats.before &&
	(cd b && hearth sync --porcelain ../a) >out &&
	test "$(field out ops_received)" = 0 && test "$(field out ops_sent)" = 0 &&
	test "$(field out chunks_received)" = 0 && test "$(field out chunks_sent)" = 0 &&
	(cd a && hearth stats) >stats.after &&
	grep -v "written\|transactions\|database" stats.before >s.before &&
	grep -v "written\|transactions\|database" stats.after >s.after &&
	test_cmp s.before s.after
'

test_expect_success 'content already held under another name sends no chunk' '
	cp a/big a/big-copy && mkdir a/moved && mv a/d/from-a a/moved/ &&
	(cd a && hearth record -m "copy and move" >/dev/null) &&
	(cd b && hearth sync --porcelain ../a) >out &&
	test "$(field out ops_received)" -gt 0 &&
	test "$(field out chunks_received)" = 0 &&
	agree && clean b
'

test_expect_success 'an edit in the middle of a big file sends only the chunks that changed' '
	(cd b && hearth checkout >/dev/null) &&
	printf "EDITED" | dd of=a/big bs=1 seek=1500000 conv=notrunc 2>/dev/null &&
	(cd a && hearth record -m "edit big" >/dev/null) &&
	(cd b && hearth sync --porcelain ../a) >out &&
	test "$(field out chunks_received)" -ge 1 && test "$(field out chunks_received)" -le 3 &&
	(cd b && hearth checkout >/dev/null) && cmp a/big b/big &&
	agree && clean b
'

test_expect_success 'the side that is only asked for: pull and push alone' '
	echo pulled >a/pulled && (cd a && hearth record -m pulled >/dev/null) &&
	echo pushed >b/pushed && (cd b && hearth record -m pushed >/dev/null) &&
	(cd b && hearth sync --pull --porcelain ../a) >out &&
	test "$(field out ops_received)" -gt 0 && test "$(field out ops_sent)" = 0 &&
	test "$(field out local_ahead)" -gt 0 &&
	(cd b && hearth sync --push --porcelain ../a) >out &&
	test "$(field out ops_received)" = 0 && test "$(field out ops_sent)" -gt 0 &&
	test "$(field out local_ahead)" = 0 && test "$(field out remote_ahead)" = 0 &&
	agree && clean a && clean b
'

test_expect_success 'a sync in either direction converges a third replica' '
	hearth init c >/dev/null && test_tool join-home c a &&
	echo from-c >c/from-c && (cd c && hearth record -m "from c" >/dev/null) &&
	(cd a && hearth sync ../c >/dev/null) && (cd b && hearth sync ../a >/dev/null) &&
	(cd c && hearth sync ../b >/dev/null) &&
	agree && (cd c && hearth log | sed "s/ (arrived by sync)//") >log.c && test_cmp log.a log.c && clean c
'

test_expect_success 'the human output says what travelled and that the tree is behind' '
	echo more >a/more && (cd a && hearth record -m more >/dev/null) &&
	(cd b && hearth sync ../a) >out &&
	grep "^Synced with" out && grep "received 3 ops (1 version)" out &&
	grep "hearth checkout" out
'

test_done
