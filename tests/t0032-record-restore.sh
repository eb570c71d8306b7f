#!/bin/sh
test_description='a record that restores an older version lists its paths as show does'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"

hearth init home >/dev/null
cd home

# The change lines of a record's report, and of show: "X path" or
# "R old -> new", in one order.
record_lines() { sed -n "s/^ \([ADMRT]\) /\1 /p" "$1" | LC_ALL=C sort; }
show_lines() { sed -n "/^[ADMRT] /p" "$1" | LC_ALL=C sort; }

test_expect_success 'setup: a version, then one that moves, edits, adds and deletes' '
	mkdir -p d/sub && echo x >d/x && echo e >e && echo gone >gone && echo deep >d/sub/deep &&
	hearth record -m first >/dev/null &&
	mv e d/e2 && echo y >>d/x && chmod +x d/x && echo new >n && rm gone && mv d/sub top-sub &&
	hearth record -m second >../second &&
	grep "^ R e -> d/e2$" ../second
'

test_expect_success 'restoring the first version lists paths, with the letters show gives' '
	hearth checkout head~1 >/dev/null &&
	hearth status >../status && grep "restore this version" ../status &&
	hearth record -m restore >../record &&
	! grep -E "[0-9a-f]{32}" ../record &&
	grep "^ R d/e2 -> e$" ../record && grep "^ D n$" ../record && grep "^ A gone$" ../record &&
	grep "^ M d/x$" ../record && grep "^ R top-sub -> d/sub$" ../record &&
	hearth show head >../show &&
	record_lines ../record >../from-record && show_lines ../show >../from-show &&
	test_cmp ../from-show ../from-record
'

test_expect_success 'a restore with an edit of its own lists both' '
	hearth checkout head~1 >/dev/null && echo edited >d/e2 &&
	hearth record -m "restore and edit" >../record &&
	! grep -E "[0-9a-f]{32}" ../record &&
	hearth show head >../show &&
	record_lines ../record >../from-record && show_lines ../show >../from-show &&
	test_cmp ../from-show ../from-record &&
	# The edited file is restored to its place too: head has it where the tree does.
	grep "^R e -> d/e2$" ../show && hearth ls head d >../ls && grep "^e2$" ../ls &&
	hearth show --cat head d/e2 >../bytes && test "$(cat ../bytes)" = edited &&
	hearth status --porcelain >../status && grep "^# changes 0$" ../status &&
	grep "^# restore 0$" ../status
'

test_expect_success 'a restore of files the record must read (times too recent to trust) lists them too' '
	echo one >content && hearth record -m one >/dev/null &&
	echo two >content && hearth record -m two >/dev/null &&
	hearth checkout head~1 >/dev/null &&
	touch content &&
	hearth record -m "restore, read" >../record &&
	grep "[1-9][0-9]* files\{0,1\} read" ../record &&
	grep "^ M content$" ../record &&
	hearth show head >../show &&
	record_lines ../record >../from-record && show_lines ../show >../from-show &&
	test -s ../from-show &&
	test_cmp ../from-show ../from-record
'

test_expect_success 'a plain record still lists what status listed' '
	echo more >more && hearth status --porcelain | sed -n "/^[^#]/p" >../status &&
	hearth record -m more >../record && record_lines ../record >../from-record &&
	LC_ALL=C sort ../status >../from-status && test_cmp ../from-status ../from-record
'

test_done
