#!/bin/sh
test_description='the app: Enter on a changed file in Home shows its diff (search, mark and record there); L shows a path'"'"'s history, Enter a version'"'"'s diff of it'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"
. "$HEARTH_SOURCE_DIR/tests/lib/app-lib.sh"
. "$HEARTH_SOURCE_DIR/tests/lib/replicas.sh"

test_expect_success 'a Home with a version, then an edit, a move with an edit and a new file' '
	hearth init home &&
	cd home &&
	mkdir docs &&
	printf "one\ntwo\nthree\n" >docs/notes.txt &&
	printf "alpha\nbeta\n" >other.txt &&
	hearth record -m "first version" &&
	printf "one\n2\nthree\n" >docs/notes.txt &&
	mv other.txt docs/moved.txt && printf "gamma\n" >>docs/moved.txt &&
	echo new >new.txt
'

test_expect_success 'Enter on an unchanged folder opens it; on a changed file, its diff in the Changes pane' '
	cd home &&
	app_start &&
	app_wait "first version" &&
	app_keys 3 &&
	app_wait "new.txt" &&
	app_keys g Enter &&
	app_wait "notes.txt" &&
	app_keys j j &&
	app_keys Enter &&
	app_wait "Changes: the working tree against version" &&
	app_wait "+2" &&
	app_screen >../changes-screen &&
	grep -E "^ *-two" ../changes-screen &&
	grep "3 changes not recorded" ../changes-screen &&
	grep "M . docs/notes.txt" ../changes-screen
'

test_expect_success 'in the pane, / finds the moved file and Enter diffs it against its old self' '
	app_keys / &&
	app_wait "Lines holding" &&
	app_type "moved.txt" &&
	app_keys Enter Enter &&
	app_wait "rename from other.txt" &&
	app_screen >../moved-screen &&
	grep -F "+gamma" ../moved-screen &&
	! grep -F "@@ -0,0" ../moved-screen &&
	app_keys / &&
	app_type "gamma" &&
	app_keys Enter n &&
	app_wait "Search went on from the top"
'

test_expect_success 'space marks a change and r records only it, as from the tree' '
	cd home &&
	app_keys / &&
	app_type "docs/notes.txt" &&
	app_keys Enter &&
	app_keys Space &&
	app_keys r &&
	app_wait "Record the 1 marked path (docs/notes.txt)" &&
	app_type "notes edited" &&
	app_keys Enter &&
	app_wait "Recorded" &&
	app_wait "2 changes not recorded" &&
	hearth log --oneline >../log && grep "notes edited" ../log &&
	hearth show head >../show && grep "^M docs/notes.txt$" ../show && ! grep "moved" ../show &&
	hearth status >../status && grep "moved:    other.txt -> docs/moved.txt" ../status
'

test_expect_success 'L on a change opens its history; Enter shows a version'"'"'s diff of it' '
	app_keys g / &&
	app_type "new.txt" &&
	app_keys Enter &&
	app_keys L &&
	app_wait "no file or folder new.txt" &&
	app_keys q &&
	app_wait "Changes: the working tree" &&
	app_keys q &&
	app_wait "Name" &&
	app_keys g Right &&
	app_wait "notes.txt" &&
	app_keys g j j &&
	app_keys L &&
	app_wait "History of docs/notes.txt" &&
	app_wait "2 versions changed docs/notes.txt" &&
	app_screen >../history-screen &&
	notes=$(grep -n "notes edited" ../history-screen | cut -d: -f1) &&
	first=$(grep -n "first version" ../history-screen | cut -d: -f1) &&
	test "$notes" -lt "$first" &&
	app_keys Enter &&
	app_wait "+2" &&
	app_screen | grep "M docs/notes.txt"
'

test_expect_success 'a version'"'"'s moved and edited file is diffed against its old self; L follows it' '
	(cd home && hearth record -m "moved it" >/dev/null) &&
	app_keys q &&
	app_keys 1 R &&
	app_wait "moved it" &&
	app_keys g Enter &&
	app_wait "Version " &&
	app_wait "other.txt -> docs/moved.txt" &&
	app_keys / &&
	app_type "moved.txt" &&
	app_keys Enter Enter &&
	app_wait "rename from other.txt" &&
	app_wait "@@ -1,2 +1,3 @@" &&
	! app_screen | grep -F "@@ -0,0" &&
	app_keys L &&
	app_wait "History of docs/moved.txt" &&
	app_wait "2 versions changed" &&
	app_wait "(as other.txt)" &&
	app_screen >../moved-history-screen &&
	app_keys h &&
	app_wait "Version " &&
	app_quit
'

test_expect_success 'after a sync from a second replica, the file history holds its version' '
	make_replica laptop home &&
	echo "from laptop" >>laptop/docs/notes.txt &&
	(cd laptop && hearth record -m "laptop edits notes" >/dev/null) &&
	(cd home && hearth sync ../laptop >/dev/null && hearth checkout >/dev/null) &&
	cd home &&
	app_start &&
	app_wait "laptop edits notes" &&
	app_keys 3 &&
	app_wait "docs/" &&
	app_keys g Right &&
	app_wait "notes.txt" &&
	app_keys j j L &&
	app_wait "3 versions changed docs/notes.txt" &&
	app_screen >../synced-history-screen &&
	grep "laptop edits notes" ../synced-history-screen &&
	! grep -i "merge" ../synced-history-screen &&
	app_quit
'

test_expect_success 'a joined Home: Enter diffs a file moved between roots, L shows the move' '
	joined_home j && HEARTH_CONFIG=$TEST_ROOT/j.yaml && export HEARTH_CONFIG &&
	cd j && mkdir -p ssd/Docs hdd/Docs &&
	echo draft >ssd/Docs/draft.txt && echo archive >hdd/Docs/archive.txt &&
	hearth record -m "first on two roots" >/dev/null &&
	mv ssd/Docs/draft.txt hdd/Docs/draft.txt && echo more >>hdd/Docs/draft.txt &&
	app_start HEARTH_CONFIG=$TEST_ROOT/j.yaml &&
	app_wait "first on two roots" &&
	app_keys 3 &&
	app_wait "Docs/" &&
	app_keys g Right &&
	app_wait "draft.txt" &&
	app_keys j j Enter &&
	app_wait "root ssd -> hdd" &&
	app_wait "+more" &&
	app_keys r &&
	app_wait "Record every change" &&
	app_type "to the big disk" &&
	app_keys Enter &&
	app_wait "Recorded" &&
	app_keys q &&
	app_wait "Name" &&
	app_keys L &&
	app_wait "2 versions changed Docs/draft.txt" &&
	app_keys Enter &&
	app_wait "R Docs/draft.txt -> Docs/draft.txt" &&
	app_screen >../joined-history-screen &&
	app_quit
'

test_done
