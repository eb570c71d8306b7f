#!/bin/sh
test_description='gc consolidates the packs, every version'"'"'s bytes kept; the light upkeep after a command'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"
. "$HEARTH_SOURCE_DIR/tests/lib/manifest.sh"

# One pack per record, forever: after n records a Home held n packs and
# nothing ever merged them. gc writes new packs (each node's newest version
# whole, the older ones as deltas against the one after), then points the
# store at them, then removes the old files.

# versions HOME OUT: the manifest of every version's export, one file per
# version, named by its position in the log (the ids stay the same).
versions() {
	mkdir -p "$2" &&
	(cd "$1" && hearth log) | sed -n "s/^version //p" >"$2.ids" &&
	n=0 && while read -r id; do
		rm -rf "$TEST_ROOT/out" && (cd "$1" && hearth export "$id" "$TEST_ROOT/out") >/dev/null &&
		tree_manifest "$TEST_ROOT/out" >"$2/$n" || return 1
		n=$((n + 1))
	done <"$2.ids"
}

# The packs the store lists (the light upkeep leaves the files it replaced
# to the next upkeep, for readers still in an older snapshot).
packs() {
	(cd "$1" && hearth stats) | sed -n "s/^packs  *\([0-9][0-9]*\)$/\1/p"
}

test_expect_success 'setup: twelve versions of a text file, a big file, links, a revert and a delete' '
	hearth init home >/dev/null && cd home &&
	seq 1 30000 | sed "s/^/a line of text, number /" >long.txt &&
	mkdir -p src && for f in one two three; do seq 1 400 | sed "s/^/$f /" >src/$f.c; done &&
	head -c 1500000 /dev/urandom >big.bin && ln -s long.txt link &&
	hearth record -m first >/dev/null &&
	for i in 1 2 3 4 5 6 7 8 9 10 11; do
		sed -i "$((i * 2000))s/.*/edited in $i/" long.txt &&
		echo "line $i" >>src/one.c &&
		if test $i = 4; then printf "patched" | dd of=big.bin bs=1 seek=700000 conv=notrunc 2>/dev/null; fi &&
		if test $i = 5; then cp src/two.c ../two.old && echo changed >>src/two.c; fi &&
		if test $i = 6; then cp ../two.old src/two.c; fi &&
		if test $i = 7; then rm src/three.c; fi &&
		if test $i = 8; then ln -sf src/one.c link; fi &&
		hearth record -m "edit $i" >/dev/null || exit 1
	done &&
	test $(packs .) -eq 12 && cd .. && versions home before && test $(ls before | wc -l) = 12
'

test_expect_success 'gc packs twelve packs into one and says what it saved' '
	(cd home && hearth stats) >stats.before &&
	(cd home && hearth gc) >gc.out && cat gc.out &&
	grep "^Packed 12 packs (.*) into 1 (.*): [0-9]* chunks copied, [0-9]* as deltas; " gc.out &&
	test $(packs home) -eq 1 &&
	(cd home && hearth stats) >stats.after &&
	grep "^packs  *1$" stats.after && grep "^delta chunks  *[1-9]" stats.after
'

test_expect_success 'every version exports byte for byte as before gc, and fsck finds nothing wrong' '
	versions home after && test_cmp before.ids after.ids &&
	for n in $(ls before); do test_cmp before/$n after/$n || exit 1; done &&
	(cd home && hearth fsck) >fsck.out && grep "no problems" fsck.out
'

test_expect_success 'gc again keeps one pack and every version' '
	(cd home && hearth gc) >gc.again && grep "^Packed 1 pack " gc.again &&
	test $(packs home) -eq 1 && versions home again &&
	for n in $(ls before); do test_cmp before/$n again/$n || exit 1; done
'

test_expect_success 'the Home records, syncs and clones after gc' '
	(cd home && echo after >>long.txt && hearth record -m after >/dev/null) &&
	hearth clone home copy >/dev/null && cmp home/long.txt copy/long.txt &&
	cmp home/big.bin copy/big.bin && (cd copy && hearth fsck) >fsck.out &&
	grep "no problems" fsck.out
'

test_expect_success 'a gc of a Home with no pack changes nothing' '
	hearth init empty >/dev/null && (cd empty && hearth gc) >gc.empty &&
	grep "^Nothing to pack" gc.empty
'

test_expect_success 'gc waits for the write lock, then fails naming its holder' '
	(cd home && (flock 9 && echo "pid 999, hearth test" >.hearth/lock && : >../held &&
	    test_wait_for "test -e ../release") 9>>.hearth/lock &) &&
	test_wait_for "test -e held" &&
	(cd home && HEARTH_LOCK_WAIT_MS=200 test_expect_code 3 hearth gc) 2>lock.err &&
	: >release && grep "pid 999, hearth test" lock.err && test $(packs home) -eq 2
'

# The light upkeep: when a command that made a pack leaves more packs than
# the limit (50, HEARTH_GC_AUTO_PACKS here), the small packs are merged,
# each chunk and delta as it was.
test_expect_success 'past the limit, the command that made a pack merges the small ones' '
	hearth init auto >/dev/null && cd auto && seq 1 20000 >notes.txt &&
	hearth record -m 0 >/dev/null &&
	for i in 1 2 3 4; do
		echo "line $i" >>notes.txt &&
		HEARTH_GC_AUTO_PACKS=5 hearth record -m "$i" >/dev/null 2>../auto.err || exit 1
	done &&
	test $(packs .) -eq 5 && test ! -s ../auto.err &&
	(cd .. && versions auto auto.before) &&
	echo "line 5" >>notes.txt &&
	HEARTH_GC_AUTO_PACKS=5 hearth record -m 5 >/dev/null 2>../auto.err &&
	cat ../auto.err && grep "^Packed 6 packs (.*) into 1 " ../auto.err &&
	test $(packs .) -eq 1 && hearth stats >../auto.stats &&
	grep "^delta chunks  *5 " ../auto.stats &&
	HEARTH_GC_AUTO_PACKS=5 hearth status >/dev/null 2>../auto.err && test ! -s ../auto.err &&
	cd .. && versions auto auto.after &&
	for n in $(ls auto.before); do test_cmp auto.before/$n auto.after/$((n + 1)) || exit 1; done &&
	(cd auto && hearth fsck) >fsck.out && grep "no problems" fsck.out
'

test_expect_success 'HEARTH_GC_AUTO_PACKS=0 turns the upkeep off' '
	(cd auto && for i in 6 7 8; do echo "line $i" >>notes.txt &&
	 HEARTH_GC_AUTO_PACKS=0 hearth record -m "$i" >/dev/null 2>>../off.err || exit 1; done) &&
	test $(packs auto) -eq 4 && test ! -s off.err
'

# A chunk alone in its frame: a full gc compresses it at level 9, which
# on very repetitive text makes bigger frames than a record's level 1, so
# it keeps the frame it had where that is smaller, and never grows the
# pack for it; the light upkeep moves such a frame as it is stored.
pack_bytes() { (cd "$1" && hearth stats) | sed -n "s/^pack bytes  *\([0-9]*\).*/\1/p"; }

test_expect_success 'a full gc keeps a chunk'"'"'s frame where its own level makes it bigger' '
	hearth init kept >/dev/null &&
	seq 1 400000 | sed "s/^/a line of text number /" >kept/text.txt &&
	(cd kept && hearth record -m text >/dev/null) && before=$(pack_bytes kept) &&
	(cd kept && hearth gc) >kept.gc && cat kept.gc && grep "; saved " kept.gc &&
	after=$(pack_bytes kept) && echo "pack bytes: $before before, $after after" &&
	test $after -le $before
'

# This project's own sources: level 9 makes them smaller than level 1, so
# after a full gc a record's level would undo what it made.
test_expect_success 'the light upkeep moves a big chunk'"'"'s frame as it is stored' '
	hearth init moved >/dev/null &&
	cat "$HEARTH_SOURCE_DIR"/backend/*/*.c "$HEARTH_SOURCE_DIR"/docs/*.md >moved/sources.txt &&
	(cd moved && hearth record -m sources >/dev/null && hearth gc >/dev/null) &&
	before=$(pack_bytes moved) &&
	(cd moved && for i in 1 2; do echo "small $i" >small$i &&
	 HEARTH_GC_AUTO_PACKS=2 hearth record -m "s$i" >/dev/null 2>>../moved.err || exit 1; done) &&
	cat moved.err && grep "^Packed 3 packs" moved.err &&
	after=$(pack_bytes moved) && echo "pack bytes: $before before, $after after" &&
	test $after -ge $before && test $((after * 1000)) -le $((before * 1002)) &&
	(cd moved && hearth export head ../moved.out >/dev/null && hearth fsck) >fsck.out &&
	grep "no problems" fsck.out && cmp moved/sources.txt moved.out/sources.txt
'

# fsck takes no lock: a gc beside it replaces the packs its snapshot
# lists, and it must say nothing is wrong, not that their chunks are lost.
test_expect_success 'fsck beside a gc finds nothing wrong' '
	(cd auto || exit 1
	 rm -f ../gc.done
	 (for round in 1 2 3 4 5 6; do
		for i in 1 2 3 4 5; do echo "round $round $i" >>notes.txt &&
			HEARTH_GC_AUTO_PACKS=0 hearth record -m "r$round.$i" >/dev/null || exit 1; done &&
		hearth gc >/dev/null || exit 1
	  done; : >../gc.done) &
	 gc_pid=$! &&
	 checks=0 &&
	 while test ! -e ../gc.done && kill -0 $gc_pid 2>/dev/null; do
		hearth fsck >../fsck.side 2>&1 || { cat ../fsck.side; exit 1; }
		checks=$((checks + 1))
	 done &&
	 wait $gc_pid && test -e ../gc.done && echo "$checks checks beside the gc")
'

test_done
