#!/bin/sh
test_description='a small edit of a big file syncs as a delta against the base the receiver holds; older peers get whole chunks'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"

# A sync of a one-line edit of a 10 MiB text file moved the whole changed
# chunk (about 1 MiB) over the wire. In protocol 4 the receiver names, for
# each chunk it wants, the same chunk of the node's content it holds now
# (BASES), and the sender may send a delta against it.

. "$HEARTH_SOURCE_DIR/tests/lib/wire-kib.sh"

test_expect_success 'setup: a Home with 10 MiB of text, and its clone' '
	hearth init a >/dev/null && seq 1 900000 | sed "s/^/a line of text /" >a/big.txt &&
	test $(wc -c <a/big.txt) -gt 10000000 &&
	(cd a && hearth record -m big >/dev/null) && hearth clone a b >/dev/null
'

test_expect_success 'a one-line edit syncs in at most 64 KiB on the wire, and reads back whole' '
	sed -i "450000s/.*/one edited line/" a/big.txt && (cd a && hearth record -m edit >/dev/null) &&
	(cd b && hearth sync ../a) >sync.out && cat sync.out &&
	test "$(wire_kib sync.out)" -le 64 &&
	(cd b && hearth checkout >/dev/null) && cmp a/big.txt b/big.txt &&
	(cd b && hearth stats) >stats.b && grep "^delta chunks  *[1-9]" stats.b &&
	(cd b && hearth fsck) >fsck.out && grep "no problems" fsck.out
'

test_expect_success 'the edit pushed the other way travels as a delta too' '
	sed -i "10s/.*/edited on b/" b/big.txt && (cd b && hearth record -m "on b" >/dev/null) &&
	(cd b && hearth sync ../a) >push.out &&
	sent=$(wire_kib push.out sent) && echo "sent $sent KiB" && test "$sent" -lt 1024 &&
	(cd a && hearth checkout >/dev/null) && cmp a/big.txt b/big.txt &&
	(cd a && hearth fsck) >fsck.out && grep "no problems" fsck.out
'

test_expect_success 'with a peer speaking protocol 3, the same edit syncs whole chunks, and still reads' '
	sed -i "800000s/.*/edited again/" a/big.txt && (cd a && hearth record -m again >/dev/null) &&
	(cd b && HEARTH_SYNC_PROTOCOL_MAX=3 hearth sync ../a) >old.out && cat old.out &&
	test "$(wire_kib old.out)" -gt 64 &&
	(cd b && hearth checkout >/dev/null) && cmp a/big.txt b/big.txt &&
	(cd b && hearth fsck) >fsck.out && grep "no problems" fsck.out
'

test_expect_success 'a new node, with no base on the receiver, travels whole' '
	seq 1 5000 >a/new.txt && (cd a && hearth record -m new >/dev/null) &&
	(cd b && hearth sync ../a >/dev/null && hearth checkout >/dev/null) && cmp a/new.txt b/new.txt
'

# The bar on a terminal held the wire's bytes against the content wanted,
# so a sync that moved a delta of a few KiB for a chunk of a MiB ended at
# a few per cent ("0% 0/1, 0 B of 1.0 MiB"). It counts each chunk stored
# at its full length now, and the last chunk draws 100%.
test_expect_success 'on a terminal, a sync that moves a delta draws its chunks at 100% at the end' '
	sed -i "20s/.*/edited for the bar/" a/big.txt && (cd a && hearth record -m bar >/dev/null) &&
	(cd b && script -qec "\"$HEARTH_BIN\" sync ../a" /dev/null) >tty.out &&
	tr "\r" "\n" <tty.out | sed "s/\x1b\[K//g" | grep "receiving chunks" >bar.out &&
	cat bar.out && grep "Synced with" tty.out &&
	tail -n 1 bar.out >last.out &&
	grep -E "receiving chunks 100% 1/1, ([0-9.]+ [KM]iB) of \1" last.out &&
	(cd b && hearth checkout >/dev/null) && cmp a/big.txt b/big.txt
'

test_done
