#!/bin/sh
test_description='Homes made by an earlier build open with this one: every version, byte and identity kept'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"
. "$HEARTH_SOURCE_DIR/tests/lib/manifest.sh"

# The Homes tests/fixtures/make-homes.sh made with the build named in the
# file's name (the commit before the first format change it guards).
fixture=$HEARTH_SOURCE_DIR/tests/fixtures/homes-408267b.tar.gz

getfattr --version >/dev/null 2>&1 || test_skip_all 'getfattr (package attr) is not installed'

test_expect_success 'setup: the earlier build'"'"'s Homes, unpacked with their xattrs' '
	tar --xattrs --xattrs-include="user.*" -xzf "$fixture" &&
	sed -i "s|@HOMES@|$TEST_ROOT/homes|g" homes/j/config.yaml homes/j/ssd/.hearth/root \
	    homes/j/hdd/.hearth/root &&
	test -f homes/a/.hearth/store.db && test -f homes/j/state/store.db &&
	mkdir pristine && (cd pristine && tar -xzf "$fixture") &&
	test_tool ops pristine/homes/a >ops.a.then && test -s ops.a.then &&
	test_tool store-schema homes/a/.hearth/store.db >schema.then && grep "^format 3$" schema.then
'

# named_as_then HOME LOG [sorted]: the ids LOG (an earlier build's log)
# shows each still name a version of HOME (store format 7 gave versions
# new ids, the old ones kept as aliases), and those are the versions log
# lists now, in LOG's order (or either sorted).
named_as_then() {
	sed -n "s/^version //p" "$2" >"$TEST_ROOT/ids.then" && test -s "$TEST_ROOT/ids.then" &&
	(cd "$1" && while read -r id; do hearth show "$id" | sed -n "1s/^version //p" || exit 1
	    done) <"$TEST_ROOT/ids.then" >"$TEST_ROOT/ids.named" &&
	(cd "$1" && hearth log) | sed -n "s/^version //p" >"$TEST_ROOT/ids.now" &&
	if [ -n "${3:-}" ]; then
		sort -o "$TEST_ROOT/ids.named" "$TEST_ROOT/ids.named" &&
		sort -o "$TEST_ROOT/ids.now" "$TEST_ROOT/ids.now"
	fi &&
	test_cmp "$TEST_ROOT/ids.named" "$TEST_ROOT/ids.now"
}

# markers DIR: "ID PATH" for every .hearth-id marker file below DIR (hearth's
# own .hearth folders aside), PATH the folder holding it.
markers() {
	(cd "$1" && find . -path ./.hearth -prune -o -path "./*/.hearth" -prune -o \
	    -name .hearth-id -type f -printf "%h\n") | sort | while read -r folder; do
		echo "$(cat "$1/$folder/.hearth-id") $folder"; done
}

# ids_now DIR LIST: each folder of LIST (as markers wrote it) now carries the
# same id in its xattr, and no marker file is left below DIR.
ids_now() {
	while read -r id folder; do
		test "$(getfattr --only-values -n user.hearth.id "$1/$folder" 2>/dev/null)" = "$id" ||
		    { echo "$folder lost its id $id"; return 1; }
	done <"$2" &&
	test -z "$(cd "$1" && find . -path ./.hearth -prune -o -name .hearth-id -print)"
}

# On a copy, before any command of this build: a folder renamed while the
# earlier build was the one installed, then the first command. It moves
# the markers into xattrs, keeping every id, and sees the rename as a move.
upgrade_copy() {
	mkdir -p "$1" && tar --xattrs --xattrs-include="user.*" -C "$1" -xzf "$fixture" &&
	markers "$1/homes/b" >"$1/markers.b" && test $(wc -l <"$1/markers.b") -ge 4 &&
	grep -q " ./Music/archive$" "$1/markers.b" &&
	mv "$1/homes/b/Music/archive" "$1/homes/b/Music/kept-before" &&
	sed "s| ./Music/archive$| ./Music/kept-before|" "$1/markers.b" >"$1/markers.moved" &&
	(cd "$1/homes/b" && hearth status --porcelain) >"$1/status" &&
	grep "^R Music/archive -> Music/kept-before$" "$1/status" &&
	ids_now "$1/homes/b" "$1/markers.moved" &&
	mv "$1/homes/b/Documents" "$1/homes/b/Papers" &&
	(cd "$1/homes/b" && hearth status --porcelain) >"$1/status" &&
	grep "^R Documents -> Papers$" "$1/status"
}

test_expect_success 'the first command moves folder ids into xattrs, on ext4: a rename before and after is a move' '
	upgrade_copy "$TEST_ROOT/ext4"
'

test_expect_success 'the same on tmpfs' '
	test "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs || exit 0
	shm=$(mktemp -d /dev/shm/hearth-t0900.XXXXXX) &&
	upgrade_copy "$shm"; status=$?; rm -rf "$shm"; exit $status
'

# Every version the earlier build listed, exported by its full id, holds
# what it held then.
test_expect_success 'every version of each Home exports as it did' '
	(cd homes/a && for id in $(sed -n "s/^version //p" ../expected/a/log); do
		rm -rf "$TEST_ROOT/out" && hearth export "$id" "$TEST_ROOT/out" >/dev/null &&
		tree_manifest "$TEST_ROOT/out" >"$TEST_ROOT/now" &&
		test_cmp "../expected/a/$id" "$TEST_ROOT/now" || exit 1; done) &&
	(cd homes/b && for id in $(sed -n "s/^version //p" ../expected/b/log); do
		rm -rf "$TEST_ROOT/out" && hearth export "$id" "$TEST_ROOT/out" >/dev/null &&
		tree_manifest "$TEST_ROOT/out" >"$TEST_ROOT/now" &&
		test_cmp "../expected/b/$id" "$TEST_ROOT/now" || exit 1; done) &&
	for id in $(sed -n "s/^version //p" homes/expected/j/log); do
		rm -rf out && hearth -c homes/j/config.yaml export "$id" "$TEST_ROOT/out" >/dev/null &&
		tree_manifest out >now && test_cmp "homes/expected/j/$id" now || exit 1; done
'

test_expect_success 'no marker file is left in any folder of the three Homes' '
	for top in homes/a homes/b homes/j/ssd homes/j/hdd; do
		test -z "$(cd $top && find . -path ./.hearth -prune -o -name .hearth-id -print)" ||
		    { echo "markers left in $top"; exit 1; }
	done
'

test_expect_success 'the log lists the same versions, and fsck finds nothing wrong' '
	for name in a b; do
		named_as_then homes/$name homes/expected/$name/log sorted &&
		(cd homes/$name && hearth fsck) >fsck.out && grep "no problems" fsck.out || exit 1
	done &&
	hearth -c homes/j/config.yaml fsck >fsck.out && grep "no problems" fsck.out
'

# Format 4 adds each op's hash chain: computed on open for the ops held,
# every op's bytes as they were, and from then on what fsck checks.
test_expect_success 'the store is migrated to the current format, every op byte for byte as it was' '
	test_tool store-schema homes/a/.hearth/store.db >schema.now && grep "^format 8$" schema.now &&
	test_tool ops homes/a >ops.a.now && test_cmp ops.a.then ops.a.now
'

test_expect_success 'the chain the migration computed finds a flipped byte of an old op' '
	cp -a homes/a flipped &&
	test_tool flip flipped/.hearth/store.db op 2 body 30 &&
	(cd flipped && ! hearth fsck) >fsck.out && grep "is damaged: its bytes do not match" fsck.out
'

test_expect_success 'the working trees are untouched and status sees only the unrecorded edit' '
	tree_manifest homes/a >tree.a && test_cmp homes/expected/a/tree tree.a &&
	tree_manifest homes/b >tree.b && test_cmp homes/expected/b/tree tree.b &&
	(cd homes/a && hearth status --porcelain) >status.a &&
	sed "/^#/d" status.a >changes.a && grep "with space/a file" changes.a &&
	test $(wc -l <changes.a) = 1 &&
	(cd homes/b && hearth status --porcelain) | sed "/^#/d" >changes.b && test ! -s changes.b
'

# The earlier build left b with ops past its newest version (a sync took
# them in and no version named them): head is that state, shown honestly,
# and every name of it gives the tree b's working tree holds.
test_expect_success 'an unnamed head state of an earlier build is head, in every view' '
	(cd homes/b && hearth log --oneline) >log.b && head -n 1 log.b | grep "^head The head state: " &&
	(cd homes/b && hearth status) >status.b && grep "^Head is the head state: " status.b &&
	grep "^The working tree is at head\.$" status.b &&
	(cd homes/b && hearth status --porcelain) | grep "^# unnamed [1-9]" &&
	(cd homes/b && hearth ls head) >ls.b && grep "^clash~" ls.b &&
	loser=$(grep "^clash~" ls.b) && (cd homes/b && hearth show --cat HEAD~0 "$loser") >clash &&
	cmp clash "homes/b/$loser" &&
	rm -rf out && (cd homes/b && hearth export head "$TEST_ROOT/out" >/dev/null) &&
	tree_manifest out >export.b && test_cmp homes/expected/b/tree export.b &&
	newest=$(sed -n "2s/ .*//p" log.b) && (cd homes/b && hearth ls head~1) >ls1.b &&
	(cd homes/b && hearth ls "$newest") >ls2.b && test_cmp ls1.b ls2.b
'

test_expect_success 'identity is kept: a rename after the upgrade is a move, in each root' '
	(cd homes/b && mv Documents/notes.txt Documents/notes-renamed.txt &&
	 mv Music/archive Music/kept && hearth status --porcelain) >moves &&
	grep "^R.*Documents/notes.txt.*Documents/notes-renamed.txt" moves &&
	grep "^R.*Music/archive.*Music/kept" moves &&
	mv homes/j/hdd/Videos homes/j/hdd/Films &&
	hearth -c homes/j/config.yaml status --porcelain >moves.j &&
	grep "^R.*Videos.*Films" moves.j
'

test_expect_success 'the two replicas still sync, and every conflict is still listed' '
	(cd homes/a && hearth conflicts --porcelain) >conflicts.a &&
	test $(wc -l <conflicts.a) -ge 3 &&
	(cd homes/a && hearth record -m "after the upgrade" >/dev/null && hearth sync ../b) >sync.out &&
	grep "Synced with" sync.out &&
	(cd homes/b && hearth log --oneline) | grep "after the upgrade"
'

# The op format's mtime widened to 128 bits (past 2262); times that fit 64
# bits keep their bytes, so the old ops decode and hash as before (the
# exports and fsck above) and a new, wide one travels beside them.
test_expect_success 'an upgraded Home records a file dated 2300 exactly, and its replica checks it out so' '
	touch -d "2300-06-01 12:00:00.123456789" probe &&
	if test "$(stat -c %y probe)" != "2300-06-01 12:00:00.123456789 +0000"; then
		echo "this filesystem cannot hold 2300; skipped"; exit 0
	fi &&
	(cd homes/a && echo future >future.txt &&
	 touch -d "2300-06-01 12:00:00.123456789" future.txt &&
	 hearth record -m "dated 2300" >/dev/null && hearth sync ../b >/dev/null) &&
	(cd homes/b && hearth checkout >/dev/null && hearth ls -l head) >ls.b &&
	grep "2300-06-01 12:00 .*future.txt" ls.b &&
	test "$(stat -c %y homes/b/future.txt)" = "2300-06-01 12:00:00.123456789 +0000" &&
	(cd homes/a && hearth fsck) >fsck.out && grep "no problems" fsck.out &&
	(cd homes/b && hearth fsck) >fsck.out && grep "no problems" fsck.out
'

# Format 5 adds the index log lists history by time through (history.c).
# Homes a build of format 4 made (0e96577): every version listed in the
# order it listed them (their times tie, so the total order decides), and
# nothing else changed.
fixture4=$HEARTH_SOURCE_DIR/tests/fixtures/homes-0e96577.tar.gz

test_expect_success 'a Home of format 4 opens as the current format and lists its history as before' '
	mkdir four && tar --xattrs --xattrs-include="user.*" -C four -xzf "$fixture4" &&
	test_tool store-schema four/homes/a/.hearth/store.db >schema.four &&
	grep "^format 4$" schema.four &&
	test_tool ops four/homes/a >ops.four.then &&
	named_as_then four/homes/a four/homes/expected/a/log &&
	test_tool store-schema four/homes/a/.hearth/store.db >schema.four &&
	grep "^format 8$" schema.four &&
	test_tool ops four/homes/a >ops.four.now && test_cmp ops.four.then ops.four.now &&
	(cd four/homes/a && hearth fsck) >fsck.out && grep "no problems" fsck.out
'

# Format 6 and pack version 2 (a chunk may be stored as a delta against
# another): the Homes of d3df318, the last build of format 5 and pack
# version 1, open; their packs stay as they are and still read.
fixture5=$HEARTH_SOURCE_DIR/tests/fixtures/homes-d3df318.tar.gz

# exports_as_then HOME NAME: every version NAME's log listed exports as the
# earlier build exported it.
exports_as_then() {
	(cd "$1" && for id in $(sed -n "s/^version //p" "../expected/$2/log"); do
		rm -rf "$TEST_ROOT/out" && hearth export "$id" "$TEST_ROOT/out" >/dev/null &&
		tree_manifest "$TEST_ROOT/out" >"$TEST_ROOT/now" &&
		test_cmp "../expected/$2/$id" "$TEST_ROOT/now" || exit 1; done)
}

test_expect_success 'a Home of format 5 opens: migrated, every version exports as it did' '
	mkdir v5 && (cd v5 && tar --xattrs --xattrs-include="user.*" -xzf "$fixture5") &&
	test_tool store-schema v5/homes/a/.hearth/store.db >schema.v5 && grep "^format 5$" schema.v5 &&
	(cd v5/homes/a/.hearth/packs && sha256sum *.pack) >packs.then &&
	exports_as_then v5/homes/a a && exports_as_then v5/homes/b b &&
	test_tool store-schema v5/homes/a/.hearth/store.db >schema.v6 && grep "^format 8$" schema.v6 &&
	(cd v5/homes/a && hearth fsck) >fsck.out && grep "no problems" fsck.out
'

test_expect_success 'an edit of a file an old pack holds is stored as a delta against it; the old packs stay' '
	(cd v5/homes/a && sed -i "s/number 3000$/number three thousand/" Documents/long.txt &&
	 hearth record -m "after format 6" >/dev/null && hearth stats) >stats.v6 &&
	grep "^delta chunks  *1 " stats.v6 && grep "^delta chains  *1 longest" stats.v6 &&
	(cd v5/homes/a/.hearth/packs && sha256sum -c --quiet "$TEST_ROOT/packs.then") &&
	(cd v5/homes/a && hearth show --cat head Documents/long.txt) >long.now &&
	cmp long.now v5/homes/a/Documents/long.txt &&
	exports_as_then v5/homes/a a &&
	(cd v5/homes/a && hearth fsck) >fsck.out && grep "no problems" fsck.out
'

test_expect_success 'the delta travels to the replica as whole bytes, and reads there' '
	(cd v5/homes/a && hearth sync ../b >/dev/null) &&
	(cd v5/homes/b && hearth checkout >/dev/null) &&
	cmp v5/homes/a/Documents/long.txt v5/homes/b/Documents/long.txt &&
	(cd v5/homes/b && hearth fsck) >fsck.out && grep "no problems" fsck.out
'

# Format 7: a version's id commits to the bytes of every op it names
# (store_version_id); the Homes of 3df0f15, the last build of format 6,
# open with every version under its new id, each id that build showed
# still naming it, every version exporting as it did, and a version made
# after the upgrade named alike on both replicas.
fixture6=$HEARTH_SOURCE_DIR/tests/fixtures/homes-3df0f15.tar.gz

test_expect_success 'a Home of format 6 opens: new version ids, the old ones still name them' '
	mkdir v6 && (cd v6 && tar --xattrs --xattrs-include="user.*" -xzf "$fixture6") &&
	test_tool store-schema v6/homes/a/.hearth/store.db >schema.six && grep "^format 6$" schema.six &&
	test_tool ops v6/homes/a >ops.six.then &&
	exports_as_then v6/homes/a a && exports_as_then v6/homes/b b &&
	named_as_then v6/homes/a v6/homes/expected/a/log &&
	named_as_then v6/homes/b v6/homes/expected/b/log &&
	sed -n "s/^version //p" v6/homes/expected/a/log >ids.six.then &&
	(cd v6/homes/a && hearth log) | sed -n "s/^version //p" >ids.six.now &&
	! grep -x -f ids.six.then ids.six.now &&
	test_tool store-schema v6/homes/a/.hearth/store.db >schema.seven &&
	grep "^format 8$" schema.seven && grep "^table version_alias$" schema.seven &&
	test_tool ops v6/homes/a >ops.six.now && test_cmp ops.six.then ops.six.now &&
	(cd v6/homes/a && hearth status) >status.six && grep "^At version " status.six &&
	(cd v6/homes/a && hearth fsck) >fsck.out && grep "no problems" fsck.out &&
	(cd v6/homes/b && hearth fsck) >fsck.out && grep "no problems" fsck.out
'

test_expect_success 'after the upgrade both replicas give every version one id' '
	echo after >v6/homes/b/after.txt && (cd v6/homes/b && hearth record -m after >/dev/null) &&
	(cd v6/homes/a && hearth sync ../b >/dev/null) &&
	(cd v6/homes/a && hearth log) | sed -n "s/^version //p" | sort >ids.a &&
	(cd v6/homes/b && hearth log) | sed -n "s/^version //p" | sort >ids.b &&
	test_cmp ids.a ids.b
'

# Format 8: the listing index holds every column a walk compares, and the
# walk reads a folder's rows from it alone (backend/disk/scan.c). The
# Homes of dc9c41e, the last build of format 7, open: status finds what
# it found (a's one unrecorded edit), a record and a status after it see
# the same tree, every version exports as it did, every op is as it was.
fixture7=$HEARTH_SOURCE_DIR/tests/fixtures/homes-dc9c41e.tar.gz

test_expect_success 'a Home of format 7 opens: the walk reads the wider index and finds what it found' '
	mkdir v7 && (cd v7 && tar --xattrs --xattrs-include="user.*" -xzf "$fixture7") &&
	test_tool store-schema v7/homes/a/.hearth/store.db >schema.v7 && grep "^format 7$" schema.v7 &&
	test_tool ops v7/homes/a >ops.v7.then &&
	(cd v7/homes/a && hearth status --porcelain) >status.v7 &&
	grep -x "M with space/a file" status.v7 && test $(grep -vc "^#" status.v7) = 1 &&
	test_tool store-schema v7/homes/a/.hearth/store.db >schema.eight &&
	grep "^format 8$" schema.eight && grep "^index entry_listing$" schema.eight &&
	exports_as_then v7/homes/a a && exports_as_then v7/homes/b b &&
	named_as_then v7/homes/a v7/homes/expected/a/log &&
	test_tool ops v7/homes/a >ops.v7.now && test_cmp ops.v7.then ops.v7.now &&
	(cd v7/homes/a && hearth record -m after >/dev/null && hearth status --porcelain) >status.after &&
	test $(grep -vc "^#" status.after) = 0 &&
	(cd v7/homes/b && hearth status --porcelain) >status.b && test $(grep -vc "^#" status.b) = 0 &&
	(cd v7/homes/a && hearth fsck) >fsck.out && grep "no problems" fsck.out
'

test_done
