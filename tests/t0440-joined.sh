#!/bin/sh
test_description='a Home joined from two roots: a hidden root fails closed and loses nothing; moves between roots; identity across restarts'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"
. "$HEARTH_SOURCE_DIR/tests/lib/watch-lib.sh"

cat >joined.yaml <<EOF
roots:
  - name: ssd
    path: $TEST_ROOT/ssd
  - name: hdd
    path: $TEST_ROOT/hdd
state: $TEST_ROOT/state
poll_interval: 500ms
EOF
HEARTH_CONFIG=$TEST_ROOT/joined.yaml
export HEARTH_CONFIG

xattrs=yes
touch probe && setfattr -n user.hearth.test -v 1 probe 2>/dev/null || xattrs=no
rm -f probe
. "$HEARTH_SOURCE_DIR/tests/lib/folder-id.sh"

# The node id of a path in the working-tree index.
id_of() {
	tree_ids | awk -v path="$1" '$2 == path || $2 == path "/" { print $1 }'
}

test_expect_success 'a joined Home: two roots, one tree' '
	hearth -c joined.yaml init >/dev/null &&
	mkdir -p ssd/Docs hdd/Docs hdd/Videos ssd/Work/deep &&
	echo "draft" >ssd/Docs/draft.txt &&
	echo "archive" >hdd/Docs/archive.txt &&
	echo "film" >hdd/Videos/film.mp4 &&
	echo "notes" >ssd/notes.txt &&
	echo "deep" >ssd/Work/deep/file.txt &&
	old_times ssd/*/* hdd/*/* ssd/* hdd/* ssd/Work/deep/* &&
	hearth record -m first >/dev/null &&
	hearth ls --tree -l Docs >out && cat out &&
	grep "ssd .*draft.txt" out && grep "hdd .*archive.txt" out
'

# Commands that touch the tree, each run with one root away.
tree_commands() {
	echo "status"
	echo "record -m nothing"
	echo "checkout"
	echo "watch --once"
	echo "watch --check"
	echo "watch"
}

for root in ssd hdd; do
	test_expect_success "with $root renamed away every command fails closed, naming it" '
		tree_ids >ids.before &&
		hearth stats >stats.before &&
		mv '$root' '$root'.away &&
		tree_commands | while read -r command; do
			test_expect_code 1 timeout 120 "$HEARTH_BIN" $command >out 2>err ||
				{ echo "hearth $command did not fail closed"; cat out err; exit 1; }
			grep "root .'$root'. is missing" err ||
				{ echo "hearth $command: $(cat err)"; exit 1; }
		done &&
		test ! -e '$root' &&
		tree_ids >ids.hidden && test_cmp ids.before ids.hidden &&
		hearth stats >stats.hidden && test_cmp stats.before stats.hidden
	'
	test_expect_success "$root put back: reconcile, nothing changed, the same ids" '
		mv '$root'.away '$root' &&
		hearth watch --once >out && cat out &&
		hearth status >out && grep "Nothing changed" out &&
		tree_ids >ids.after && test_cmp ids.before ids.after
	'
done

# An unmounted disk leaves its empty mount point behind: a folder with no
# marker. Nothing may be written into it (no folder made, no marker).
test_expect_success 'an empty folder where a root should be (unmounted): fails closed, writes nothing there' '
	tree_ids >ids.before &&
	mv hdd hdd.away && mkdir hdd &&
	tree_commands | while read -r command; do
		test_expect_code 1 timeout 120 "$HEARTH_BIN" $command >out 2>err ||
			{ echo "hearth $command did not fail closed"; cat out err; exit 1; }
		grep "root .hdd. at .*/hdd has no valid marker" err ||
			{ echo "hearth $command: $(cat err)"; exit 1; }
	done &&
	test -z "$(ls -A hdd)" &&
	tree_ids >ids.hidden && test_cmp ids.before ids.hidden &&
	rmdir hdd && mv hdd.away hdd &&
	hearth status >out && grep "Nothing changed" out
'

test_expect_success 'the two roots swapped (each marker names the other): fails closed, naming what it found' '
	tree_ids >ids.before &&
	mv ssd swap && mv hdd ssd && mv swap hdd &&
	tree_commands | while read -r command; do
		test_expect_code 1 timeout 120 "$HEARTH_BIN" $command >out 2>err ||
			{ echo "hearth $command did not fail closed"; cat out err; exit 1; }
		grep "root .ssd. at .*/ssd belongs to another Home or root (its marker names home [0-9a-f]*, root .hdd.)" err ||
			{ echo "hearth $command: $(cat err)"; exit 1; }
	done &&
	mv ssd swap && mv hdd ssd && mv swap hdd &&
	tree_ids >ids.after && test_cmp ids.before ids.after &&
	hearth status >out && grep "Nothing changed" out
'

test_expect_success 'a root holding another Home: fails closed, nothing changed in either' '
	cat >other.yaml <<-EOF &&
	roots:
	  - name: hdd
	    path: $TEST_ROOT/other-hdd
	state: $TEST_ROOT/other-state
	EOF
	hearth -c other.yaml init >/dev/null &&
	tree_ids >ids.before &&
	mv hdd hdd.away && mv other-hdd hdd &&
	test_expect_code 1 hearth record -m foreign 2>err && cat err &&
	grep "root .hdd. at .*/hdd belongs to another Home or root" err &&
	test_expect_code 1 hearth status 2>err &&
	test "$(ls -A hdd)" = .hearth &&
	mv hdd other-hdd && mv hdd.away hdd &&
	tree_ids >ids.after && test_cmp ids.before ids.after &&
	hearth status >out && grep "Nothing changed" out
'

test_expect_success 'a watched Home whose root is renamed away stops the watch and keeps everything' '
	tree_ids >ids.before &&
	watch_start joined && watch_wait joined "^current" &&
	mv hdd hdd.away &&
	watch_gone joined 10 && grep "root .hdd. is missing" joined.log &&
	test_expect_code 1 hearth status 2>err && grep "root .hdd. is missing" err &&
	mv hdd.away hdd &&
	tree_ids >ids.after && test_cmp ids.before ids.after
'

test_expect_success 'a move between roots is one move, seen by the watch as by a walk' '
	watch_start joined && watch_wait joined "^current" &&
	before=$(id_of notes.txt) &&
	mv ssd/notes.txt hdd/notes.txt &&
	status_from_watch out && cat out &&
	grep "moved:    notes.txt -> notes.txt (ssd -> hdd)" out &&
	hearth status --porcelain >watched &&
	watch_stop joined && hearth status --porcelain >walked && test_cmp walked watched &&
	hearth record -m "to the big disk" >out && cat out && grep "1 change" out &&
	test "$(id_of notes.txt)" = "$before" &&
	hearth ls --tree -l >out && grep "hdd .*notes.txt" out
'

test_expect_success 'rename, move within a root, move between roots, restart: the same ids' '
	tree_ids >ids.before &&
	watch_start joined && watch_wait joined "^current" &&
	mv ssd/Work ssd/Job &&
	mv ssd/Job/deep/file.txt ssd/Job/file.txt &&
	mv hdd/Videos/film.mp4 ssd/film.mp4 &&
	hearth record -m moves >/dev/null &&
	watch_stop joined && watch_start joined && watch_wait joined "^current" &&
	hearth status >out && grep "Nothing changed" out &&
	watch_stop joined &&
	tree_ids >ids.after &&
	test "$(awk "\$2 == \"Job/\" { print \$1 }" ids.after)" = \
		"$(awk "\$2 == \"Work/\" { print \$1 }" ids.before)" &&
	test "$(awk "\$2 == \"Job/file.txt\" { print \$1 }" ids.after)" = \
		"$(awk "\$2 == \"Work/deep/file.txt\" { print \$1 }" ids.before)" &&
	test "$(awk "\$2 == \"film.mp4\" { print \$1 }" ids.after)" = \
		"$(awk "\$2 == \"Videos/film.mp4\" { print \$1 }" ids.before)"
'

test_expect_success 'a copied folder gets a fresh id, also across a restart of the watch' '
	mkdir -p hdd/Photos && echo "photo" >hdd/Photos/one.jpg &&
	hearth record -m photos >/dev/null &&
	original=$(id_of Photos) &&
	watch_start joined && watch_wait joined "^current" &&
	cp -a hdd/Photos hdd/Photos-copy &&
	watch_stop joined && watch_start joined && watch_wait joined "^current" &&
	status_from_watch out && grep "added:    Photos-copy/" out &&
	hearth record -m copy >/dev/null &&
	test "$(id_of Photos)" = "$original" &&
	test "$(id_of Photos-copy)" != "$original" &&
	test "$(folder_id hdd/Photos-copy)" = "$(id_of Photos-copy)"
'

test_expect_success 'a copied file (xattr and all) gets a fresh id across a restart' '
	test $xattrs = yes || exit 0
	original=$(id_of Photos/one.jpg) &&
	watch_stop joined &&
	cp -a hdd/Photos/one.jpg hdd/Photos/two.jpg &&
	watch_start joined && watch_wait joined "^current" &&
	hearth status >out && grep "added:    Photos/two.jpg" out &&
	hearth record -m "copied file" >/dev/null &&
	test "$(id_of Photos/one.jpg)" = "$original" &&
	test "$(id_of Photos/two.jpg)" != "$original"
'

test_expect_success 'a damaged id, across a restart: repaired when the folder moves, same id' '
	before=$(id_of Photos) &&
	watch_stop joined &&
	damage_id hdd/Photos garbage &&
	watch_start joined && watch_wait joined "^current" &&
	hearth status >out && grep "Nothing changed" out &&
	mv hdd/Photos hdd/Pictures &&
	hearth record -m "rename after damage" >/dev/null &&
	test "$(id_of Pictures)" = "$before" &&
	test "$(folder_id hdd/Pictures)" = "$before"
'

test_expect_success 'a deleted id, across a restart: written again, same id' '
	before=$(id_of Pictures) &&
	watch_stop joined &&
	drop_id hdd/Pictures &&
	watch_start joined && watch_wait joined "^current" &&
	mv hdd/Pictures hdd/Images &&
	hearth record -m "no marker" >/dev/null &&
	test "$(id_of Images)" = "$before" && test "$(folder_id hdd/Images)" = "$before" &&
	watch_stop joined
'

test_expect_success 'the store is sound after all of it' '
	hearth fsck >out && grep "no problems" out
'

test_done
