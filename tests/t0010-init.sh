#!/bin/sh
test_description='init makes a Home; commands find it from anywhere inside'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"

test_expect_success 'version prints a version' '
	hearth version >out &&
	grep "^hearth [0-9]" out
'

test_expect_success 'an unknown command is a usage error' '
	test_expect_code 2 hearth no-such-command 2>err &&
	grep "not a command" err
'

test_expect_success 'outside any Home, commands say so' '
	mkdir nowhere && cd nowhere &&
	test_expect_code 1 hearth status 2>err &&
	grep "not in a Home" err
'

test_expect_success 'init makes a Home with its state inside' '
	hearth init home >out &&
	test -f home/.hearth/store.db &&
	test -f home/.hearth/root &&
	test -f home/.hearth/config.yaml &&
	grep "Made a Home" out
'

test_expect_success 'a second init of the same folder is refused' '
	test_expect_code 1 hearth init home 2>err &&
	grep "is a Home already" err
'

test_expect_success 'a Home inside a Home is refused' '
	mkdir home/inner &&
	test_expect_code 1 hearth init home/inner 2>err &&
	grep "inside the Home" err
'

test_expect_success 'commands find the Home from a folder below its top' '
	mkdir -p home/a/b && cd home/a/b &&
	hearth status >out &&
	grep "No versions yet" out
'

test_expect_success 'HEARTH_CONFIG and -c name the Home from outside' '
	HEARTH_CONFIG="$TEST_ROOT/home/.hearth/config.yaml" hearth status >out &&
	grep "No versions yet" out &&
	hearth -c "$TEST_ROOT/home/.hearth/config.yaml" status >out2 &&
	test_cmp out out2
'

test_expect_success 'a Home made by init keeps working when moved whole' '
	hearth init moved >/dev/null && echo x >moved/file && (cd moved && hearth record -m one >/dev/null) &&
	mv moved elsewhere &&
	(cd elsewhere && hearth status >../out) &&
	grep "Nothing changed" out
'

test_expect_success 'a missing root fails closed, changes nothing, and recovers' '
	printf "roots:\n  - name: disk\n    path: %s/disk\nstate: %s/state\n" \
		"$TEST_ROOT" "$TEST_ROOT" >joined.yaml &&
	hearth -c joined.yaml init >/dev/null &&
	echo data >disk/file && hearth -c joined.yaml record -m one >/dev/null &&
	mv disk unplugged &&
	test_expect_code 1 hearth -c joined.yaml status 2>err &&
	grep "root .disk. is missing" err && grep "nothing was changed" err &&
	test_expect_code 1 hearth -c joined.yaml record -m gone 2>err &&
	test ! -e disk &&
	hearth -c joined.yaml log --oneline >out && test $(wc -l <out) = 1 &&
	mv unplugged disk &&
	hearth -c joined.yaml status >out && grep "Nothing changed" out
'

test_expect_success 'a root holding another Home is refused' '
	printf "roots:\n  - name: disk\n    path: %s/elsewhere\nstate: %s/state2\n" \
		"$TEST_ROOT" "$TEST_ROOT" >foreign.yaml &&
	test_expect_code 1 hearth -c foreign.yaml init 2>err &&
	grep "already belongs to a Home" err
'

test_expect_success 'every command answers --help' '
	for command in init record status log show ls checkout export fsck demo config stats version help
	do
		hearth $command --help >out || return 1
		grep "^usage: hearth $command" out || return 1
	done
'

test_done
