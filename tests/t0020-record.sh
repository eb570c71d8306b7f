#!/bin/sh
test_description='record keeps bytes, modes, links, empty folders and odd names'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"

hearth init home >/dev/null
cd home

test_expect_success 'nothing to record in an empty Home' '
	hearth record -m nothing >../out &&
	grep "Nothing to record" ../out &&
	hearth log >../out && grep "No versions yet" ../out
'

test_expect_success 'a first record stores files, folders, links and empty files' '
	mkdir -p docs/empty-folder src &&
	printf "hello\n" >docs/hello.txt &&
	: >empty &&
	head -c 70000 /dev/urandom >binary.bin &&
	printf "#!/bin/sh\necho hi\n" >src/run.sh && chmod 755 src/run.sh &&
	ln -s docs/hello.txt link &&
	ln -s does/not/exist dangling &&
	hearth record -m "first version" >../out &&
	grep "^Recorded" ../out &&
	hearth status --porcelain >../status &&
	! grep -v "^#" ../status
'

test_expect_success 'the recorded tree lists every entry' '
	hearth ls >../top &&
	printf "binary.bin\ndangling\ndocs/\nempty\nlink\nsrc/\n" >../expected &&
	test_cmp ../expected ../top &&
	hearth ls docs >../docs &&
	printf "empty-folder/\nhello.txt\n" >../expected &&
	test_cmp ../expected ../docs
'

test_expect_success 'bytes come back exactly, links as their targets' '
	hearth show --cat head binary.bin >../got && cmp ../got binary.bin &&
	hearth show --cat head empty >../got && test ! -s ../got &&
	hearth export head ../exported &&
	test "$(readlink ../exported/link)" = docs/hello.txt &&
	test "$(readlink ../exported/dangling)" = does/not/exist &&
	test_expect_code 2 hearth show --cat head link 2>../err &&
	grep "link is a symbolic link, not a file" ../err
'

test_expect_success 'the exec bit is recorded' '
	hearth ls -l src >../out &&
	grep "^- 0755 .* run.sh" ../out
'

test_expect_success 'a change of mode alone is a modification' '
	chmod 700 src/run.sh &&
	hearth status --porcelain >../out &&
	grep "^M src/run.sh" ../out &&
	hearth record -m "private" >/dev/null &&
	hearth ls -l src >../out && grep "^- 0700 .* run.sh" ../out
'

test_expect_success 'a rename is recorded as a move, not a delete and an add' '
	mv docs/hello.txt docs/greeting.txt &&
	hearth status --porcelain >../out &&
	grep "^R docs/hello.txt -> docs/greeting.txt" ../out &&
	hearth record -m rename >../out &&
	grep "R docs/hello.txt -> docs/greeting.txt" ../out
'

test_expect_success 'a move to another folder is a move' '
	mv docs/greeting.txt src/ &&
	hearth status --porcelain >../out &&
	grep "^R docs/greeting.txt -> src/greeting.txt" ../out &&
	hearth record -m move >/dev/null
'

test_expect_success 'a moved folder keeps its contents without new ops for them' '
	mkdir -p tree/inner && echo a >tree/inner/a && echo b >tree/b &&
	hearth record -m tree >/dev/null &&
	mv tree moved-tree &&
	hearth status --porcelain >../out &&
	grep "^R tree -> moved-tree" ../out &&
	test $(grep -vc "^#" ../out) = 1 &&
	hearth record -m "move folder" >/dev/null &&
	hearth show --cat head moved-tree/inner/a >../got && echo a >../expected && test_cmp ../expected ../got
'

test_expect_success 'a folder moved below a folder that sorts after it keeps its contents' '
	mkdir -p early/sub && echo e >early/sub/file && mkdir -p zzz/inner &&
	hearth record -m "early and zzz" >/dev/null &&
	mv early zzz/inner/early &&
	hearth status --porcelain >../out &&
	grep "^R early -> zzz/inner/early" ../out &&
	test $(grep -vc "^#" ../out) = 1
'

test_expect_success 'a file replaced by a folder of the same name' '
	echo plain >thing && hearth record -m thing >/dev/null &&
	rm thing && mkdir thing && echo inside >thing/file &&
	hearth record -m "now a folder" >/dev/null &&
	hearth ls thing >../out && echo file >../expected && test_cmp ../expected ../out &&
	hearth show --cat head~1 thing >../got && echo plain >../expected && test_cmp ../expected ../got
'

test_expect_success 'record PATH records only that path' '
	echo one >one && echo two >two &&
	hearth record -m "just one" one >/dev/null &&
	hearth status --porcelain >../out &&
	grep "^A two" ../out && ! grep "^A one" ../out
'

test_expect_success 'record PATH inside a new folder records the folder too' '
	mkdir -p fresh/deep && echo x >fresh/deep/x && echo y >fresh/y &&
	hearth record -m deep fresh/deep/x >/dev/null &&
	hearth ls fresh >../out && grep "deep/" ../out && ! grep "^y" ../out
'

test_expect_success 'ignored paths and .hearth are never recorded' '
	echo swap >note.swp && mkdir -p .cache && echo c >.cache/c &&
	hearth status --porcelain >../out &&
	! grep "note.swp" ../out && ! grep ".cache" ../out && ! grep ".hearth" ../out
'

test_expect_success 'a path outside the Home is refused' '
	test_expect_code 2 hearth record -m x /etc/passwd 2>../err &&
	grep "outside the Home" ../err
'

test_expect_success 'deleting a folder deletes what it held' '
	hearth record -m "all" >/dev/null &&
	rm -r moved-tree &&
	hearth status --porcelain >../out &&
	grep "^D moved-tree/inner/a" ../out && grep "^D moved-tree$" ../out &&
	hearth record -m "gone" >/dev/null &&
	test_expect_code 2 hearth show --cat head moved-tree/b 2>../err
'

# Each edit of a text file stored the whole file again: 10 one-line edits
# of 600 KiB of text (three chunks) cost ten compressed copies. They are
# deltas against the node's previous content now, and every version reads.
test_expect_success 'an edit of a big text file is stored as a delta against its previous version' '
	seq 1 80000 | sed "s/^/line /" >long.txt && hearth record -m long >/dev/null &&
	hearth stats >../stats.before &&
	before=$(sed -n "s/^pack bytes  *\([0-9]*\) .*/\1/p" ../stats.before) &&
	for i in 1 2 3 4 5 6 7 8 9 10; do
		sed -i "$((i * 7000))s/.*/edited $i/" long.txt &&
		cp long.txt ../long.$i && hearth record -m "edit $i" long.txt >/dev/null || exit 1
	done &&
	hearth stats >../stats.after &&
	after=$(sed -n "s/^pack bytes  *\([0-9]*\) .*/\1/p" ../stats.after) &&
	echo "pack bytes $before then $after" &&
	test $((after - before)) -lt 16384 &&
	grep "^delta chains  *10 longest" ../stats.after &&
	for i in 1 2 3 4 5 6 7 8 9 10; do
		hearth show --cat "head~$((10 - i))" long.txt >../long.read &&
		cmp ../long.read ../long.$i || exit 1
	done &&
	hearth fsck >../out && grep "no problems" ../out
'

test_expect_success 'fsck finds the store clean' '
	hearth fsck >../out &&
	grep "no problems" ../out
'

test_done
