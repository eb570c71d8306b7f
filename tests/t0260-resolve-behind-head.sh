#!/bin/sh
test_description='a resolve in a tree behind head writes what it settles and never a stranger'"'"'s path'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"
. "$HEARTH_SOURCE_DIR/tests/lib/manifest.sh"

# r2 deletes a folder while r1 adds to it: a revived conflict on r1, whose
# tree still holds what r2 deleted there (r1 never checked out). Keeping
# the delete removed the folder from the index but not from the disk (it
# still held the deleted link), so the link's row named a parent gone from
# the index; the next checkout took it for a path at the top and removed
# r1's own file of that name there.
test_expect_success 'setup: a revived folder on a replica whose tree is behind head' '
	hearth init r0 >/dev/null && mkdir "r0/my dir" && ln -s ../docs "r0/my dir/u" &&
	(cd r0 && hearth record -m start >/dev/null) &&
	hearth clone r0 r1 >/dev/null && hearth clone r0 r2 >/dev/null &&
	ln -s nowhere r1/u && echo b >"r1/my dir/b.txt" && (cd r1 && hearth record -m "on r1" >/dev/null) &&
	rm -rf "r2/my dir" && (cd r2 && hearth record --yes -m "on r2" >/dev/null && hearth sync ../r1 >/dev/null) &&
	(cd r1 && hearth conflicts --porcelain) >conflicts && grep " revived my dir$" conflicts
'

test_expect_success 'keeping the delete leaves the tree at head, the own file in place' '
	id=$(sed -n "s/ revived my dir\$//p" conflicts) &&
	(cd r1 && hearth resolve --theirs "$id") &&
	test -L r1/u && test "$(readlink r1/u)" = nowhere && ! test -e "r1/my dir" &&
	(cd r1 && hearth status --porcelain) >status && ! grep -v "^#" status &&
	test_tool derive r1 >model && tree_manifest r1 | sed "s/ d [0-7]*\$/ d/" >tree &&
	test_cmp model tree
'

test_expect_success 'a checkout afterwards changes nothing' '
	(cd r1 && hearth checkout) >out && grep "0 written, 0 removed, 0 moved" out &&
	test -L r1/u && tree_manifest r1 | sed "s/ d [0-7]*\$/ d/" >tree && test_cmp model tree
'

# A move kept as mine whose folder this replica then deleted: the resolve
# brings the folder back with the file, and wrote both on disk but only
# the file's index row, under a parent the index lacked; status called
# both added, and a later checkout refused to overwrite them (the
# oracle's seed 22). Once at head, once behind it.
# revive_by_mine DIR: in DIR, r1 moves docs/a.txt while r2 deletes it
# later in the total order (so the delete is shown), r1 takes that in and
# then deletes docs: a move conflict on r1.
revive_by_mine() {
	mkdir "$1" && hearth init "$1/r0" >/dev/null && mkdir "$1/r0/docs" &&
	echo a >"$1/r0/docs/a.txt" && (cd "$1/r0" && hearth record -m start >/dev/null) &&
	hearth clone "$1/r0" "$1/r1" >/dev/null && hearth clone "$1/r0" "$1/r2" >/dev/null &&
	echo o >"$1/r2/other" && (cd "$1/r2" && hearth record -m other >/dev/null) &&
	rm "$1/r2/docs/a.txt" && (cd "$1/r2" && hearth record --yes -m delete >/dev/null) &&
	mv "$1/r1/docs/a.txt" "$1/r1/docs/notes.md" &&
	(cd "$1/r1" && hearth record -m move >/dev/null &&
	    hearth sync --checkout --yes ../r2 >/dev/null) &&
	rm -rf "$1/r1/docs" && (cd "$1/r1" && hearth record --yes -m gone >/dev/null) &&
	(cd "$1/r1" && hearth conflicts --porcelain) | awk '$2 == "move" { print $1 }' >"$1/id" &&
	test -s "$1/id"
}

test_expect_success 'a move kept as mine brings its folder back into the index too' '
	revive_by_mine at &&
	(cd at/r1 && hearth resolve --mine "$(cat ../id)" >/dev/null) &&
	test -f at/r1/docs/notes.md && model_is_tree at/r1
'

test_expect_success 'the same in a tree behind head: what it wrote is recorded, a checkout finishes' '
	revive_by_mine behind &&
	echo x >behind/r2/new.txt && (cd behind/r2 && hearth record -m new >/dev/null &&
	    hearth sync ../r1 >/dev/null) &&
	(cd behind/r1 && hearth resolve --mine "$(cat ../id)" >/dev/null) &&
	test -f behind/r1/docs/notes.md &&
	(cd behind/r1 && hearth status --porcelain) | sed "/^#/d" >st && test_cmp /dev/null st &&
	(cd behind/r1 && hearth checkout --yes >/dev/null) && model_is_tree behind/r1
'

test_done
