#!/bin/sh
test_description='paths and links: record never follows a link out of a root, checkout never writes through one; long names, long paths, deep trees, big folders, sparse, empty and changing files'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"
. "$HEARTH_SOURCE_DIR/tests/lib/replicas.sh"

clean() {
	(cd "$1" && hearth fsck) >fsck.out && grep "no problems" fsck.out
}

# Every file and folder under $1 with its kind, size and (for links) target.
listing() {
	(cd "$1" && find . -path ./.hearth -prune -o ! -name .hearth-id -printf '%y %s %p -> %l\n' |
	 sort)
}

test_expect_success 'setup: a Home, and a folder outside it with a secret' '
	hearth init a >/dev/null &&
	mkdir -p outside/deep && echo TOPSECRET-CONTENT >outside/secret &&
	echo DEEPER-CONTENT >outside/deep/f &&
	mkdir a/docs && echo notes >a/docs/notes &&
	(cd a && hearth record -m first >/dev/null)
'

test_expect_success 'record keeps links as links and never reads through them' '
	ln -s "$TEST_ROOT/outside" a/out-dir &&
	ln -s "$TEST_ROOT/outside/secret" a/out-file &&
	ln -s ../../etc a/docs/up && ln -s dangling a/nowhere &&
	(cd a && hearth record -m links >/dev/null) &&
	(cd a && hearth ls -l head) >ls &&
	grep "^l.* out-dir" ls && grep "^l.* out-file" ls && grep "^l.* nowhere" ls &&
	(cd a && hearth export head ../links-exported) &&
	test "$(readlink links-exported/out-file)" = "$TEST_ROOT/outside/secret" &&
	! grep -r -e TOPSECRET-CONTENT -e DEEPER-CONTENT a/.hearth &&
	(cd a && hearth status --porcelain) >out && ! grep -v "^#" out
'

test_expect_success 'a replica gets the links as links, pointing where they pointed' '
	make_replica b a &&
	test -L b/out-dir && test "$(readlink b/out-dir)" = "$TEST_ROOT/outside" &&
	test -L b/docs/up && test "$(readlink b/docs/up)" = ../../etc &&
	test -L b/nowhere && ! test -e b/out-dir/.hearth-id && clean b
'

test_expect_success 'a folder swapped for a link before a checkout blocks it: nothing written through' '
	echo new >a/docs/new && (cd a && hearth record -m new >/dev/null) &&
	(cd b && hearth sync ../a >/dev/null) &&
	mv b/docs b/docs.real && ln -s "$TEST_ROOT/outside" b/docs &&
	(cd b && ! hearth checkout 2>../err) && cat err && grep "would overwrite" err &&
	! test -e outside/new && ! test -e outside/.hearth-id &&
	rm b/docs && mv b/docs.real b/docs &&
	(cd b && hearth checkout >/dev/null) && test "$(cat b/docs/new)" = new
'

test_expect_success 'a folder swapped for a link during a checkout: refused, nothing written through' '
	echo newer >a/docs/newer && (cd a && hearth record -m newer >/dev/null) &&
	(cd b && hearth sync ../a >/dev/null) &&
	listing outside >outside.before &&
	test_expect_code 1 test_tool checkout-swap b head docs "$TEST_ROOT/outside" >out &&
	cat out && grep "^failed: cannot write docs/newer: a folder on its way is not a folder" out &&
	listing outside >outside.after && test_cmp outside.before outside.after &&
	! test -e b/docs.moved-away/newer &&
	rm b/docs && mv b/docs.moved-away b/docs &&
	(cd b && hearth checkout >/dev/null) && test "$(cat b/docs/newer)" = newer && clean b
'

test_expect_success 'a deletion under a folder swapped for a link removes nothing through it' '
	rm a/docs/notes && echo other >a/other && (cd a && hearth record -m "no notes" >/dev/null) &&
	(cd b && hearth sync ../a >/dev/null) &&
	cp b/docs/notes outside/notes &&
	listing outside >outside.before &&
	test_expect_code 1 test_tool checkout-swap b head docs "$TEST_ROOT/outside" >out &&
	cat out && grep "^failed: cannot remove docs/notes: a folder on its way is not a folder" out &&
	listing outside >outside.after && test_cmp outside.before outside.after &&
	rm outside/notes b/docs && mv b/docs.moved-away b/docs &&
	(cd b && hearth checkout >/dev/null) && ! test -e b/docs/notes && clean b
'

test_expect_success 'export writes links as links, never through them' '
	listing outside >outside.before &&
	(cd a && hearth export head ../exported) &&
	test -L exported/out-dir && ! test -e exported/out-dir/.hearth-id &&
	listing outside >outside.after && test_cmp outside.before outside.after
'

name255=$(printf "%0255d" 7)
test_expect_success 'names of 255 bytes travel: record, sync, checkout, export' '
	mkdir "a/$name255" && echo long >"a/$name255/$name255" &&
	(cd a && hearth record -m long-names >/dev/null) &&
	(cd b && hearth sync ../a >/dev/null && hearth checkout >/dev/null) &&
	test "$(cat "b/$name255/$name255")" = long &&
	(cd b && hearth export head ../long-export) && test -f "long-export/$name255/$name255"
'

# 15 folders of 250 bytes and a file: a path of 3,780 bytes, plus the
# file's name, past 4,000 bytes: checkout works on folder fds, the path
# never goes to the kernel whole.
long_path=
for level in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do
	long_path="$long_path$(printf "%0250d" "$level")/"
done
long_path=${long_path}$(printf "%0240d" 16)
test_expect_success 'paths of 4,000 bytes travel' '
	test ${#long_path} -ge 4000 &&
	(cd a && mkdir -p "${long_path%/*}" && echo far >"$long_path") &&
	(cd a && hearth record -m long-path >/dev/null) &&
	(cd b && hearth sync ../a >/dev/null && hearth checkout >/dev/null) &&
	(cd b && test "$(cat "$long_path")" = far) &&
	(cd a && hearth show --cat head "$long_path") >got && echo far >expected &&
	test_cmp expected got && clean a && clean b
'

test_expect_success 'trees 1,000 folders deep travel' '
	(cd a && deep=; i=0; while [ $i -lt 1000 ]; do deep="${deep}d/"; i=$((i + 1)); done &&
	 mkdir -p "deep/$deep" && echo bottom >"deep/${deep}bottom") &&
	(cd a && hearth record -m deep >/dev/null) &&
	(cd b && hearth sync ../a >/dev/null && hearth checkout >/dev/null) &&
	same_trees a b && clean b &&
	rm -r a/deep && (cd a && hearth record -m "not deep" >/dev/null) &&
	(cd b && hearth sync ../a >/dev/null && hearth checkout >/dev/null) &&
	! test -e b/deep && same_trees a b
'

test_expect_success 'sparse and empty files keep their bytes' '
	truncate -s 50M a/sparse && printf middle | dd of=a/sparse bs=1 seek=20000000 conv=notrunc 2>/dev/null &&
	: >a/empty && mkdir a/empty-dir &&
	(cd a && hearth record -m sparse >/dev/null) &&
	(cd b && hearth sync ../a >/dev/null && hearth checkout >/dev/null) &&
	cmp a/sparse b/sparse && test -f b/empty && ! test -s b/empty && test -d b/empty-dir &&
	same_trees a b && clean b
'

test_expect_success 'a file that was empty and gets bytes is recorded whole' '
	head -c 70000 /dev/urandom >a/empty && (cd a && hearth record -m filled >/dev/null) &&
	(cd a && hearth show --cat head empty) | cmp - a/empty && clean a
'

test_expect_success 'a file rewritten while it is recorded is stored whole, and seen again until it holds still' '
	head -c 20000000 /dev/urandom >a/busy &&
	(i=0; while [ $i -lt 400 ] && ! test -e stop; do
		head -c 20000000 /dev/urandom >a/busy.next && cat a/busy.next >a/busy; i=$((i + 1))
	 done; rm -f a/busy.next) &
	writer=$! &&
	test_wait_for "test -e a/busy.next" &&
	(cd a && hearth record -m busy >/dev/null) && touch stop && wait $writer && rm stop &&
	clean a &&
	(cd a && hearth record -m settled >/dev/null) &&
	(cd a && hearth show --cat head busy) | cmp - a/busy &&
	(cd a && hearth status --porcelain) >out && ! grep -v "^#" out
'

test_expect_success '100,000 files in one folder: recorded, listed in pages, synced' '
	mkdir a/many && (cd a/many && seq 1 100000 | xargs touch) &&
	(cd a && hearth record -m many >/dev/null) &&
	(cd a && hearth ls --limit 3 head many) >page &&
	printf "1\n10\n100\n" >expected && test_cmp expected page &&
	(cd a && hearth ls --limit 2 --after 99998 head many) >page &&
	printf "99999\n" >expected && test_cmp expected page &&
	(cd a && hearth status --porcelain) >out && ! grep -v "^#" out &&
	(cd b && hearth sync ../a >/dev/null && hearth checkout >/dev/null) &&
	test "$(ls b/many | wc -l)" = 100000
'

test_done
