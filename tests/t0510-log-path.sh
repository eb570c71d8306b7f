#!/bin/sh
test_description='hearth log PATH: the versions that changed a file or folder, followed through renames and moves by identity, with -p; on a joined Home and after a sync'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"
. "$HEARTH_SOURCE_DIR/tests/lib/replicas.sh"

record() {
	(cd home && hearth record -m "$1" >/dev/null)
}

messages() {
	(cd home && hearth log --oneline "$@") | cut -d" " -f2-
}

test_expect_success 'setup: a file edited, moved, renamed and edited again; another file beside it' '
	hearth init home >/dev/null && mkdir home/docs &&
	echo a >home/docs/notes.txt && echo o >home/other && record one &&
	echo b >>home/docs/notes.txt && record "edit notes" &&
	echo x >>home/other && record "other only" &&
	mkdir home/work && mv home/docs/notes.txt home/work/notes.txt && record "move notes" &&
	mv home/work/notes.txt home/work/list.txt && echo c >>home/work/list.txt &&
	record "rename and edit" &&
	echo y >>home/other && record "other again"
'

test_expect_success 'log PATH lists the versions that changed it, through the move and the rename' '
	messages work/list.txt >out &&
	printf "rename and edit\nmove notes\nedit notes\none\n" >expected &&
	test_cmp expected out
'

test_expect_success 'each version shows what it did to the file, where it was then' '
	(cd home && hearth log work/list.txt) >out && cat out &&
	grep "^R work/notes.txt -> work/list.txt$" out &&
	grep "^R docs/notes.txt -> work/notes.txt$" out &&
	grep "^M docs/notes.txt$" out && grep "^A docs/notes.txt$" out &&
	! grep "other" out
'

test_expect_success 'log -p: the diff of the renamed and edited file against its old self' '
	(cd home && hearth log -p -n 1 work/list.txt) >out && cat out &&
	grep "^rename from work/notes.txt$" out && grep "^@@ -1,2 +1,3 @@$" out && grep "^+c$" out &&
	test "$(grep -c "^version " out)" = 1
'

test_expect_success 'a folder: every version that changed something in it, also what left it' '
	messages docs >out &&
	printf "move notes\nedit notes\none\n" >expected && test_cmp expected out &&
	messages work >out &&
	printf "rename and edit\nmove notes\n" >expected && test_cmp expected out
'

test_expect_success 'a deleted file is still found, the delete listed first' '
	rm home/work/list.txt && record "delete it" &&
	messages work/list.txt >out && head -n 1 out >first && echo "delete it" >expected &&
	test_cmp expected first && test "$(wc -l <out)" = 5
'

test_expect_success 'a file deleted and made again at its path is a new file with its own history' '
	echo new >home/work/list.txt && record "a new list" &&
	messages work/list.txt >out && echo "a new list" >expected && test_cmp expected out
'

test_expect_success 'a path gone twice, its folder renamed away and made again: the newest file that held it' '
	mkdir home/old && echo x >home/old/x.txt && record "old x" &&
	mv home/old home/old.1 && record "old renamed" &&
	mkdir home/old && echo y >home/old/x.txt && record "old x again" &&
	mv home/old home/old.2 && record "old renamed again" &&
	messages old/x.txt >out &&
	echo "old x again" >expected && test_cmp expected out
'

test_expect_success 'a move not recorded yet: the new path has the file'"'"'s history' '
	mv home/other home/docs/other.moved &&
	messages docs/other.moved >out &&
	printf "other again\nother only\none\n" >expected && test_cmp expected out &&
	mv home/docs/other.moved home/other
'

test_expect_success 'a path never recorded, and two paths, are usage errors' '
	(cd home && test_expect_code 2 hearth log nothing 2>../err) && grep "no file or folder nothing" err &&
	(cd home && test_expect_code 2 hearth log a b 2>../err) && grep "one PATH at most" err &&
	(cd home && test_expect_code 2 hearth log -p --oneline other 2>../err)
'

test_expect_success 'after a sync: the other replica edits are listed by identity, the merge version is not' '
	make_replica laptop home &&
	echo "from laptop" >>laptop/other && (cd laptop && hearth record -m "laptop edits other" >/dev/null) &&
	echo z >>home/docs/../other && record "home edits other" &&
	(cd home && hearth sync ../laptop >/dev/null) &&
	(cd home && hearth log --oneline) >all && grep -i "merge" all &&
	messages other >out && cat out &&
	grep "^laptop edits other$" out && grep "^home edits other$" out && ! grep -i "^merge" out
'

test_expect_success 'a clash loser gone from head is found by the name it was shown under' '
	echo "from home" >home/docs/clash.txt && record "home makes clash" &&
	echo "from laptop" >laptop/docs/clash.txt &&
	(cd laptop && hearth record -m "laptop makes clash" >/dev/null) &&
	(cd home && hearth sync ../laptop >/dev/null && hearth checkout >/dev/null) &&
	loser=$(cd home/docs && ls | grep "^clash~[0-9a-f]*\.txt\$") && test -n "$loser" &&
	rm "home/docs/$loser" && record "delete the loser" &&
	messages "docs/$loser" >out && cat out &&
	test "$(head -1 out)" = "delete the loser" && test "$(wc -l <out)" = 2 &&
	(cd home && test_expect_code 2 hearth log "docs/clash~00000000.txt" 2>../err) &&
	grep "no file or folder docs/clash~00000000.txt" err
'

test_expect_success 'a joined Home: a move between roots is in the file history' '
	joined_home j && HEARTH_CONFIG=$TEST_ROOT/j.yaml && export HEARTH_CONFIG &&
	cd j && mkdir -p ssd/Docs hdd/Docs &&
	echo draft >ssd/Docs/draft.txt && hearth record -m first >/dev/null &&
	mv ssd/Docs/draft.txt hdd/Docs/draft.txt && hearth record -m "to the big disk" >/dev/null &&
	hearth log Docs/draft.txt >out && cat out &&
	grep "^R Docs/draft.txt -> Docs/draft.txt (ssd -> hdd)$" out &&
	test "$(grep -c "^version " out)" = 2
'

test_expect_success 'log PATH from each path'"'"'s scope lists what whole trees list (every path of head, every path gone from it)' '
	test_tool log-paths home >out && cat out &&
	grep " 0 differ\$" out
'

test_done
