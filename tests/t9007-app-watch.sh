#!/bin/sh
test_description='the app watches the Home: live marks as files change, a missing root on the status line'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"
. "$HEARTH_SOURCE_DIR/tests/lib/app-lib.sh"

cat >joined.yaml <<EOF
roots:
  - name: ssd
    path: $TEST_ROOT/ssd
  - name: hdd
    path: $TEST_ROOT/hdd
state: $TEST_ROOT/state
EOF

test_expect_success 'a joined Home with a version' '
	hearth -c joined.yaml init >/dev/null &&
	mkdir -p ssd/docs hdd/media &&
	printf "a\n" >ssd/docs/a.txt &&
	printf "b\n" >ssd/b.txt &&
	printf "m\n" >hdd/media/movie.mp4 &&
	touch -d "2020-01-01" ssd/docs/a.txt ssd/b.txt hdd/media/movie.mp4 &&
	hearth -c joined.yaml record -m "start" >/dev/null
'

test_expect_success 'the Home view shows each entry with its root and no marks' '
	cd ssd &&
	app_start &&
	app_wait "start" &&
	app_keys 3 &&
	app_wait "media/" &&
	app_wait "0 changed" 20 &&
	app_wait "watched" &&
	app_screen | grep -E "b\.txt +ssd" &&
	app_keys G Enter &&
	app_wait "movie.mp4" &&
	app_screen | grep -E "movie\.mp4 +hdd"
'

test_expect_success 'a file edited on disk gets its mark without a key pressed' '
	printf "b, edited\n" >"$TEST_ROOT/ssd/b.txt" &&
	app_wait "1 changed" 20 &&
	app_screen | grep -E "b\.txt .* M *$"
'

test_expect_success 'a new file shows up, marked as added; deleting it takes it away' '
	printf "new\n" >"$TEST_ROOT/ssd/new.txt" &&
	app_wait "new.txt" 20 &&
	app_wait "2 changed" 20 &&
	app_screen | grep -E "new\.txt +ssd .* A *$" &&
	rm "$TEST_ROOT/ssd/new.txt" &&
	app_wait_gone "new.txt" 20 &&
	app_wait "1 changed" 20
'

test_expect_success 'a root taken away: the status line says which and what to do' '
	mv "$TEST_ROOT/hdd" "$TEST_ROOT/hdd.away" &&
	app_wait "is missing: mount it, then press R" 20 &&
	app_screen | grep "Root .hdd. at .*/hdd is missing"
'

test_expect_success 'the root put back and R: the Home is whole and watched again' '
	mv "$TEST_ROOT/hdd.away" "$TEST_ROOT/hdd" &&
	app_keys R &&
	app_wait "Reloading" &&
	app_keys 3 &&
	app_wait_gone "is missing" 20 &&
	app_wait "1 changed" 20 &&
	app_wait "watched" &&
	app_quit
'

test_done
