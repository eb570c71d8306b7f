#!/bin/sh
test_description='a record that frees a name two files clashed on gives it to the other in the tree'
# Two replicas make n.txt at once; the tree shows one as n.txt and the
# other as n~hex.txt. A record that renames, moves or deletes the one with
# the name gives it to the other in head, and the working tree must follow
# (the oracle's known breakage "loser", t0340).
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"
. "$HEARTH_SOURCE_DIR/tests/lib/manifest.sh"

# clash DIR [N]: N replicas (2) each make sub/n.txt with their letter; the
# first syncs with each and checks out: the clash is in its tree.
clash() {
	hearth init "$1/a" >/dev/null && mkdir "$1/a/sub" "$1/a/other" &&
	(cd "$1/a" && hearth record -m folders >/dev/null) &&
	for letter in $(echo b c d | cut -d" " -f1-$((${2:-2} - 1))); do
		hearth clone "$1/a" "$1/$letter" >/dev/null || return 1
	done &&
	for replica in "$1"/?; do
		basename "$replica" >"$replica/sub/n.txt" &&
		(cd "$replica" && hearth record -m "n.txt" >/dev/null) || return 1
	done &&
	for replica in "$1"/?; do
		[ "$replica" = "$1/a" ] ||
		(cd "$1/a" && hearth sync "$TEST_ROOT/$replica" >/dev/null) || return 1
	done &&
	(cd "$1/a" && hearth checkout >/dev/null) &&
	test "$(ls "$1/a/sub" | wc -l)" = "${2:-2}" &&
	(cd "$1/a" && hearth conflicts --porcelain) | grep -q " name "
}

test_expect_success 'the one with the name renamed: the other takes it' '
	mkdir renamed && clash renamed &&
	mv renamed/a/sub/n.txt renamed/a/sub/c.txt &&
	(cd renamed/a && hearth record -m rename >/dev/null) &&
	test -f renamed/a/sub/n.txt && model_is_tree renamed/a &&
	(cd renamed/a && hearth conflicts) | grep "No conflicts"
'

test_expect_success 'the one with the name deleted: the other takes it' '
	mkdir deleted && clash deleted &&
	keep=$(ls deleted/a/sub | grep "~") &&
	rm deleted/a/sub/n.txt &&
	(cd deleted/a && hearth record -m delete >/dev/null) &&
	test ! -e "deleted/a/sub/$keep" && test -f deleted/a/sub/n.txt &&
	model_is_tree deleted/a
'

test_expect_success 'the one with the name moved to another folder: the other takes it' '
	mkdir moved && clash moved &&
	mv moved/a/sub/n.txt moved/a/other/n.txt &&
	(cd moved/a && hearth record -m move >/dev/null) &&
	test -f moved/a/sub/n.txt && test -f moved/a/other/n.txt && model_is_tree moved/a
'

test_expect_success 'three on one name: the next takes it, the third keeps a name of its own' '
	mkdir three && clash three 3 &&
	mv three/a/sub/n.txt three/a/sub/c.txt &&
	(cd three/a && hearth record -m rename >/dev/null) &&
	test -f three/a/sub/n.txt && test "$(ls three/a/sub | wc -l)" = 3 && model_is_tree three/a
'

test_expect_success 'the one without the name renamed: nothing else moves' '
	mkdir loser && clash loser &&
	mv loser/a/sub/n~*.txt loser/a/sub/q.txt &&
	(cd loser/a && hearth record -m rename >/dev/null) &&
	test -f loser/a/sub/n.txt && test -f loser/a/sub/q.txt && model_is_tree loser/a
'

# The clash a record makes: the name freed and taken at once by a new
# folder, whose naming comes after the file that lost the name first.
test_expect_success 'a folder made on the freed name: the tree shows what head shows' '
	mkdir made && clash made &&
	mv made/a/sub/n.txt made/a/sub/c.txt && mkdir made/a/sub/n.txt &&
	echo inside >made/a/sub/n.txt/f &&
	(cd made/a && hearth record -m made >../out) && cat made/out &&
	test "$(ls made/a/sub | wc -l)" = 3 && model_is_tree made/a &&
	grep "^Moved 2 in the tree" made/out
'

# In a tree behind head (the oracle's seed 40824): a peer renamed the
# folder and another made n.txt in it; this replica, not checked out,
# makes its own n.txt there, which loses the name. The record moves it,
# and the folder above it that head renamed along, index and all: once
# the move left the folder unrecorded and the next checkout refused.
test_expect_success 'behind head: the file that loses the name, and its folder, follow head' '
	mkdir behind && hearth init behind/a >/dev/null && mkdir behind/a/src &&
	(cd behind/a && hearth record -m src >/dev/null) &&
	hearth clone behind/a behind/b >/dev/null && hearth clone behind/a behind/c >/dev/null &&
	mv behind/b/src behind/b/docs && (cd behind/b && hearth record -m rename >/dev/null) &&
	echo c >behind/c/src/n.txt && (cd behind/c && hearth record -m c >/dev/null) &&
	(cd behind/a && hearth sync ../b >/dev/null && hearth sync ../c >/dev/null) &&
	echo a >behind/a/src/n.txt && (cd behind/a && hearth record -m a >/dev/null) &&
	(cd behind/a && hearth status --porcelain) | sed "/^#/d" >st && test_cmp /dev/null st &&
	(cd behind/a && hearth checkout --yes >/dev/null) && model_is_tree behind/a &&
	test "$(ls behind/a/docs | wc -l)" = 2
'

# The move comes after the record's commit, kept as pending paths in it:
# a move that fails fails the record with its version named, and the next
# record finishes it (each rename of the record is failed in turn; each
# try on a copy, which takes its own id at its first write, as the count).
test_expect_success 'a failed move after the commit is said, and the next record makes it' '
	mkdir fault && clash fault && cp -a fault/a fault/start &&
	cp -a fault/start fault/t && mv fault/t/sub/n.txt fault/t/sub/c.txt &&
	(cd fault/t && HEARTH_FAULT=count hearth record -m r 2>&1 >/dev/null) |
	    sed -n "s/.*write-class calls: //p" >calls &&
	perl -ne "while (/r/g) { print pos(), qq(\n) }" calls >renames && test -s renames &&
	failed=0 &&
	for call in $(cat renames); do
		rm -rf fault/t && cp -a fault/start fault/t && mv fault/t/sub/n.txt fault/t/sub/c.txt &&
		if (cd fault/t && HEARTH_FAULT=$call:EIO hearth record -m r 2>../err >/dev/null); then
			continue
		fi &&
		grep "recorded [0-9a-f]*, but what takes the names .*Input/output error" fault/err &&
		(cd fault/t && hearth log --oneline) | grep " r\$" &&
		(cd fault/t && hearth record -m again) >out && grep "^Nothing to record" out &&
		model_is_tree fault/t && failed=$((failed + 1)) || return 1
	done &&
	test $failed -gt 0
'

test_done
