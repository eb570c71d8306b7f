#!/bin/sh
test_description='layouts that cannot work are refused; a Home never records another Home'"'"'s store'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"

# joined_config FILE STATE ROOT...: a joined Home's config, roots r1, r2...
joined_config() {
	file=$1 state=$2
	shift 2
	echo "roots:" >"$file"
	number=1
	for root in "$@"; do
		printf '  - name: r%s\n    path: %s\n' $number "$root" >>"$file"
		number=$((number + 1))
	done
	echo "state: $state" >>"$file"
}

test_expect_success 'a state folder equal to a root is refused by config check and init' '
	joined_config same.yaml "$TEST_ROOT/same" "$TEST_ROOT/same" &&
	test_expect_code 1 hearth -c same.yaml config check 2>err &&
	grep "state folder .*same is root .r1." err &&
	test_expect_code 1 hearth -c same.yaml init 2>err &&
	grep "state folder .*same is root .r1." err &&
	test ! -e same
'

test_expect_success 'a state folder inside a root is refused, the root'"'"'s .hearth is not' '
	joined_config inside.yaml "$TEST_ROOT/in/sub/state" "$TEST_ROOT/in" &&
	test_expect_code 1 hearth -c inside.yaml config check 2>err &&
	grep "state folder .*in/sub/state is inside root .r1." err &&
	test_expect_code 1 hearth -c inside.yaml init 2>err && test ! -e in &&
	mkdir top && joined_config top.yaml "$TEST_ROOT/top/.hearth" "$TEST_ROOT/top" &&
	hearth -c top.yaml config check >/dev/null &&
	hearth -c top.yaml init >/dev/null && test -f top/.hearth/store.db
'

test_expect_success 'roots that coincide or nest are refused' '
	joined_config twice.yaml "$TEST_ROOT/s1" "$TEST_ROOT/d" "$TEST_ROOT/d/" &&
	test_expect_code 1 hearth -c twice.yaml config check 2>err &&
	grep "root .r2. has the same path as root .r1." err &&
	joined_config nest.yaml "$TEST_ROOT/s2" "$TEST_ROOT/d" "$TEST_ROOT/d/inner" &&
	test_expect_code 1 hearth -c nest.yaml config check 2>err &&
	grep "root .r2. .*d/inner) lies inside root .r1." err &&
	test_expect_code 1 hearth -c nest.yaml init 2>err && test ! -e s2 && test ! -e d
'

test_expect_success 'a root reached through a symlink is the folder it names' '
	mkdir real && ln -s real alias &&
	joined_config linked.yaml "$TEST_ROOT/s3" "$TEST_ROOT/real" "$TEST_ROOT/alias" &&
	test_expect_code 1 hearth -c linked.yaml config check 2>err &&
	grep "are one folder" err
'

test_expect_success 'init above a Home is refused and names the Home inside' '
	mkdir -p outer/projects && hearth init outer/projects/inner >/dev/null &&
	test_expect_code 1 hearth init outer 2>err &&
	grep "holds another Home.*projects/inner" err &&
	test ! -e outer/.hearth &&
	joined_config above.yaml "$TEST_ROOT/s4" "$TEST_ROOT/outer" &&
	test_expect_code 1 hearth -c above.yaml init 2>err &&
	grep "holds another Home.*projects/inner" err && test ! -e s4
'

test_expect_success 'setup: a Home, and another Home moved into it' '
	hearth init home >/dev/null && echo mine >home/mine.txt &&
	(cd home && hearth record -m first >/dev/null) &&
	hearth init other >/dev/null && echo theirs >other/theirs.txt &&
	(cd other && hearth record -m "other first" >/dev/null) &&
	mv other home/other
'

test_expect_success 'status leaves the inner Home'"'"'s state out and says so once' '
	(cd home && hearth status) >out 2>&1 &&
	test $(grep -c "other/.hearth: another Home.s state, left out" out) = 1 &&
	! grep "other/.hearth/" out && grep "other/theirs.txt" out
'

test_expect_success 'record leaves it out too, and the inner Home still works' '
	cp home/other/.hearth/store.db store.before &&
	(cd home && hearth record -m second) >out 2>&1 &&
	grep "other/.hearth: another Home.s state, left out" out &&
	(cd home && hearth ls head other) >ls.out && grep theirs.txt ls.out &&
	! grep "\.hearth" ls.out &&
	(cd home/other && hearth fsck >/dev/null && hearth log --oneline) >log.out &&
	grep "other first" log.out
'

test_expect_success 'a joined Home'"'"'s state folder moved into a Home is left out by its store' '
	joined_config moved.yaml "$TEST_ROOT/jstate" "$TEST_ROOT/jroot" &&
	hearth -c moved.yaml init >/dev/null && echo j >jroot/j.txt &&
	hearth -c moved.yaml record -m j >/dev/null &&
	mv jstate home/jstate &&
	(cd home && hearth status) >out 2>&1 &&
	grep "jstate: another Home.s state, left out" out && ! grep "store.db" out
'

test_expect_success 'a checkout never writes into an inner Home'"'"'s state' '
	hearth init h2 >/dev/null && mkdir -p h2/inner/.hearth/packs &&
	echo "not a store" >h2/inner/.hearth/store.db && echo x >h2/inner/.hearth/packs/p &&
	(cd h2 && hearth record -m "before the Home came" >/dev/null) &&
	old=$(cd h2 && hearth log --oneline | sed -n "1s/ .*//p") &&
	rm -r h2/inner && hearth init inner >/dev/null && echo i >inner/i.txt &&
	(cd inner && hearth record -m inner >/dev/null) && mv inner h2/inner &&
	cp h2/inner/.hearth/store.db inner.before &&
	(cd h2 && hearth record --yes -m "the Home came" >/dev/null &&
	 hearth checkout --yes "$old") >out 2>&1 &&
	cmp h2/inner/.hearth/store.db inner.before && test ! -e h2/inner/.hearth/packs/p &&
	(cd h2/inner && hearth fsck >/dev/null && hearth log --oneline) | grep inner
'

test_done
