#!/bin/sh
test_description='the Home view'"'"'s filter over the index (hearth_find_names): every recorded name holding the text, in any folder, ASCII case folded, as sorted paths, cut at the limit; nothing moved away or deleted'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"

# What the filter should find: the names under DIR holding TEXT, any case,
# as paths sorted by their bytes.
expected_names() {
	(cd "$1" && find . -path ./.hearth -prune -o -iname "*$2*" -print) |
		sed -n 's|^\./||p' | LC_ALL=C sort
}

test_expect_success 'a Home with matches at every depth, folders among them' '
	hearth init home &&
	mkdir -p home/a/b/c home/NEEDLE-box/inner home/x/y &&
	echo 1 >home/needle.txt &&
	echo 2 >home/a/Needle.md &&
	echo 3 >home/a/b/c/hayNEEDLEstack &&
	echo 4 >home/NEEDLE-box/inner/plain.txt &&
	echo 5 >home/x/y/haystack.txt &&
	echo 6 >home/x/nEeDlE &&
	for i in $(seq 1 40); do
		mkdir -p home/many/f$i && echo $i >home/many/f$i/needle-$i.txt || return 1
	done &&
	(cd home && hearth record -m start >/dev/null)
'

test_expect_success 'it finds what find -iname finds, sorted, at any depth' '
	expected_names home needle >want &&
	test "$(wc -l <want)" -eq 45 &&
	test_tool find-names home needle 0 >got &&
	test_cmp want got &&
	expected_names home hay >want &&
	test_tool find-names home HAY 0 >got &&
	test_cmp want got
'

test_expect_success 'a limit keeps the first paths and says there are more' '
	expected_names home needle | head -n 5 >want &&
	echo more >>want &&
	test_tool find-names home needle 5 >got &&
	test_cmp want got
'

test_expect_success 'a folder moved and one deleted: the paths are where the folders are now' '
	mv home/a/b home/moved-b &&
	rm -r home/NEEDLE-box &&
	(cd home && hearth record -m "move and delete" >/dev/null) &&
	expected_names home needle >want &&
	grep "^moved-b/c/hayNEEDLEstack$" want &&
	! grep NEEDLE-box want &&
	test_tool find-names home needle 0 >got &&
	test_cmp want got
'

test_expect_success 'a name nowhere, and an empty text, find nothing' '
	test_tool find-names home zzqq 0 >got &&
	test ! -s got &&
	test_tool find-names home "" 0 >got &&
	test ! -s got
'

test_done
