#!/bin/sh
test_description='the end-to-end oracle: every view of every version is the model tree'
# tests/lib/oracle.pl drives random scenarios of 3 to 5 replicas through the
# CLI (edits, renames, moves, deletes of files and folders, mode changes,
# links, syncs in random shapes, resolves, restores, copies given a new id)
# and checks after every step that export, ls -l, show --cat and checkout
# of head and of every version give the tree the pure model derives from
# the replica's ops (hearth-test-tool derive), equal across replicas.
# make check runs ORACLE_SEEDS; `make oracle ORACLE_COUNT=2000` the long run
# (tests/RELIABILITY.md). ORACLE_KNOWN names known breakages to leave out
# of the scenarios (see oracle.pl; none is known now); each finding has a
# seed of its own below.
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"
. "$HEARTH_SOURCE_DIR/tests/lib/manifest.sh"

ORACLE_SEEDS=${ORACLE_SEEDS:-1 2}
ORACLE_KNOWN=${ORACLE_KNOWN-}

oracle() {
	perl "$HEARTH_SOURCE_DIR/tests/lib/oracle.pl" --work "$TEST_ROOT/oracle" "$@"
}

# The model's side first: on a Home whose versions are known, derive gives
# the tree as tree_manifest writes it (folders without their mode).
test_expect_success 'derive gives the tree of head and of a version' '
	hearth init home >/dev/null &&
	mkdir -p "home/a b/c" && printf "one\n" >"home/a b/c/f" && printf "x" >home/top &&
	ln -s "a b/c/f" home/link && chmod 600 home/top &&
	(cd home && hearth record -m one >/dev/null) &&
	printf "two\n" >>"home/a b/c/f" && rm home/link && mkdir home/new &&
	(cd home && hearth record -m two >/dev/null) &&
	test_tool derive home >derived &&
	tree_manifest home | sed "s/ d [0-7]*\$/ d/" >expected &&
	test_cmp expected derived &&
	first=$(cd home && hearth log --oneline | tail -1 | cut -d" " -f1) &&
	(cd home && hearth export $first ../old >/dev/null) &&
	test_tool derive home $first >derived.old &&
	tree_manifest old | sed "s/ d [0-7]*\$/ d/" >expected.old &&
	test_cmp expected.old derived.old &&
	grep "^link l a\\\\x20b/c/f\$" derived.old
'

# The oracle must see a view that lies: a hearth whose export leaves out a
# file it wrote, or whose show --cat adds a byte, fails the first scenario.
test_expect_success 'the oracle finds an export or a show --cat that is wrong' '
	cat >lying-hearth <<-EOF &&
	#!/bin/sh
	if [ "\$1" = show ] && [ "\$LIE" = show ]; then
		"$HEARTH_BIN" "\$@" && printf x
		exit
	fi
	"$HEARTH_BIN" "\$@" || exit
	if [ "\$1" = export ] && [ "\$LIE" = export ]; then
		file=\$(find "\$3" -type f -print | head -n 1)
		[ -z "\$file" ] || rm -f "\$file"
	fi
	EOF
	chmod +x lying-hearth &&
	LIE=export HEARTH_BIN=$PWD/lying-hearth test_must_fail oracle --seed 1 --known "$ORACLE_KNOWN" >out &&
	grep "MISMATCH at step 0: export" out &&
	LIE=show HEARTH_BIN=$PWD/lying-hearth test_must_fail oracle --seed 1 --known "$ORACLE_KNOWN" >out &&
	grep "MISMATCH at step 0: ls -l + show --cat" out
'

for seed in $ORACLE_SEEDS; do
	test_expect_success "scenario of seed $seed: every view agrees with the model" "
		oracle --seed $seed --known '$ORACLE_KNOWN'
	"
done

# The oracle's findings (issue 12), each shown by the seed that found it,
# all fixed now. Head after a sync was one (seed 1 without --known head);
# the scenarios above check head.
# A copy given a new id converges with its original (issue 12): a copy
# takes its own id at its first write (t0330). A resolve that removed a
# folder in a tree behind head left the rows below it without a parent
# (t0260). Seed 4 met both; they hold now.
test_expect_success 'a copy given a new id converges; a resolve behind head keeps the rest (seed 4)' '
	oracle --seed 4
'
# A move kept --mine that brought back a folder this replica had deleted
# wrote the folder but not its index row, so the last checkout found an
# unrecorded add (t0260); that holds now.
test_expect_success 'resolve in a tree behind head: a move kept as mine (seed 22)' '
	oracle --seed 22
'
# A folder made where one was moved away was not recorded, and what was
# made in it went into the moved folder (t0135); that holds now.
test_expect_success 'a folder made where one was moved away is recorded (seed 1047)' '
	oracle --seed 1047 --steps 8 --depth 0
'
# Rare in the scenarios (none of seeds 1-112 meets it), so shown directly;
# it holds now (t0245 has the class: the name freed by a rename, a move or
# a delete, or taken by a new folder).
test_expect_success 'a name clash settled by a rename: the other file takes the name in the tree' '
	hearth init la >/dev/null && hearth clone la lb >/dev/null &&
	echo A >la/n.txt && (cd la && hearth record -m a >/dev/null) &&
	echo B >lb/n.txt && (cd lb && hearth record -m b >/dev/null) &&
	(cd lb && hearth sync --checkout ../la >/dev/null) &&
	mv lb/n.txt lb/c.txt && (cd lb && hearth record -m rename >/dev/null) &&
	test_tool derive lb >model &&
	tree_manifest lb | sed "s/ d [0-7]*\$/ d/" >tree &&
	test_cmp model tree
'

# Found by the long run G (seeds 61419, 61719): a folder a peer deleted that
# this replica kept alive with a file of its own (a "revived" conflict);
# deleting that file and recording dropped the folder from head, but the
# empty folder stayed in the tree and status was clean. The tree is the
# version (docs/DESIGN.md §7): the record keeps the folder.
# revive_then_empty PEER_STEP MINE EMPTY: ra holds d/f and d/e/g; rb clones,
# runs MINE (in rb) and records; ra runs PEER_STEP (in ra) and records; rb
# syncs and checks out, runs EMPTY and records; rb's tree (less *.swp) must
# be the model's head, and ra must get the same tree by a sync.
revive_then_empty() {
	hearth init ra >/dev/null && mkdir -p ra/d/e && echo x >ra/d/f && echo y >ra/d/e/g &&
	(cd ra && hearth record -m start >/dev/null) && hearth clone ra rb >/dev/null &&
	(cd rb && eval "$2" && hearth record --yes -m mine >/dev/null) &&
	(cd ra && eval "$1" && hearth record --yes -m peer >/dev/null) &&
	(cd rb && hearth sync --checkout --yes ../ra >/dev/null) &&
	(cd rb && eval "$3" && hearth record --yes -m emptied >../rb.out) &&
	test_tool derive rb >model &&
	tree_manifest rb | sed "s/ d [0-7]*\$/ d/" | grep -v "\.swp " >tree &&
	test_cmp model tree &&
	(cd rb && hearth status >../rb.status) && grep "Nothing changed" rb.status &&
	(cd ra && hearth sync --checkout --yes ../rb >/dev/null) &&
	tree_manifest ra | sed "s/ d [0-7]*\$/ d/" >tree.ra &&
	test_cmp model tree.ra
}

test_expect_success 'a revived folder emptied and recorded leaves the tree as head has it (seed 61419)' '
	test_when_finished "rm -rf ra rb" &&
	revive_then_empty "rm -rf d" "rm -r d/f d/e && echo h >d/.hidden" "rm d/.hidden" &&
	test -d rb/d && grep "D d/.hidden" rb.out
'
test_expect_success 'a revived folder deep down, emptied: every folder on disk is kept' '
	test_when_finished "rm -rf ra rb" &&
	revive_then_empty "rm -rf d" "rm d/e/g && echo h >d/e/.hidden" "rm d/e/.hidden" &&
	test -d rb/d/e && test -d ra/d/e
'
test_expect_success 'a revived folder left holding only an ignored file is kept' '
	test_when_finished "rm -rf ra rb" &&
	revive_then_empty "rm -rf d" "rm -r d/f d/e && echo h >d/.hidden && echo s >d/x.swp" \
		"rm d/.hidden" &&
	test -f rb/d/x.swp && test -d ra/d && test ! -e ra/d/x.swp
'
test_expect_success 'a folder a peer moved, then deleted, emptied here: kept where the tree has it' '
	test_when_finished "rm -rf ra rb" &&
	revive_then_empty "mv d d2 && rm -rf d2" "rm -r d/f d/e && echo h >d/.hidden" "rm d/.hidden"
'
# Behind head the rule does not apply: what head dropped is a delete the
# tree has yet to check out, and status counts it among head's changes.
test_expect_success 'a record in a tree behind head keeps no folder a peer deleted' '
	test_when_finished "rm -rf ra rb" &&
	hearth init ra >/dev/null && mkdir ra/d && echo x >ra/d/f && echo k >ra/k &&
	(cd ra && hearth record -m start >/dev/null) && hearth clone ra rb >/dev/null &&
	rm -rf ra/d && (cd ra && hearth record --yes -m gone >/dev/null) &&
	(cd rb && hearth sync ../ra >/dev/null && echo k2 >k && hearth record -m k >/dev/null &&
	 hearth status >../rb.status) &&
	grep "the working tree lacks 2 of its changes" rb.status &&
	(cd rb && hearth checkout --yes >/dev/null) &&
	test ! -e rb/d &&
	test_tool derive rb >model &&
	tree_manifest rb | sed "s/ d [0-7]*\$/ d/" >tree &&
	test_cmp model tree
'
# A Home an earlier build left with such a folder (tests/fixtures/
# make-dropped.sh, by c882004): status lists it, a record keeps it.
test_expect_success 'status lists a folder on disk that head dropped; the record keeps it' '
	test_when_finished "rm -rf ra rb" &&
	tar --xattrs --xattrs-include="user.*" -xzf \
		"$HEARTH_SOURCE_DIR/tests/fixtures/dropped-c882004.tar.gz" &&
	test -d rb/d &&
	(cd rb && hearth status >../rb.status) &&
	! grep "Nothing changed" rb.status && grep "added: *d/\$" rb.status &&
	(cd rb && hearth record -m keep >../rb.out) && grep "A d\$" rb.out &&
	(cd rb && hearth status >../rb.status) && grep "Nothing changed" rb.status &&
	test_tool derive rb >model &&
	tree_manifest rb | sed "s/ d [0-7]*\$/ d/" >tree &&
	test_cmp model tree
'

test_done
