#!/bin/sh
test_description='checkout fails cleanly at every write-class call; the working tree keeps every file'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"
. "$HEARTH_SOURCE_DIR/tests/lib/fault-lib.sh"

WALK_HOMES=home
WALK_TREE=home

test_expect_success 'setup: a Home at its newer of two versions' '
	fixture_checkout template
'

walk_run() {
	(cd home && hearth checkout head~1)
}
test_expect_success 'checkout of the older version: every call fails once, three ways' '
	fault_walk client
'

test_expect_success 'setup: the same Home at the older version' '
	(cd template/home && hearth checkout head~1 >/dev/null)
'

walk_run() {
	(cd home && hearth checkout)
}
test_expect_success 'checkout of head from the older version: every call fails once' '
	fault_walk client
'

# A checkout stopped after it placed files and before its index was
# written leaves them as head has them: a record instead of the rerun
# adopts them (backend/history/adopt.h) and records nothing, where it
# would record each as the user's (new nodes clashing with head's own,
# deletes and moves concurrent with head's). The history must be the one
# a checkout that never met a fault leaves, and status before the record
# lists none of them either. Head is ahead of the tree by
# a sync here: a record at an older version checked out on purpose
# restores it, as it should.
test_expect_success 'setup: a replica a sync brought a peer'"'"'s changes, not checked out' '
	mkdir stopped && hearth init stopped/a >/dev/null && (cd stopped/a &&
	    mkdir -p docs/old gone && echo one >docs/a.txt && echo two >docs/b.txt &&
	    echo old >docs/old/n.txt && echo bye >gone/x && ln -s docs/a.txt top-link &&
	    hearth record -m base >/dev/null) &&
	(cd stopped && hearth clone a b >/dev/null) && (cd stopped/a &&
	    echo "one, edited" >docs/a.txt && rm -r gone top-link && mkdir photos &&
	    mv docs/b.txt photos/b.txt && mv docs/old docs/renamed && mkdir -p new/deeper &&
	    echo fresh >new/deeper/f.txt && head -c 300000 /dev/urandom >new/big.bin &&
	    ln -s ../docs/a.txt new/link && chmod 600 docs/renamed/n.txt &&
	    hearth record -m newer >/dev/null) &&
	(cd stopped/b && hearth sync --no-checkout ../a >/dev/null)
'

WALK_HOMES=b
WALK_TREE=b
walk_run() {
	(cd b && hearth checkout)
}
walk_again() {
	(cd b && hearth status --porcelain >../status.out &&
	    { ! grep -v "^#" ../status.out || { echo "status lists the checkout's items"; false; }; } &&
	    hearth record -m "after a stopped checkout" >/dev/null &&
	    hearth checkout)
}
test_expect_success 'checkout of head stopped at every call, then a record: it records nothing' '
	(TEMPLATE=stopped && FAULT_KINDS=EIO && fault_walk client)
'

cat walk.summary 2>/dev/null | sed "s/^/# /"
test_done
