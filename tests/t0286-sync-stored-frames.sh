#!/bin/sh
test_description='a big chunk travels as the sending pack stores it, compressed or not, and the receiver keeps it so; older peers get raw chunks'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"

# A clone of a Home holding a big text file sent every chunk raw (the
# sender decompressed its frames, the receiver compressed them again):
# the wire carried the whole file, and the CPU paid zstd twice. In
# protocol 5 a chunk alone in its frame travels as that frame.

. "$HEARTH_SOURCE_DIR/tests/lib/wire-kib.sh"

stat_of() { (cd "$1" && hearth stats) | sed -n "s/^$2  *\\([0-9]*\\).*/\\1/p"; }

clean() { (cd "$1" && hearth fsck) >fsck.out && grep "no problems" fsck.out; }

# gc stores frames at another zstd level than a record (9, not 1), so a
# receiver that compressed the chunks again would not make the same pack.
# This project's own sources are text that level 9 makes smaller, so gc
# keeps its own frames for them (t0160).
test_expect_success 'setup: a Home with 1 MB of source text and 300 KB of random bytes, packed by gc' '
	hearth init a >/dev/null &&
	cat "$HEARTH_SOURCE_DIR"/backend/*/*.c "$HEARTH_SOURCE_DIR"/docs/*.md >a/text.txt &&
	head -c 300000 /dev/urandom >a/random.bin &&
	(cd a && hearth record -m first >/dev/null && hearth gc >/dev/null)
'

test_expect_success 'a clone keeps the frames as they came: its pack is the source'"'"'s, byte for byte' '
	hearth clone a b >/dev/null && cmp a/text.txt b/text.txt && cmp a/random.bin b/random.bin &&
	pack_a=$(stat_of a "pack bytes") && pack_b=$(stat_of b "pack bytes") &&
	echo "pack bytes: a $pack_a, b $pack_b" &&
	test $((pack_b * 1000)) -le $((pack_a * 1001)) && test $((pack_b * 1000)) -ge $((pack_a * 999)) &&
	clean b
'

test_expect_success 'a clone in protocol 4 compresses every chunk again, at its own level' '
	HEARTH_SYNC_PROTOCOL_MAX=4 hearth clone a old >/dev/null &&
	cmp a/text.txt old/text.txt && cmp a/random.bin old/random.bin &&
	pack_a=$(stat_of a "pack bytes") && pack_old=$(stat_of old "pack bytes") &&
	echo "pack bytes: a $pack_a, old $pack_old" &&
	{ test $((pack_old * 100)) -lt $((pack_a * 97)) || test $((pack_old * 100)) -gt $((pack_a * 103)); }
'

test_expect_success 'new text travels compressed: the wire carries a fraction of it' '
	seq 1 400000 | sed "s/^/another line, number /" >a/more.txt &&
	size=$(($(wc -c <a/more.txt) / 1024)) &&
	(cd a && hearth record -m more >/dev/null) &&
	(cd b && hearth sync ../a) >sync.out && cat sync.out &&
	wire=$(wire_kib sync.out received) && echo "$wire KiB on the wire for $size KiB" &&
	test $((wire * 4)) -lt $size &&
	(cd b && hearth checkout >/dev/null) && cmp a/more.txt b/more.txt && clean b
'

test_expect_success 'with a peer speaking protocol 4 the same travels raw, and reads back the same' '
	(cd old && HEARTH_SYNC_PROTOCOL_MAX=4 hearth sync ../a) >old.out && cat old.out &&
	wire=$(wire_kib old.out received) && size=$(($(wc -c <a/more.txt) / 1024)) &&
	test $wire -ge $size &&
	(cd old && hearth checkout >/dev/null) && cmp a/more.txt old/more.txt && clean old
'

test_expect_success 'pushed the other way, text travels compressed too, and random bytes as they are' '
	seq 1 300000 | sed "s/^/written on b, line /" >b/pushed.txt &&
	head -c 1500000 /dev/urandom >b/pushed.bin &&
	(cd b && hearth record -m pushed >/dev/null) &&
	(cd b && hearth sync ../a) >push.out && cat push.out &&
	text=$(($(wc -c <b/pushed.txt) / 1024)) && random=$(($(wc -c <b/pushed.bin) / 1024)) &&
	wire=$(wire_kib push.out sent) && test $wire -lt $((random + text / 4)) &&
	(cd a && hearth checkout >/dev/null) && cmp a/pushed.txt b/pushed.txt &&
	cmp a/pushed.bin b/pushed.bin && clean a
'

test_expect_success 'a Home that took frames as they came serves them on, to a third replica' '
	hearth clone b c >/dev/null &&
	for f in text.txt random.bin more.txt pushed.txt pushed.bin; do cmp a/$f c/$f || exit 1; done &&
	clean c
'

# A sync made its chunks durable in batches of 16 MiB, a pack each: a
# clone of 1 GiB left 64 packs, past the light upkeep's threshold, and the
# next command copied every byte again. Each batch may now hold twice the
# one before. 120 MB (114 MiB) arrive in 3 or 4 packs: 16, 32 and 64 MiB,
# each closed at the chunk that reaches its size, and what is left, if
# anything is; batches of one size made 8. A sender quiet for a second
# makes what arrived durable early (t0220), so one more pack is allowed.
# The sizes are the batches' own, so the sanitized build, ten times
# slower, skips it.
test_expect_success !SANITIZED 'a big sync takes its chunks in growing batches: 120 MB in 3 to 5 packs' '
	head -c 120000000 /dev/urandom >a/batched.bin && (cd a && hearth record -m batched >/dev/null) &&
	before=$(stat_of b packs) && (cd b && hearth sync ../a >/dev/null) &&
	after=$(stat_of b packs) && echo "packs: $before before, $after after" &&
	test $after -ge $((before + 3)) && test $after -le $((before + 5)) && clean b
'

test_done
