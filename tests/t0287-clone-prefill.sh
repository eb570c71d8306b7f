#!/bin/sh
test_description='a clone into an empty folder, and a sync that checks out, write each big file as its bytes arrive: the bytes, holes, mode and time of its source, and no prefilled file left behind'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"
. "$HEARTH_SOURCE_DIR/tests/lib/replicas.sh"

# Files of several chunks each (CHUNK_MIN is 256 KiB): numbered lines,
# random bytes under three modes, a sparse image, the same text at two
# paths (one blob), and a file with an older version the clone also
# receives. A small file goes the usual way.
test_expect_success 'setup: a Home of big files' '
	hearth init a >/dev/null && mkdir -p a/docs a/bin &&
	seq 1 400000 >a/docs/lines.txt && cp a/docs/lines.txt a/docs/copy.txt &&
	head -c 2500000 /dev/urandom >a/bin/tool && chmod 755 a/bin/tool &&
	head -c 2000000 /dev/urandom >a/bin/private && chmod 600 a/bin/private &&
	head -c 1500000 /dev/urandom >a/bin/group && chmod 640 a/bin/group &&
	truncate -s 6000000 a/disk.img &&
	head -c 1200000 /dev/urandom | dd of=a/disk.img bs=4096 seek=512 conv=notrunc 2>/dev/null &&
	head -c 2000000 /dev/urandom >a/changed.bin && echo small >a/small.txt &&
	touch -d "2001-02-03 04:05:06" a/bin/tool &&
	(cd a && hearth record -m first >/dev/null) &&
	head -c 2000000 /dev/urandom >a/changed.bin && (cd a && hearth record -m second >/dev/null)
'

test_expect_success 'clone: each big blob written as it arrived, once; the trees the same' '
	hearth clone a b >out && cat out &&
	grep "8 files written (6 as their bytes arrived)" out &&
	same_trees a b
'

test_expect_success 'the prefilled files have their modes, times and holes' '
	for file in docs/lines.txt docs/copy.txt bin/tool bin/private bin/group disk.img changed.bin; do
		test "$(stat -c "%a %Y %s" a/$file)" = "$(stat -c "%a %Y %s" b/$file)" ||
			{ echo "$file differs: $(stat -c "%a %Y %s" a/$file b/$file)"; return 1; }
	done &&
	blocks=$(stat -c %b b/disk.img) && block=$(stat -c %B b/disk.img) &&
	test $((blocks * block)) -lt 3000000
'

test_expect_success 'the clone is a clean Home, with nothing left in staging' '
	(cd b && hearth status --porcelain) >status && ! grep -v "^#" status &&
	(cd b && hearth fsck >/dev/null) &&
	ls -A b/.hearth/staging >staged && test_cmp /dev/null staged
'

test_expect_success 'a clone into a folder that holds files writes from its packs, as any checkout' '
	mkdir c && echo mine >c/mine.txt &&
	hearth clone a c >out && cat out && ! grep "arrived" out &&
	test "$(cat c/mine.txt)" = mine && cmp a/bin/tool c/bin/tool && cmp a/disk.img c/disk.img &&
	ls -A c/.hearth/staging >staged && test_cmp /dev/null staged
'

test_expect_success 'a prefilled file a killed clone left is cleared by the next checkout' '
	stale=b/.hearth/staging/$(printf "%064d" 7).prefill &&
	echo stale >"$stale" &&
	(cd b && hearth checkout >/dev/null) &&
	test ! -e "$stale"
'

test_expect_success 'over ssh, into a joined replica of durability full, the same' '
	printf "roots:\n  - name: home\n    path: %s/d\nstate: %s/d-state\ndurability: full\n" \
	    "$TEST_ROOT" "$TEST_ROOT" >d.yaml &&
	HEARTH_SSH="sh $HEARTH_SOURCE_DIR/tests/lib/fake-ssh" HEARTH_REMOTE_COMMAND=$HEARTH_BIN \
	    hearth -c d.yaml clone "ssh://here$TEST_ROOT/a" >out && cat out &&
	grep "6 as their bytes arrived" out && same_trees a d &&
	hearth -c d.yaml status >out && grep "Nothing changed" out
'

# notes.txt is one chunk (no cut point in its 1.3 MB), film.mp4 two.
test_expect_success 'a joined clone: big files of both roots prefilled in the first, each placed in its own root' '
	for name in j k; do
		printf "roots:\n  - name: ssd\n    path: %s/%s-ssd\n  - name: hdd\n    path: %s/%s-hdd\nstate: %s/%s-state\n" \
		    "$TEST_ROOT" $name "$TEST_ROOT" $name "$TEST_ROOT" $name >$name.yaml || return 1
	done &&
	hearth -c j.yaml init >/dev/null && mkdir -p j-ssd/Docs j-hdd/Videos &&
	seq 1 200000 >j-ssd/Docs/notes.txt && head -c 1500000 /dev/urandom >j-hdd/Videos/film.mp4 &&
	hearth -c j.yaml record -m first >/dev/null &&
	hearth -c k.yaml clone "$TEST_ROOT/j.yaml" >out && cat out && grep "2 as their bytes arrived" out &&
	cmp j-ssd/Docs/notes.txt k-ssd/Docs/notes.txt && cmp j-hdd/Videos/film.mp4 k-hdd/Videos/film.mp4 &&
	test ! -e k-ssd/Videos/film.mp4 &&
	ls -A k-ssd/.hearth/staging k-hdd/.hearth/staging >staged && ! grep prefill staged &&
	hearth -c k.yaml status >out && grep "Nothing changed" out
'

# b is a's clone: a sync that checks out writes what it brings the same
# way. A new file's chunks all travel; of an edited big file only the
# changed chunk does, so the checkout writes it from the pack as before.
test_expect_success 'sync --checkout: the big files it brings written as they arrive' '
	head -c 1800000 /dev/urandom >a/bin/new.bin && chmod 700 a/bin/new.bin &&
	echo "one more line" >>a/docs/lines.txt && echo "small, edited" >a/small.txt &&
	(cd a && hearth record -m more >/dev/null) &&
	(cd b && hearth sync --checkout ../a) >out && cat out &&
	grep "3 written (1 as its bytes arrived)" out &&
	same_trees a b && test "$(stat -c %a b/bin/new.bin)" = 700 &&
	ls -A b/.hearth/staging >staged && test_cmp /dev/null staged &&
	(cd b && hearth status --porcelain) >status && ! grep -v "^#" status
'

test_expect_success 'a sync that does not check out writes nothing ahead' '
	head -c 1800000 /dev/urandom >a/bin/new.bin && (cd a && hearth record -m again >/dev/null) &&
	(cd b && hearth sync ../a) >out && cat out &&
	ls -A b/.hearth/staging >staged && test_cmp /dev/null staged &&
	(cd b && hearth checkout) >out && cat out && ! grep arrived out && cmp a/bin/new.bin b/bin/new.bin
'

test_expect_success 'a checkout the guard on emptying stops leaves no prefilled file behind' '
	head -c 1800000 /dev/urandom >a/big-last.bin &&
	(cd a && rm -r docs bin disk.img changed.bin && hearth record --yes -m "most gone" >/dev/null) &&
	(cd b && test_expect_code 1 hearth sync --checkout ../a) >out 2>err && cat out err &&
	grep -i "yes" out err && test -f b/docs/lines.txt && test ! -e b/big-last.bin &&
	ls -A b/.hearth/staging >staged && test_cmp /dev/null staged &&
	(cd b && hearth sync --checkout --yes ../a) >out && cat out && cmp a/big-last.bin b/big-last.bin
'

test_done
