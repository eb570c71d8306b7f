#!/bin/sh
test_description='the app outside any Home: make one here, or open the demo'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"
. "$HEARTH_SOURCE_DIR/tests/lib/app-lib.sh"

test_expect_success 'outside a Home the app says so and offers i, d, q' '
	mkdir plain &&
	cd plain &&
	app_start &&
	app_wait "No Home here" &&
	app_screen >../welcome &&
	grep "make this folder a Home" ../welcome &&
	grep "open a demo Home" ../welcome &&
	app_quit
'

test_expect_success 'i makes the current folder a Home after asking' '
	cd plain &&
	printf "hello\n" >hello.txt &&
	app_start &&
	app_wait "No Home here" &&
	app_keys i &&
	app_wait "Make a Home" &&
	app_keys y &&
	app_wait "1 History" &&
	app_keys 3 &&
	app_wait "hello.txt" &&
	app_keys r &&
	app_wait "Record every change" &&
	app_type "hello from the app" &&
	app_keys Enter &&
	app_wait "Recorded" 20 &&
	app_quit &&
	hearth log >log &&
	grep "hello from the app" log
'

test_expect_success 'd builds the demo Home under TMPDIR and opens it' '
	mkdir -p elsewhere tmp &&
	cd elsewhere &&
	app_start TMPDIR=$TEST_ROOT/tmp &&
	app_wait "No Home here" &&
	app_keys d &&
	app_wait "Switch to vim" 30 &&
	app_keys 2 &&
	app_wait "notes/todo.txt" &&
	app_wait "notes/ideas.md" &&
	app_wait "Documents/plan" &&
	app_quit &&
	test -d "$TEST_ROOT/tmp/hearth-demo-$(id -u)/home" &&
	test -d "$TEST_ROOT/tmp/hearth-demo-$(id -u)/laptop/.hearth" &&
	cd "$TEST_ROOT/tmp/hearth-demo-$(id -u)/home" &&
	hearth log >log &&
	grep "Start keeping my Home" log &&
	hearth conflicts --porcelain >conflicts &&
	grep "^c.* content notes/todo.txt$" conflicts &&
	grep "^m.* move notes/ideas.md$" conflicts &&
	grep "^n.* name Documents/plan~.*\.txt$" conflicts
'

test_done
