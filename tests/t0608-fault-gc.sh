#!/bin/sh
test_description='gc failed, killed or cut by power loss at every write-class call: every version'"'"'s bytes kept'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"
. "$HEARTH_SOURCE_DIR/tests/lib/fault-lib.sh"
. "$HEARTH_SOURCE_DIR/tests/lib/manifest.sh"

# gc writes new packs, then one transaction points the store at them and
# forgets the old ones, then the old files go. At any call before the
# commit the store is as it was (new files unlisted, removed by the next
# holder of the lock); after it, as after (old files unlisted, removed the
# same way). fsck (in the walks' checks) reads every chunk back and checks
# its hash, and below every version is exported and compared as well.

WALK_HOMES=home
WALK_TREE=home
# Every third call of each walk (the three fault kinds start at different
# calls, so together they reach every one); six times sparser under the
# sanitizers.
STRIDE_SCALE=1
[ -z "${HEARTH_SANITIZED:-}" ] || STRIDE_SCALE=6
FAULT_STRIDE=$((3 * STRIDE_SCALE))

walk_run() {
	(cd home && hearth gc)
}

# every_version HOME OUT: the manifests of every version's export, in one file.
every_version() {
	(cd "$1" && hearth log) | sed -n "s/^version //p" | while read -r id; do
		rm -rf "$TEST_ROOT/out" && (cd "$1" && hearth export "$id" "$TEST_ROOT/out") >/dev/null &&
		echo "version $id" && tree_manifest "$TEST_ROOT/out" || exit 1
	done >"$2"
}

# The pack files are the ones the store lists, once a command took the lock.
packs_listed() {
	files=$(ls "$1/.hearth/packs" | wc -l) &&
	listed=$( (cd "$1" && hearth stats) | sed -n "s/^packs  *\([0-9]*\)$/\1/p") &&
	test "$files" = "$listed" || { echo "$files pack files, $listed listed"; return 1; }
}

test_expect_success 'setup: a Home of four versions, with deltas' '
	mkdir template && hearth init template/home >/dev/null && (cd template/home &&
	seq 1 5000 | sed "s/^/line /" >notes.txt && echo one >a.txt &&
	head -c 5000 /dev/urandom >b.bin && hearth record -m one >/dev/null &&
	sed -i "100s/.*/edited/" notes.txt && echo two >a.txt && hearth record -m two >/dev/null &&
	sed -i "200s/.*/edited/" notes.txt && ln -s notes.txt link && hearth record -m three >/dev/null &&
	sed -i "300s/.*/edited/" notes.txt && rm b.bin && hearth record -m four >/dev/null) &&
	every_version template/home versions.before
'

test_expect_success 'gc fails at every write-class call, three ways, and changes nothing it should keep' '
	fault_walk client
'

test_expect_success 'gc killed at every write-class call: every version as before, the next gc finishes' '
	rm -rf work && cp -a template work &&
	(cd work/home && HEARTH_FAULT=count hearth gc) >/dev/null 2>count.err &&
	calls=$(sed -n "s/^hearth: io: \([0-9]*\) write-class calls.*/\1/p" count.err) &&
	test "$calls" -gt 5 && n=1 &&
	while [ $n -le $calls ]; do
		rm -rf work && cp -a template work &&
		status=0 && (cd work/home && HEARTH_KILL=$n hearth gc >/dev/null 2>&1) || status=$?
		test $status -ne 0 || { echo "kill $n: gc exited 0"; exit 1; }
		(cd work/home && hearth fsck) >fsck.out 2>&1 && grep -q "no problems" fsck.out ||
		    { echo "kill $n: fsck"; cat fsck.out; exit 1; }
		every_version work/home versions.now && test_cmp versions.before versions.now ||
		    { echo "kill $n: a version changed"; exit 1; }
		(cd work/home && hearth gc >/dev/null) && packs_listed work/home ||
		    { echo "kill $n: the next gc"; exit 1; }
		test "$(ls work/home/.hearth/packs | wc -l)" = 1 || { echo "kill $n"; exit 1; }
		n=$((n + 3 * STRIDE_SCALE))
	done
'

for mode in group none; do
	if [ $mode = group ]; then stride=3; else stride=6; fi
	test_expect_success "durability $mode: power lost at every ${stride}th call of gc, every version kept" '
		rm -rf template.'$mode' && cp -a template template.'$mode' &&
		set_durability template.'$mode' '$mode' &&
		TEMPLATE=template.'$mode' POWERLOSS_STRIDE=$(('$stride' * STRIDE_SCALE)) \
		    powerloss_walk client '$mode' &&
		every_version work/home versions.now && test_cmp versions.before versions.now
	'
done

cat walk.summary 2>/dev/null | sed "s/^/# /"
test_done
