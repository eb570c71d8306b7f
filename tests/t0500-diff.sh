#!/bin/sh
test_description='hearth diff: the working tree, a version or two, as git diff prints them; moves by identity; status -p; show -p of a moved and edited file'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"
. "$HEARTH_SOURCE_DIR/tests/lib/replicas.sh"

test_expect_success 'setup: a Home with two text files and a folder' '
	hearth init home >/dev/null && mkdir home/docs &&
	printf "one\ntwo\nthree\n" >home/docs/notes.txt &&
	printf "alpha\nbeta\n" >home/todo.txt &&
	(cd home && hearth record -m first >/dev/null)
'

test_expect_success 'nothing changed: diff prints nothing' '
	(cd home && hearth diff) >out && test ! -s out &&
	(cd home && hearth diff --stat) >out && test ! -s out
'

test_expect_success 'an edit: a hunk with its context, as git diff prints it' '
	printf "one\n2\nthree\n" >home/docs/notes.txt &&
	(cd home && hearth diff) >out &&
	cat >expected <<-\EOF &&
	diff --git a/docs/notes.txt b/docs/notes.txt
	--- a/docs/notes.txt
	+++ b/docs/notes.txt
	@@ -1,3 +1,3 @@
	 one
	-two
	+2
	 three
	EOF
	test_cmp expected out
'

test_expect_success 'the diff applies with patch(1) to the recorded file' '
	(cd home && hearth show --cat head docs/notes.txt) >notes.old &&
	(cd home && hearth diff) | sed -n "/^---/,\$p" >notes.patch &&
	patch -s notes.old notes.patch && cmp notes.old home/docs/notes.txt
'

test_expect_success 'moved and edited in the working tree: one move, diffed against its old self' '
	mkdir home/work && mv home/todo.txt home/work/list.txt &&
	printf "alpha\nbeta\ngamma\n" >home/work/list.txt &&
	(cd home && hearth diff work) >out && cat out &&
	cat >expected <<-\EOF &&
	diff --git a/todo.txt b/work/list.txt
	rename from todo.txt
	rename to work/list.txt
	--- a/todo.txt
	+++ b/work/list.txt
	@@ -1,2 +1,3 @@
	 alpha
	 beta
	+gamma
	EOF
	test_cmp expected out
'

test_expect_success '--name-status and --stat list every change' '
	printf "x\000y" >home/blob.bin &&
	(cd home && hearth diff --name-status) >out &&
	printf "A\tblob.bin\nM\tdocs/notes.txt\nA\twork/\nR\ttodo.txt\twork/list.txt\n" >expected &&
	test_cmp expected out &&
	(cd home && hearth diff --stat) >out && cat out &&
	grep "^ blob.bin  *| Bin$" out &&
	grep "^ docs/notes.txt  *| 2 +-$" out &&
	grep "^ todo.txt => work/list.txt | 1 +$" out &&
	grep "^ 3 files changed, 2 insertions(+), 1 deletion(-)$" out
'

test_expect_success 'a binary file is named as such, not printed' '
	(cd home && hearth diff blob.bin) >out &&
	grep "^Binary files /dev/null and b/blob.bin differ$" out &&
	! grep "^+" out
'

test_expect_success 'a mode change is its heading alone; a link diffs its target' '
	hearth init modes >/dev/null && echo a >modes/f && ln -s f modes/link &&
	(cd modes && hearth record -m one >/dev/null) &&
	chmod +x modes/f && ln -sf other modes/link &&
	(cd modes && hearth diff f) >out &&
	printf "diff --git a/f b/f\nold mode 100644\nnew mode 100755\n" >expected && test_cmp expected out &&
	(cd modes && hearth diff link) >out && grep "^-f$" out && grep "^+other$" out &&
	(cd modes && hearth diff --stat) >out && grep "^ f    | 0$" out
'

test_expect_success 'status -p and -v print the list, then the same diffs' '
	(cd home && hearth diff) >diff.out &&
	(cd home && hearth status -p) >out &&
	grep "^  moved:    todo.txt -> work/list.txt" out &&
	sed -n "/^diff --git/,\$p" out >status.diff && test_cmp diff.out status.diff &&
	(cd home && hearth status -v) >out.v && test_cmp out out.v &&
	test_expect_code 2 hearth -c home/.hearth/config.yaml status -p --porcelain 2>err &&
	grep "does not go with --porcelain" err
'

test_expect_success 'record it: show -p diffs the moved and edited file against its old self' '
	(cd home && hearth record -m second >/dev/null) &&
	(cd home && hearth show -p head) >out && cat out &&
	grep "^R todo.txt -> work/list.txt$" out &&
	grep "^@@ -1,2 +1,3 @@$" out &&
	! grep "^@@ -0,0 +1,3 @@$" out &&
	(cd home && hearth diff head~1 head work) >two &&
	sed -n "/^diff --git a\/todo.txt/,\$p" two >moved &&
	test "$(sed -n 2p moved)" = "rename from todo.txt" &&
	grep "^@@ -1,2 +1,3 @@$" moved
'

test_expect_success 'a version against the working tree, and paths after --' '
	printf "alpha\ngamma\n" >home/work/list.txt &&
	(cd home && hearth diff head~1 -- work/list.txt) >out && cat out &&
	grep "^rename from todo.txt$" out && grep "^-beta$" out && grep "^+gamma$" out &&
	(cd home && hearth diff head -- work/list.txt) >out &&
	! grep "^rename" out && grep "^-beta$" out &&
	(cd home && hearth diff head work/list.txt) >again && test_cmp out again
'

test_expect_success 'bad input: an unknown version or path, a name both version and path' '
	(cd home && test_expect_code 2 hearth diff -- no-such-version 2>../err) &&
	grep "no-such-version" err &&
	(cd home && test_expect_code 2 hearth diff missing.txt 2>../err) &&
	grep "no path missing.txt" err &&
	(cd home && echo x >head && test_expect_code 2 hearth diff head 2>../err && rm head) &&
	grep "both a version and a path" err &&
	(cd home && test_expect_code 2 hearth diff --bogus 2>../err) && grep "unknown option --bogus" err
'

test_expect_success 'colour on a terminal only' '
	(cd home && script -qec "\"$HEARTH_BIN\" diff work" /dev/null) >tty.out &&
	grep "$(printf "\033")\[31m-beta" tty.out &&
	(cd home && hearth diff work) >plain.out && ! grep "$(printf "\033")" plain.out
'

test_expect_success 'after a sync from a second replica: its change, by version and against the tree' '
	(cd home && hearth record -m third >/dev/null) &&
	make_replica other home &&
	printf "one\n2\nthree\nfour\n" >other/docs/notes.txt &&
	(cd other && hearth record -m "other adds four" >/dev/null) &&
	(cd home && hearth sync ../other >/dev/null) &&
	(cd home && hearth diff) >out && test ! -s out &&
	(cd home && hearth diff head~1 head) >out && grep "^+four$" out &&
	(cd home && hearth diff head) >out && grep "^-four$" out
'

test_expect_success 'a joined Home: a move between roots is shown as one, in diff and show' '
	joined_home j && HEARTH_CONFIG=$TEST_ROOT/j.yaml && export HEARTH_CONFIG &&
	cd j && mkdir -p ssd/Docs hdd/Docs &&
	echo draft >ssd/Docs/draft.txt && echo archive >hdd/Docs/archive.txt &&
	hearth record -m first >/dev/null &&
	mv ssd/Docs/draft.txt hdd/Docs/draft.txt && echo more >>hdd/Docs/draft.txt &&
	hearth diff >out && cat out &&
	grep "^root ssd -> hdd$" out && grep "^+more$" out &&
	hearth diff --name-status >out && grep "^R	Docs/draft.txt	Docs/draft.txt$" out &&
	hearth record -m "to the big disk" >/dev/null &&
	hearth show head >out && cat out &&
	grep "^R Docs/draft.txt -> Docs/draft.txt (ssd -> hdd)$" out &&
	! grep "no changes" out &&
	hearth diff head~1 head >out && grep "^root ssd -> hdd$" out && grep "^+more$" out
'

test_expect_success 'a joined Home: a file deleted from the second root is no move between roots' '
	HEARTH_CONFIG=$TEST_ROOT/j.yaml && export HEARTH_CONFIG && cd j &&
	rm hdd/Docs/archive.txt &&
	hearth status >out && cat out &&
	grep "^  deleted:  Docs/archive.txt$" out &&
	hearth diff >out && grep "^deleted file mode" out && ! grep "^root" out
'

test_done
