#!/bin/sh
test_description='the observed index: paged walk that resumes, restart check, racy stamps (docs/DESIGN.md §6)'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"
. "$HEARTH_SOURCE_DIR/tests/lib/watch-lib.sh"

hearth init home >/dev/null
cd home

# A tree of 12 folders, each with three files and a subfolder holding one:
# 24 folders and 48 files, dated 2020 so that their stamps are trusted.
for i in 01 02 03 04 05 06 07 08 09 10 11 12; do
	mkdir -p "f$i/sub"
	for j in a b c; do echo "$i $j" >"f$i/$j.txt"; done
	echo "deep $i" >"f$i/sub/deep.txt"
done
old_times f*/sub/* f*/* f* .

test_expect_success 'a walk of an unchanged Home marks nothing' '
	hearth record -m first >/dev/null &&
	hearth watch --once >../out && cat ../out &&
	grep "Walked 25 folders" ../out && grep "; 0 differ from the index" ../out &&
	test_tool marks . >../marks && test ! -s ../marks
'

# Changes of every kind, in several folders.
change_the_tree() {
	echo "edited" >f02/a.txt &&
	echo "new" >f04/new.txt &&
	rm f06/b.txt &&
	mv f08/c.txt f09/moved.txt &&
	mv f10/sub f11/sub2 &&
	mkdir f12/made && echo inside >f12/made/file
}

test_expect_success 'a walk marks exactly the folders that changed' '
	change_the_tree &&
	hearth watch --once >../out && cat ../out &&
	test_tool marks . >../marks &&
	printf "%s\n" f02 f04 f06 f08 f09 f10 f11 f12 >../expected &&
	test_cmp ../expected ../marks
'

test_expect_success 'a walk killed between pages resumes after the last page and ends the same' '
	test_tool marks . >../clean &&
	test_expect_code 137 env HEARTH_RECONCILE_PAGE=8 HEARTH_RECONCILE_KILL_AFTER=3 \
		"$HEARTH_BIN" watch --once >../out 2>&1 &&
	HEARTH_RECONCILE_PAGE=8 hearth watch --once >../out && cat ../out &&
	grep "^Resumed walk [0-9]* after f" ../out &&
	test_tool marks . >../resumed &&
	test_cmp ../clean ../resumed
'

test_expect_success 'killed after every page, one folder a page, the walk goes on each time' '
	for round in 1 2 3 4 5; do
		test_expect_code 137 env HEARTH_RECONCILE_PAGE=1 HEARTH_RECONCILE_KILL_AFTER=1 \
			"$HEARTH_BIN" watch --once >/dev/null 2>&1
	done &&
	hearth watch --once >../out && cat ../out &&
	grep "^Resumed walk [0-9]* after f02/sub$" ../out &&
	test_tool marks . >../resumed &&
	test_cmp ../clean ../resumed
'

test_expect_success 'only committed pages count: the tree and ids equal those after a clean walk' '
	hearth ls --tree -i -l >../ids.before &&
	hearth status --porcelain >../status.walked &&
	env HEARTH_RECONCILE_PAGE=4 HEARTH_RECONCILE_KILL_AFTER=2 "$HEARTH_BIN" watch --once \
		>/dev/null 2>&1 || true &&
	hearth ls --tree -i -l >../ids.after &&
	test_cmp ../ids.before ../ids.after &&
	hearth watch --once >/dev/null &&
	hearth status --porcelain >../status.after &&
	test_cmp ../status.walked ../status.after
'

test_expect_success 'a record clears the marks it saw' '
	hearth record -m changes >/dev/null &&
	test_tool marks . >../marks && test ! -s ../marks
'

test_expect_success 'the restart check marks folders whose stamp moved, and no other' '
	old_times f*/* f* f*/sub/* f*/*/* . &&
	hearth record -m quiet >/dev/null &&
	hearth watch --once >/dev/null &&
	hearth watch --check >../out && cat ../out &&
	grep "0 changed since the last walk; 0 marked" ../out &&
	echo another >f03/another.txt &&
	rm f05/sub/deep.txt &&
	hearth watch --check >../out && cat ../out &&
	grep "2 changed since the last walk" ../out &&
	test_tool marks . >../marks &&
	printf "%s\n" f03 f05/sub >../expected &&
	test_cmp ../expected ../marks
'

test_expect_success 'a folder changed within 2 s of its stamp is not trusted' '
	hearth record -m more >/dev/null &&
	old_times f*/* f* f*/sub/* f*/*/* . &&
	hearth record -m quiet >/dev/null &&
	mkdir -p f07/fresh && hearth watch --once >/dev/null &&
	test_tool marks . >../marks && grep "^f07$" ../marks &&
	rmdir f07/fresh && hearth watch --once >/dev/null &&
	test_tool marks . >../marks && test ! -s ../marks &&
	hearth watch --check >../out && cat ../out &&
	test_tool marks . >../marks && grep "^f07$" ../marks
'

test_expect_success 'a file edited in place within the same second as its folder stamp is still seen' '
	hearth watch --once >/dev/null &&
	printf "x" | dd of=f01/a.txt bs=1 seek=0 conv=notrunc 2>/dev/null &&
	old_times f01/a.txt &&
	hearth status --porcelain >../out &&
	grep "^M f01/a.txt$" ../out &&
	watch_start restart &&
	watch_wait restart "^current" &&
	status_from_watch ../out && cat ../out &&
	grep "modified: f01/a.txt" ../out &&
	watch_stop restart
'

test_expect_success 'files whose stamps are racy mark their folder at the restart check' '
	hearth record -m edit >/dev/null &&
	echo fresh >f02/b.txt &&
	hearth record -m racy >/dev/null &&
	hearth watch --check >/dev/null &&
	test_tool marks . >../marks && grep "^f02$" ../marks
'

test_expect_success 'stores of formats 1 and 2 are migrated on open; a newer one is refused' '
	cd .. && hearth init older >/dev/null && cp -a older newer && cp -a older two &&
	test_tool store-schema older/.hearth/store.db >schema.new &&
	grep "^format 8$" schema.new && grep "^index entry_listing$" schema.new &&
	test_tool store-format older/.hearth/store.db 1 &&
	test_tool store-schema older/.hearth/store.db >schema.old &&
	! grep "entry_listing\|^table folder$" schema.old &&
	(cd older && hearth status >/dev/null && hearth watch --once >/dev/null) &&
	test_tool store-schema older/.hearth/store.db >schema.migrated &&
	test_cmp schema.new schema.migrated &&
	test_tool store-format two/.hearth/store.db 2 &&
	test_tool store-schema two/.hearth/store.db >schema.two &&
	grep "^format 2$" schema.two && ! grep entry_listing schema.two &&
	(cd two && hearth ls --tree >/dev/null) &&
	test_tool store-schema two/.hearth/store.db >schema.migrated &&
	test_cmp schema.new schema.migrated &&
	test_tool store-format newer/.hearth/store.db 99 &&
	test_expect_code 1 sh -c "cd newer && \"\$HEARTH_BIN\" status" 2>err && cat err &&
	grep "store format 99 is newer than this hearth understands" err
'

test_done
