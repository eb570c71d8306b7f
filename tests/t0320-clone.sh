#!/bin/sh
test_description='clone makes a replica, adopting what the folder already holds; reid renames a copy'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"
. "$HEARTH_SOURCE_DIR/tests/lib/replicas.sh"

test_expect_success 'setup: a Home with files and folders' '
	hearth init a >/dev/null &&
	mkdir -p a/docs/deep a/photos && echo "list" >a/docs/list.txt &&
	echo "deep" >a/docs/deep/note.txt && head -c 100000 /dev/urandom >a/photos/p1.jpg &&
	(cd a && hearth record -m base >/dev/null)
'

test_expect_success 'clone into a new folder: the same tree, its own replica id' '
	hearth clone a b >out && grep "^Made replica" out &&
	same_trees a b &&
	(cd b && hearth status --porcelain) >status && ! grep -v "^#" status &&
	(cd b && hearth log --oneline) >log.b && (cd a && hearth log --oneline) >log.a &&
	test_cmp log.a log.b
'

test_expect_success 'a clone counts its own writes (pack and files), not its source'"'"'s' '
	hearth init big >/dev/null && head -c 4000000 /dev/urandom >big/blob &&
	(cd big && hearth record -m blob >/dev/null) &&
	hearth clone big big2 >/dev/null && (cd big2 && hearth stats) >stats &&
	stored=$(sed -n "s/^content bytes written *\([0-9]*\).*/\1/p" stats) &&
	written=$(sed -n "s/^bytes written *\([0-9]*\).*/\1/p" stats) &&
	test "$stored" -ge 4000000 &&
	test "$written" -ge $((2 * stored)) && test "$written" -lt $((2 * stored + 1000000))
'

test_expect_success 'the clone names its source as the peer origin, by absolute path' '
	(cd b && hearth peers --porcelain) >peers &&
	test "$(cut -f1,2 peers | head -n 1)" = "$(printf "origin\t%s" "$(cd a && pwd -P)")" &&
	echo "after the clone" >a/later.txt && (cd a && hearth record -m later >/dev/null) &&
	(cd b && hearth sync origin >/dev/null && hearth checkout >/dev/null) &&
	test "$(cat b/later.txt)" = "after the clone"
'

test_expect_success 'the clone name defaults to the source folder name' '
	mkdir elsewhere && (cd elsewhere && hearth clone ../a >/dev/null) &&
	test -d elsewhere/a/docs && same_trees a elsewhere/a
'

test_expect_success 'clone into a folder holding a copy: matching files adopted, no conflict' '
	mkdir c && cp -a --no-preserve=xattr a/docs c/docs && cp -a --no-preserve=xattr a/photos c/photos &&
	inode_before=$(stat -c %i c/photos/p1.jpg) &&
	hearth clone a c >out && grep "3 already there" out &&
	test "$(stat -c %i c/photos/p1.jpg)" = "$inode_before" &&
	(cd a && hearth log --oneline) >log.a && (cd c && hearth log --oneline) >log.c &&
	test_cmp log.a log.c &&
	(cd c && hearth conflicts) >out && grep "No conflicts" out
'

test_expect_success 'what differs is recorded as the new replica own change, nothing overwritten' '
	mkdir d && mkdir -p d/docs && echo "my list" >d/docs/list.txt && echo "mine" >d/extra.txt &&
	hearth clone a d >out && grep "recorded as this replica" out &&
	test "$(cat d/docs/list.txt)" = "my list" && test "$(cat d/extra.txt)" = mine &&
	test -f d/docs/deep/note.txt && test -f d/photos/p1.jpg &&
	(cd d && hearth status --porcelain) >status && ! grep -v "^#" status &&
	sync_pair d a && settle a &&
	test "$(cat a/docs/list.txt)" = "my list" && test "$(cat a/extra.txt)" = mine
'

test_expect_success 'a copied state folder an older hearth made is refused until it gets a fresh id' '
	cp -a b copy && test_tool meta-delete copy/.hearth/store.db state_stamp &&
	test_expect_code 1 sh -c "cd copy && \"$HEARTH_BIN\" sync ../b" >out 2>err &&
	grep "reid" err &&
	(cd copy && hearth reid) >out && grep "now" out &&
	(cd copy && hearth sync ../b >/dev/null) &&
	echo "from the copy" >copy/new.txt && (cd copy && hearth record -m new >/dev/null) &&
	sync_pair b copy && settle b && test "$(cat b/new.txt)" = "from the copy"
'

test_expect_success 'clone of something that is not a Home says so' '
	mkdir plain && test_expect_code 1 hearth clone plain x 2>err && grep "not a Home" err &&
	test ! -e x/.hearth
'

test_expect_success 'a clone of a joined Home: a rename there keeps the file on its disk here' '
	mkdir -p j/ssd j/hdd &&
	printf "roots:\n  - name: ssd\n    path: %s/j/ssd\n  - name: hdd\n    path: %s/j/hdd\nstate: %s/j/state\n" \
	    "$TEST_ROOT" "$TEST_ROOT" "$TEST_ROOT" >j/home.yaml &&
	hearth -c j/home.yaml init >/dev/null &&
	mkdir -p j/ssd/Documents j/hdd/Videos && echo cv >j/ssd/Documents/cv.txt &&
	echo film >j/hdd/Videos/trip.mkv && (cd j/ssd && hearth record -m joined >/dev/null) &&
	hearth clone "$TEST_ROOT/j/home.yaml" lap >/dev/null &&
	test "$(cat lap/Videos/trip.mkv)" = film &&
	mv lap/Videos/trip.mkv lap/Videos/holiday.mkv && (cd lap && hearth record -m rename >/dev/null) &&
	(cd lap && hearth sync origin >/dev/null) && (cd j/ssd && hearth checkout >/dev/null) &&
	test "$(cat j/hdd/Videos/holiday.mkv)" = film && test ! -e j/hdd/Videos/trip.mkv &&
	test ! -e j/ssd/Videos &&
	(cd j/ssd && hearth ls -l Videos) >out && grep " hdd  *holiday.mkv$" out
'

test_done
