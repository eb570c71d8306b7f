#!/bin/sh
test_description='what a stopped checkout placed is head'"'"'s, not the user'"'"'s: record adopts it, status does not list it, and what the user did is still recorded'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"

# A checkout that placed its files and then could not write its index (a
# failing store, a kill) leaves items as head has them that the index does
# not hold, or holds as they were (backend/history/adopt.h). Each case
# below starts from such a replica, made by failing one write-class call
# of the checkout (HEARTH_FAULT), the last one after which head's files
# are on disk and the tree is still behind head.

# stop_checkout FROM TO: TO becomes a copy of the replica FROM whose
# `hearth checkout` was stopped after it placed new/deeper/f.txt.
stop_checkout() {
	rm -rf probe && cp -a "$1" probe &&
	(cd probe && HEARTH_FAULT=count hearth checkout >/dev/null 2>../count.err) &&
	calls=$(sed -n "s/^hearth: io: \([0-9]*\) write-class calls.*/\1/p" count.err) &&
	test -n "$calls" || { echo "no calls counted"; cat count.err; return 1; }
	rm -rf probe
	n=$calls
	while [ "$n" -gt 0 ]; do
		rm -rf "$2" && cp -a "$1" "$2" || return 1
		if ! (cd "$2" && HEARTH_FAULT=$n:EIO hearth checkout >/dev/null 2>&1) &&
		    test -f "$2/new/deeper/f.txt" &&
		    (cd "$2" && hearth status) | grep -q "; head is "; then
			return 0
		fi
		n=$((n - 1))
	done
	echo "no stopping point found among $calls calls"
	return 1
}

# tree_of HOME: every file, link and folder of HOME but .hearth, with
# content hashes, one a line.
tree_of() {
	(cd "$1" && find . -path ./.hearth -prune -o -print | LC_ALL=C sort |
	    while read -r path; do
		if [ -L "$path" ]; then echo "L $path -> $(readlink "$path")";
		elif [ -d "$path" ]; then echo "D $path";
		else echo "$(sha1sum <"$path" | cut -c1-40) $(stat -c %a "$path") $path"; fi
	    done)
}

test_expect_success 'setup: b, a replica a sync brought a'"'"'s changes, not checked out' '
	hearth init a >/dev/null && (cd a &&
	    mkdir -p docs/old gone && echo one >docs/one.txt && echo two >docs/two.txt &&
	    echo moving >docs/mv.txt && echo old >docs/old/n.txt && echo bye >gone/x &&
	    echo doomed >docs/doomed.txt && ln -s docs/one.txt top-link &&
	    hearth record -m base >/dev/null) &&
	hearth clone a b >/dev/null && (cd a &&
	    echo "one, edited" >docs/one.txt && rm -r gone top-link docs/doomed.txt &&
	    mv docs/mv.txt docs/moved.txt && mv docs/old docs/renamed &&
	    mkdir -p new/deeper && echo fresh >new/deeper/f.txt && echo new >docs/new.txt &&
	    head -c 300000 /dev/urandom >new/big.bin && ln -s ../docs/one.txt new/link &&
	    chmod 600 docs/two.txt && hearth record -m "on a" >/dev/null) &&
	(cd b && hearth sync --no-checkout ../a >/dev/null) &&
	tree_of a >a.tree
'

test_expect_success 'a stopped checkout leaves head'"'"'s files and an index behind head' '
	stop_checkout b stopped &&
	(cd stopped && hearth status) >out &&
	grep "; head is " out
'

test_expect_success 'status lists nothing of what the checkout placed' '
	rm -rf c && cp -a stopped c &&
	(cd c && hearth status --porcelain) >out &&
	! grep -v "^#" out
'

test_expect_success 'diff against the index shows none of it, and an edit besides' '
	rm -rf c && cp -a stopped c &&
	(cd c && hearth diff --name-status) >out && ! test -s out &&
	echo "mine too" >>c/docs/two.txt &&
	(cd c && hearth diff --name-status) >out &&
	echo "M	docs/two.txt" >expect && test_cmp expect out
'

test_expect_success 'record adopts it all: no op, no conflict, the tree at head' '
	rm -rf c && cp -a stopped c &&
	(cd c && hearth log --oneline | wc -l) >versions.before &&
	(cd c && hearth record -m "after the stop") >out &&
	grep "Nothing to record" out &&
	(cd c && hearth log --oneline | wc -l) >versions.after &&
	test_cmp versions.before versions.after &&
	(cd c && hearth conflicts) >out && grep "No conflicts" out &&
	(cd c && hearth status) >out && grep "(head)" out && grep "Nothing changed" out &&
	tree_of c >c.tree && test_cmp a.tree c.tree
'

test_expect_success 'sync --checkout adopts it: no name clash with itself, no conflict' '
	rm -rf c && cp -a stopped c &&
	(cd c && hearth sync --checkout ../a >/dev/null) &&
	(cd c && hearth conflicts) >out && grep "No conflicts" out &&
	tree_of c >c.tree && test_cmp a.tree c.tree
'

test_expect_success 'an edit of a file the checkout added is an edit of head'"'"'s node' '
	rm -rf c && cp -a stopped c &&
	echo "and mine" >>c/new/deeper/f.txt &&
	(cd c && hearth status --porcelain) >out &&
	grep -x "M new/deeper/f.txt" out && test $(grep -vc "^#" out) = 1 &&
	(cd c && hearth record -m mine) >out && grep "M new/deeper/f.txt" out &&
	(cd c && hearth conflicts) >out && grep "No conflicts" out &&
	! ls c/new/deeper | grep "~" &&
	(cd a && hearth sync ../c >/dev/null && hearth checkout >/dev/null) &&
	printf "fresh\nand mine\n" >expect && test_cmp expect a/new/deeper/f.txt &&
	(cd a && hearth conflicts) >out && grep "No conflicts" out
'

test_expect_success 'an edit of a file the checkout moved is an edit, not a second move' '
	rm -rf c d && cp -a stopped c && (cd c && hearth clone ../a ../d >/dev/null) &&
	test -f c/docs/moved.txt && echo "edited here" >c/docs/moved.txt &&
	(cd c && hearth record -m mine) >out && grep "M docs/moved.txt" out &&
	(cd c && hearth conflicts) >out && grep "No conflicts" out &&
	(cd d && hearth sync --checkout ../c >/dev/null) &&
	echo "edited here" >expect && test_cmp expect d/docs/moved.txt &&
	(cd d && hearth conflicts) >out && grep "No conflicts" out
'

test_expect_success 'a file of the user'"'"'s own where head has a new one is not adopted' '
	rm -rf c && cp -a b c && mkdir -p c/new/deeper &&
	echo "not fresh" >c/new/deeper/f.txt &&
	(cd c && hearth record -m mine) >out && grep "A new/deeper/f.txt" out &&
	(cd c && hearth conflicts) >out && grep "new/deeper/f" out &&
	(cd c && hearth checkout >/dev/null) &&
	ls c/new/deeper >names && test $(wc -l <names) = 2 &&
	cat c/new/deeper/* >both && grep -x "not fresh" both && grep -x fresh both
'

test_expect_success 'the same bytes at the same path are head'"'"'s node, with no clash' '
	rm -rf c && cp -a b c && mkdir -p c/new/deeper &&
	echo fresh >c/new/deeper/f.txt &&
	(cd c && hearth status --porcelain) >out && ! grep "new/deeper/f.txt" out &&
	(cd c && hearth record -m mine >/dev/null && hearth checkout >/dev/null) &&
	(cd c && hearth conflicts) >out && grep "No conflicts" out &&
	tree_of c >c.tree && test_cmp a.tree c.tree
'

test_expect_success 'a copy of a file the index holds stays a new node' '
	rm -rf c && cp -a stopped c &&
	cp -a c/docs/two.txt c/docs/two-copy.txt &&
	(cd c && hearth record -m copy) >out && grep "A docs/two-copy.txt" out &&
	(cd c && hearth conflicts) >out && grep "No conflicts" out &&
	test -f c/docs/two.txt && test -f c/docs/two-copy.txt
'

test_done
