#!/bin/sh
test_description='the binary runs and reports its version'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"

test_expect_success 'version prints a version' '
	hearth version >out &&
	grep "^hearth [0-9]" out
'

test_expect_success 'an unknown command is a usage error' '
	test_expect_code 2 hearth no-such-command 2>err
'

test_done
