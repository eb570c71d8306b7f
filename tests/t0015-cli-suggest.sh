#!/bin/sh
test_description='a mistyped command, option or peer gets the closest one offered; log --porcelain and -z are stable for scripts'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"

test_expect_success 'a Home with two versions and two peers' '
	hearth init home >/dev/null &&
	cd home &&
	printf "peers:\n  - {name: laptop, url: /nowhere/laptop}\n  - {name: usb, url: /nowhere/usb}\n" \
		>>.hearth/config.yaml &&
	echo one >file && hearth record -m one >/dev/null &&
	echo two >file &&
	hearth record -m "$(printf "two\tcolumns\nand a second line")" >/dev/null
'

test_expect_success 'a mistyped command: the closest command is offered, nothing runs' '
	cd home &&
	test_expect_code 2 hearth recrod -m x 2>err &&
	grep "^hearth: .recrod. is not a command; did you mean .hearth record.?$" err &&
	hearth log --porcelain >log && test "$(wc -l <log)" = 2 &&
	test_expect_code 2 hearth stauts 2>err &&
	grep "did you mean .hearth status.?" err &&
	test_expect_code 2 hearth help lgo 2>err &&
	grep "did you mean .hearth log.?" err
'

test_expect_success 'a word far from every command gets no guess' '
	cd home &&
	test_expect_code 2 hearth frobnicate 2>err &&
	grep "not a command. See .hearth help." err &&
	! grep "did you mean" err &&
	test_expect_code 2 hearth x 2>err &&
	! grep "did you mean" err
'

test_expect_success 'a mistyped option: the closest option of that command is offered' '
	cd home &&
	test_expect_code 2 hearth record --mesage x 2>err &&
	grep "^hearth: unknown option --mesage; did you mean --message?$" err &&
	grep "^usage: hearth record" err &&
	test_expect_code 2 hearth log --grpe=x 2>err &&
	grep "unknown option --grpe=x; did you mean --grep?" err &&
	test_expect_code 2 hearth sync --alll 2>err &&
	grep "did you mean --all?" err &&
	test_expect_code 2 hearth status --colour-scheme 2>err &&
	! grep "did you mean" err
'

test_expect_success 'a mistyped peer: the closest peer of the config is offered' '
	cd home &&
	test_expect_code 2 hearth sync lpatop 2>err &&
	grep "neither a peer in the config" err &&
	grep "^hearth: did you mean the peer laptop?$" err &&
	test_expect_code 2 hearth sync ubs 2>err &&
	grep "did you mean the peer usb?" err &&
	test_expect_code 2 hearth sync desktop-at-work 2>err &&
	! grep "did you mean" err
'

test_expect_success 'log --porcelain: a version a line, seven fields, newest first' '
	cd home &&
	hearth log --porcelain >got &&
	test "$(wc -l <got)" = 2 &&
	awk -F"\t" "NF != 7 { exit 1 }" got &&
	hearth log --oneline | cut -d" " -f1 >short &&
	cut -f1 got | cut -c1-8 >ids &&
	cut -c1-8 short | test_cmp - ids &&
	sed -n 1p got | cut -f7 >message &&
	printf "%s\n" "two\\tcolumns\\nand a second line" >expected &&
	test_cmp expected message &&
	sed -n 2p got | cut -f7 >second &&
	echo one | test_cmp - second &&
	hearth log -n 1 | sed -n "s/.*Changes: //p" >changes &&
	sed -n 1p got | cut -f5 | test_cmp changes - &&
	replica=$(sed -n 1p got | cut -f4) &&
	test "${#replica}" = 32 &&
	hearth log --porcelain -n 1 | cut -f2 | grep -x "[0-9][0-9]*"
'

test_expect_success 'log --porcelain -z: seven NUL-ended fields a version, nothing escaped' '
	cd home &&
	hearth log --porcelain -z >got &&
	test "$(tr -cd "\\000" <got | wc -c)" = 14 &&
	tr "\\000" "\\n" <got | sed -n 7,8p >message &&
	printf "two\tcolumns\nand a second line\n" >expected &&
	test_cmp expected message
'

test_expect_success 'log: -z goes with --porcelain, --porcelain not with --oneline' '
	cd home &&
	test_expect_code 2 hearth log -z 2>err &&
	grep "z goes with --porcelain" err &&
	test_expect_code 2 hearth log --porcelain --oneline 2>err &&
	grep "go alone" err
'

test_expect_success 'log --porcelain before the first version prints nothing' '
	hearth init empty >/dev/null &&
	(cd empty && hearth log --porcelain) >got &&
	test ! -s got
'

test_expect_success 'sync: an option after PEER is named as one, not taken for a second peer' '
	(cd home && test_expect_code 2 hearth sync ../empty --no-checkout) 2>err &&
	grep "options go before PEER" err &&
	(cd home && test_expect_code 2 hearth sync ../empty ../other) 2>err &&
	grep "sync needs one PEER" err
'

test_done
