#!/bin/sh
test_description='a whole walk of many folders finds each change in each of them'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"

# A whole walk takes the listings of the folders it goes into next from a
# second thread that ran ahead of it (scan_prefetch.c), and gives up those
# of a subtree it left. 160 folders, with a change, a folder left out or a
# file that needs its folder open (another Home's state, a user's own
# .hearth-id) scattered among them, each found once and in its place.

test_expect_success 'setup: 40 folders of 3 of 5 files, recorded' '
	hearth init other >/dev/null && hearth init h >/dev/null &&
	for t in $(seq -w 0 39); do
		for s in 0 1 2; do
			mkdir -p h/t$t/s$s &&
			for f in 0 1 2 3 4; do echo "t$t s$s f$f" >h/t$t/s$s/f$f || return 1; done
		done
	done &&
	echo mine >h/t11/s0/.hearth-id &&
	(cd h && hearth record -m base >/dev/null)
'

test_expect_success 'status names every change, in path order' '
	echo edit >>h/t03/s1/f2 && echo edit >>h/t17/s2/f4 && echo edit >>h/t39/s0/f0 &&
	echo edit >>h/t11/s0/.hearth-id &&
	# A folder made after t25/s2 is removed may be given its inode: it is
	# still a new folder (t0130 has the rule).
	rm h/t21/s1/f3 && rm -r h/t25/s2 && mv h/t12/s0/f1 h/t12/s0/f1.moved &&
	echo new >h/t28/s2/new.txt &&
	mkdir -p h/t33/s1/fresh/deep && echo x >h/t33/s1/fresh/deep/x &&
	mkdir h/t05/.cache && echo junk >h/t05/.cache/junk &&
	cp -R other/.hearth h/t09/s2/stash &&
	(cd h && hearth status --porcelain) >out &&
	grep -v "^# [a-z]* [0-9a-f]*$" out >actual &&
	cat >expect <<-\EOF &&
	# note t09/s2/stash: another Home'"'"'s state, left out
	M t03/s1/f2
	M t11/s0/.hearth-id
	R t12/s0/f1 -> t12/s0/f1.moved
	M t17/s2/f4
	D t21/s1/f3
	D t25/s2
	D t25/s2/f0
	D t25/s2/f1
	D t25/s2/f2
	D t25/s2/f3
	D t25/s2/f4
	A t28/s2/new.txt
	A t33/s1/fresh
	A t33/s1/fresh/deep
	A t33/s1/fresh/deep/x
	M t39/s0/f0
	EOF
	test_cmp expect actual
'

test_expect_success 'record takes the same changes, and the tree is clean after' '
	(cd h && hearth record -m changes >/dev/null && hearth status --porcelain) >out &&
	! grep -v "^#" out &&
	(cd h && hearth show head --porcelain 2>/dev/null || hearth show head) >shown &&
	grep "t33/s1/fresh/deep/x" shown && grep "t25/s2/f4" shown &&
	(cd h && hearth ls head t09/s2) >listed && ! grep stash listed &&
	(cd h && hearth ls head t05) >listed && ! grep cache listed
'

test_done
