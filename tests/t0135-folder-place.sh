#!/bin/sh
test_description='a folder at a path the index holds need not be the folder it names there'
# A record or status joins each folder on disk with the index row of its
# path; a folder moved away and another made (or moved) in its place is
# not the old one. The oracle's seed 1047 (t0340) found it: `mv d e;
# mkdir d; echo z >d/z` recorded e/z and no d.
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"
. "$HEARTH_SOURCE_DIR/tests/lib/manifest.sh"
. "$HEARTH_SOURCE_DIR/tests/lib/watch-lib.sh"

# start HOME: d/y and f/g recorded.
start() {
	hearth init "$1" >/dev/null && mkdir "$1/d" "$1/f" && echo y >"$1/d/y" &&
	echo g >"$1/f/g" && (cd "$1" && hearth record -m start >/dev/null)
}

test_expect_success 'a folder made where one was moved away is a new folder' '
	start one &&
	mv one/d one/e && mkdir one/d && echo z >one/d/z &&
	(cd one && hearth status --porcelain) >st &&
	grep "^R d -> e\$" st && grep "^A d/z\$" st && ! grep "^D " st &&
	(cd one && hearth record -m made) >out &&
	grep "^ R d -> e\$" out && grep "^ A d/z\$" out && ! grep "^ D" out &&
	model_is_tree one &&
	(cd one && hearth show --cat head d/z && hearth show --cat head e/y) >cat &&
	printf "z\ny\n" >want && test_cmp want cat
'

test_expect_success 'two folders that swap places are two moves' '
	start two && echo y2 >two/d/y2 && (cd two && hearth record -m y2 >/dev/null) &&
	mv two/d two/tmp && mv two/f two/d && mv two/tmp two/f &&
	(cd two && hearth status --porcelain) >st &&
	grep "^R d -> f\$" st && grep "^R f -> d\$" st && ! grep "^[AD] " st &&
	(cd two && hearth record -m swap >/dev/null) &&
	model_is_tree two && test "$(cd two && hearth show --cat head d/g)" = g
'

test_expect_success 'a folder moved into the place of one moved away' '
	start three &&
	mv three/d three/e && mv three/f three/d &&
	(cd three && hearth status --porcelain) >st &&
	grep "^R d -> e\$" st && grep "^R f -> d\$" st && ! grep "^[AD] " st &&
	(cd three && hearth record -m moves >/dev/null) &&
	model_is_tree three
'

test_expect_success 'a folder removed and made again at its path keeps its id' '
	start four &&
	before=$(cd four && hearth ls --tree -i | awk "\$2 == \"d/\" { print \$1 }") &&
	rm -rf four/d && mkdir four/d && echo z >four/d/z &&
	(cd four && hearth record -m again >/dev/null) &&
	model_is_tree four &&
	test "$(cd four && hearth ls --tree -i | awk "\$2 == \"d/\" { print \$1 }")" = "$before"
'

test_expect_success 'the same from a watched index' '
	start five && printf "poll_interval: 500ms\n" >>five/.hearth/config.yaml &&
	(cd five && watch_start five) && watch_wait five "^current" &&
	mv five/d five/e && mkdir five/d && echo z >five/d/z &&
	(cd five && status_from_watch ../five.human) &&
	(cd five && hearth status --porcelain) >st &&
	grep "^R d -> e\$" st && grep "^A d/z\$" st && ! grep "^D " st &&
	(cd five && hearth record -m made >/dev/null) &&
	watch_stop five && model_is_tree five
'

test_done
