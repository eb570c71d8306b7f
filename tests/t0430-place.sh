#!/bin/sh
test_description='files from other replicas go to the root their node names, else where place: rules say'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"

# A: roots ssd and hdd. B: roots fast and big (no root of A's names), with
# place: rules. C: roots named as A's, with a rule that must not matter.
joined_config() {
	name=$1 first=$2 second=$3
	shift 3
	{
		echo "roots:"
		echo "  - name: $first"
		echo "    path: $TEST_ROOT/$name-$first"
		echo "  - name: $second"
		echo "    path: $TEST_ROOT/$name-$second"
		echo "state: $TEST_ROOT/$name-state"
		if [ $# -gt 0 ]; then
			echo "place:"
			while [ $# -gt 1 ]; do
				echo "  - pattern: \"$1\""
				echo "    root: $2"
				shift 2
			done
		fi
	} >"$name.yaml"
}
joined_config a ssd hdd
joined_config b fast big "Videos/**" big "**/*.iso" big
joined_config c ssd hdd "Videos/**" ssd

in_a() { hearth -c "$TEST_ROOT/a.yaml" "$@"; }
in_b() { hearth -c "$TEST_ROOT/b.yaml" "$@"; }
in_c() { hearth -c "$TEST_ROOT/c.yaml" "$@"; }

test_expect_success 'replica A records files in both of its roots' '
	in_a init >/dev/null &&
	mkdir -p a-ssd/Docs a-ssd/Videos a-hdd/Videos a-hdd/Music &&
	echo doc >a-ssd/Docs/letter.txt &&
	echo small >a-ssd/Videos/small.mp4 &&
	echo film >a-hdd/Videos/film.mp4 &&
	echo song >a-hdd/Music/song.mp3 &&
	in_a record -m first >/dev/null
'

test_expect_success 'a joined replica is made with -c clone; no DIR goes with it' '
	test_expect_code 2 in_b clone "$TEST_ROOT/a.yaml" somewhere 2>err &&
	grep "no DIR" err &&
	in_b clone "$TEST_ROOT/a.yaml" >out && cat out &&
	in_c clone "$TEST_ROOT/a.yaml" >out && cat out
'

test_expect_success 'without roots of those names: the place: rules choose, else the first root' '
	test -f b-fast/Docs/letter.txt &&
	test -f b-big/Videos/small.mp4 &&
	test -f b-big/Videos/film.mp4 &&
	test -f b-fast/Music/song.mp3 &&
	test ! -e b-fast/Videos/film.mp4 && test ! -e b-big/Docs &&
	in_b ls --tree -l Videos >out && cat out && grep "big .*film.mp4" out &&
	in_b status >out && grep "Nothing changed" out
'

test_expect_success 'ls -l names the root a file lives in here, never one this Home lacks' '
	in_b ls -l Videos >out && cat out &&
	grep "big .*film.mp4" out && grep "big .*small.mp4" out &&
	in_b ls -l Music >out && cat out && grep "fast .*song.mp3" out &&
	in_b ls -l >out && cat out && grep "fast .*Docs/" out &&
	! grep -E " (ssd|hdd) " out &&
	in_b ls -l Videos >ls.default && in_b ls -l head Videos >ls.head &&
	test_cmp ls.default ls.head &&
	in_a ls -l Videos >out && grep "hdd .*film.mp4" out && grep "ssd .*small.mp4" out
'

test_expect_success 'with roots of those names: each file to its own root, rules or not' '
	test -f c-ssd/Docs/letter.txt &&
	test -f c-ssd/Videos/small.mp4 &&
	test -f c-hdd/Videos/film.mp4 &&
	test -f c-hdd/Music/song.mp3 &&
	in_c status >out && grep "Nothing changed" out
'

test_expect_success 'new files after a sync: rules again, and folders made where a file needs them' '
	mkdir -p a-ssd/Projects && echo image >a-ssd/Projects/disk.iso &&
	echo notes >a-ssd/Projects/notes.txt &&
	echo more >a-hdd/Videos/second.mp4 &&
	in_a record -m more >/dev/null &&
	in_b sync "$TEST_ROOT/a.yaml" >/dev/null && in_b checkout >/dev/null &&
	test -f b-big/Projects/disk.iso &&
	test -f b-fast/Projects/notes.txt &&
	test -f b-big/Videos/second.mp4 &&
	in_b status >out && grep "Nothing changed" out &&
	in_b ls -l head Projects >out && cat out &&
	grep "big .*disk.iso" out && grep "fast .*notes.txt" out &&
	in_b ls -l head~1 Videos >out && cat out &&
	grep "big .*film.mp4" out && ! grep second.mp4 out && ! grep -E " (ssd|hdd) " out
'

test_expect_success 'files made on B stay in the root they were made in' '
	mkdir -p b-big/Docs && echo mine >b-big/Docs/mine.txt &&
	in_b record -m mine >/dev/null &&
	in_b checkout >/dev/null &&
	test -f b-big/Docs/mine.txt && test ! -e b-fast/Docs/mine.txt &&
	in_b ls --tree -l Docs >out && grep "big .*mine.txt" out
'

test_expect_success 'a move between roots on A moves the file on C; B, lacking the roots, keeps it' '
	mkdir -p a-hdd/Docs && mv a-ssd/Docs/letter.txt a-hdd/Docs/letter.txt &&
	in_a record -m "to the big disk" >/dev/null &&
	in_c sync "$TEST_ROOT/a.yaml" >/dev/null && in_c checkout >/dev/null &&
	test -f c-hdd/Docs/letter.txt && test ! -e c-ssd/Docs/letter.txt &&
	in_c status >out && grep "Nothing changed" out &&
	in_b sync "$TEST_ROOT/a.yaml" >/dev/null && in_b checkout >/dev/null &&
	test -f b-fast/Docs/letter.txt &&
	in_b status >out && grep "Nothing changed" out
'

test_expect_success 'a place: rule naming no root of the Home is refused, naming it' '
	joined_config d one two "Videos/**" nowhere &&
	test_expect_code 1 hearth -c d.yaml config check 2>err && cat err &&
	grep "d.yaml:" err && grep "nowhere" err
'

test_done
