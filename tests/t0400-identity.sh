#!/bin/sh
test_description='identity survives rename, move, edit, copy and damaged markers (docs/DESIGN.md §6)'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"

hearth init home >/dev/null
cd home

# The node id of a path in the working-tree index.
id_of() {
	folder=$(dirname "$1")
	[ "$folder" = . ] && folder=
	hearth ls --tree -i $folder | awk -v name="$(basename "$1")" \
		'{ id = $1; sub(/^[^ ]* /, ""); sub(/\/$/, ""); if ($0 == name) print id }'
}

xattrs=yes
touch probe && setfattr -n user.hearth.test -v 1 probe 2>/dev/null || xattrs=no
rm -f probe

. "$HEARTH_SOURCE_DIR/tests/lib/folder-id.sh"

test_expect_success 'new files and folders carry their id' '
	mkdir -p docs/deep && echo text >docs/deep/file.txt &&
	hearth record -m ids >/dev/null &&
	test "$(folder_id docs)" = "$(id_of docs)" &&
	test "$(folder_id docs/deep)" = "$(id_of docs/deep)" &&
	if [ $xattrs = yes ]; then test -z "$(find . -name .hearth-id)"; fi &&
	if [ $xattrs = yes ]; then
		test "$(getfattr --only-values -n user.hearth.id docs/deep/file.txt)" = \
			"$(id_of docs/deep/file.txt)"
	fi
'

test_expect_success 'ids never show as content' '
	hearth status --porcelain >../out && ! grep hearth-id ../out &&
	hearth ls docs >../out && ! grep hearth-id ../out
'

test_expect_success 'a file moved and edited at once keeps its id (by its xattr)' '
	test $xattrs = yes || exit 0
	before=$(id_of docs/deep/file.txt) &&
	mv docs/deep/file.txt docs/renamed.txt && echo "more text" >>docs/renamed.txt &&
	hearth status --porcelain >../out && grep "^R docs/deep/file.txt -> docs/renamed.txt" ../out &&
	hearth record -m "move and edit" >/dev/null &&
	test "$(id_of docs/renamed.txt)" = "$before"
'

test_expect_success 'a moved folder keeps its id (by its xattr)' '
	before=$(id_of docs/deep) &&
	mv docs/deep deeper && hearth record -m "move folder" >/dev/null &&
	test "$(id_of deeper)" = "$before"
'

test_expect_success 'a copied folder gets a fresh id; the original keeps its own' '
	original=$(id_of deeper) &&
	cp -a deeper copy && test "$(folder_id copy)" = "$original" &&
	hearth record -m copy >/dev/null &&
	test "$(id_of deeper)" = "$original" &&
	test "$(id_of copy)" != "$original" &&
	test "$(folder_id copy)" = "$(id_of copy)"
'

test_expect_success 'a copied file gets a fresh id; the original keeps its own' '
	echo data >one.txt && hearth record -m one >/dev/null &&
	original=$(id_of one.txt) &&
	cp -a one.txt two.txt && hearth record -m two >/dev/null &&
	test "$(id_of one.txt)" = "$original" && test "$(id_of two.txt)" != "$original"
'

test_expect_success 'a damaged id is repaired; the folder keeps its id' '
	before=$(id_of deeper) &&
	damage_id deeper garbage &&
	hearth status --porcelain >../out && test $(grep -vc "^#" ../out) = 0 &&
	mv deeper deeper2 && hearth record -m "rename after damage" >/dev/null &&
	test "$(id_of deeper2)" = "$before" && test "$(folder_id deeper2)" = "$before"
'

test_expect_success 'a deleted id is written again; the folder keeps its id' '
	before=$(id_of deeper2) &&
	drop_id deeper2 && mv deeper2 deeper3 && hearth record -m "no marker" >/dev/null &&
	test "$(id_of deeper3)" = "$before" && test "$(folder_id deeper3)" = "$before"
'

test_expect_success 'ids are the same after a restart (a fresh process, nothing cached)' '
	hearth ls --tree -i >../ids.1 && hearth ls --tree -i >../ids.2 && test_cmp ../ids.1 ../ids.2 &&
	hearth fsck >../out && grep "no problems" ../out
'

test_done
