#!/bin/sh
test_description='checkout goes back in time and never destroys unrecorded data'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"

hearth init home >/dev/null
cd home

test_expect_success 'three versions to travel between' '
	mkdir docs && echo one >docs/a && echo keep >b &&
	hearth record -m v1 >/dev/null &&
	echo two >docs/a && mv b c && echo new >d &&
	hearth record -m v2 >/dev/null &&
	rm -r docs && echo three >d &&
	hearth record -m v3 >/dev/null &&
	hearth log --oneline >../log && test $(wc -l <../log) = 3
'

test_expect_success 'checkout of the first version brings its tree back' '
	hearth checkout head~2 >../out &&
	grep "^At version" ../out &&
	echo one >../expected && test_cmp ../expected docs/a &&
	echo keep >../expected && test_cmp ../expected b &&
	test ! -e c && test ! -e d
'

test_expect_success 'status says which version the tree is at and that head is ahead' '
	hearth status >../out &&
	grep "; head is " ../out && grep "^Head has [1-9][0-9]* changes the working tree lacks" ../out &&
	grep "restore" ../out &&
	hearth status --porcelain >../out &&
	v1=$(hearth log --oneline | tail -1 | cut -d" " -f1) &&
	grep "^# tree $v1" ../out
'

test_expect_success 'checkout with no version goes back to head' '
	hearth checkout >/dev/null &&
	echo three >../expected && test_cmp ../expected d &&
	echo keep >../expected && test_cmp ../expected c &&
	test ! -e docs && test ! -e b &&
	hearth status >../out && grep "(head)" ../out && grep "Nothing changed" ../out
'

test_expect_success 'checkout refuses to overwrite an unrecorded change and names it' '
	echo precious >d &&
	test_expect_code 1 hearth checkout head~1 2>../err &&
	grep "not recorded" ../err && grep " d$" ../err &&
	echo precious >../expected && test_cmp ../expected d
'

test_expect_success 'a new file where the version has a file is refused too' '
	hearth checkout head~2 2>/dev/null || true &&
	echo mine >b.new && mv b.new b 2>/dev/null;
	echo precious >../expected && test_cmp ../expected d
'

test_expect_success 'checkout --force records the change first, then checks out' '
	rm -f b &&
	hearth checkout --force head~2 >../out &&
	grep "Recorded the unrecorded changes" ../out &&
	echo one >../expected && test_cmp ../expected docs/a &&
	hearth show --cat head d >../got && echo precious >../expected && test_cmp ../expected ../got
'

test_expect_success 'a record after checking out an old version restores it as the new head' '
	hearth record -m "restore v1" >../out &&
	hearth status >../out && grep "(head)" ../out &&
	hearth ls >../top && printf "b\ndocs/\n" >../expected && test_cmp ../expected ../top &&
	hearth show --cat head docs/a >../got && echo one >../expected && test_cmp ../expected ../got
'

test_expect_success 'unrelated unrecorded changes survive a checkout' '
	echo mine >mine.txt &&
	hearth checkout head~1 >/dev/null &&
	echo mine >../expected && test_cmp ../expected mine.txt &&
	hearth checkout >/dev/null && test -e mine.txt
'

test_expect_success 'a deleted file comes back with checkout, nothing is lost' '
	rm docs/a &&
	hearth checkout >/dev/null &&
	echo one >../expected && test_cmp ../expected docs/a
'

test_expect_success 'export writes a version into a new folder' '
	hearth export head~3 ../exported &&
	echo two >../expected && test_cmp ../expected ../exported/docs/a &&
	echo keep >../expected && test_cmp ../expected ../exported/c
'

test_expect_success 'export refuses a folder that is not empty or is inside the Home, and leaves none' '
	test_expect_code 2 hearth export head ../exported 2>../err && grep "not empty" ../err &&
	test_expect_code 2 hearth export head inside 2>../err && grep "inside the Home" ../err &&
	! test -e inside && hearth status >../out && ! grep inside ../out &&
	test_expect_code 2 hearth export no-such-version ../refused 2>../err && ! test -e ../refused
'

test_expect_success 'an export carries no node ids: it is not a Home' '
	touch ../probe && setfattr -n user.hearth.test -v 1 ../probe 2>/dev/null || exit 0
	hearth export head ../unstamped &&
	test_must_fail getfattr -n user.hearth.id ../unstamped/docs/a 2>/dev/null &&
	getfattr -n user.hearth.id docs/a >/dev/null
'

# Small files over several pack frames at two depths: record stores them
# in path order (a/deep/*, a/part.*, b/deep/*, ...), so writing by depth
# would read every frame twice; export and checkout write them as the
# packs hold them, each frame read and decompressed once.
test_expect_success 'export and checkout read each pack frame once' '
	hearth init ../many >/dev/null &&
	for folder in a b c d e f g h i j k l m n o p; do
		mkdir -p ../many/$folder/deep &&
		head -c 40000 /dev/urandom | (cd ../many/$folder && split -b 1000 -a 2 - part.) &&
		head -c 40000 /dev/urandom | (cd ../many/$folder/deep && split -b 1000 -a 2 - part.) ||
			return 1
	done &&
	(cd ../many && hearth record -m many >/dev/null) &&
	test_tool frames-read ../many export ../many-out >../frames &&
	read -r _ loaded _ _ held <../frames && test "$held" -ge 4 && test "$loaded" -le "$held" &&
	diff -r ../many/a ../many-out/a && diff -r ../many/p ../many-out/p &&
	rm -r ../many/b ../many/c/deep &&
	test_tool frames-read ../many checkout >../frames &&
	read -r _ loaded _ _ held <../frames && test "$loaded" -le "$held" &&
	diff -r ../many/b ../many-out/b && diff -r ../many/c ../many-out/c
'

# Unless durability is none a checkout or an export flushes what it wrote
# at its end; the kernel would start writing a big file back only past
# its dirty threshold, so the flush waited for every byte of it. They
# hand a big file's pages to the disk every 8 MiB as they write it: a
# start-writeback hint ("h") in the write-class calls HEARTH_FAULT=count
# lists, none where nothing is flushed.
hints() { sed -n "s/.*write-class calls: //p" "$1" | tr -cd h | wc -c; }

test_expect_success 'a big file written out goes to the disk as it is written, unless nothing is flushed' '
	head -c 40000000 /dev/urandom >big && hearth record -m big >/dev/null &&
	rm big && HEARTH_FAULT=count hearth checkout 2>../count.err >/dev/null &&
	test "$(hints ../count.err)" -ge 4 && test -s big &&
	HEARTH_FAULT=count hearth export head ../big.export 2>../export.err >/dev/null &&
	test "$(hints ../export.err)" -ge 4 && cmp big ../big.export/big &&
	cp .hearth/config.yaml ../config.saved &&
	test_when_finished "cp ../config.saved .hearth/config.yaml" &&
	echo "durability: none" >>.hearth/config.yaml &&
	rm big && HEARTH_FAULT=count hearth checkout 2>../none.err >/dev/null &&
	test "$(hints ../none.err)" -eq 0 && cmp big ../big.export/big &&
	rm -r ../big.export
'

test_expect_success 'fsck is clean after all of it' '
	hearth fsck >../out && grep "no problems" ../out
'

test_done
