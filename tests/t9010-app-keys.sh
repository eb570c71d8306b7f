#!/bin/sh
test_description='the app: keys rebound in the config (keys:) act, and ?, the hint line and --dump-actions show the bindings in force'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"
. "$HEARTH_SOURCE_DIR/tests/lib/app-lib.sh"

test_expect_success 'a Home whose config rebinds record to R and quit to q and Ctrl-x' '
	hearth init home >/dev/null &&
	cd home &&
	echo one >notes.txt && hearth record -m first >/dev/null &&
	echo two >notes.txt &&
	printf "keys:\n  record: R\n  quit: [q, Ctrl-x]\n" >>.hearth/config.yaml &&
	hearth config check >check &&
	grep "^keys:$" check &&
	grep "^  \"record\": \\[\"R\"\\]$" check
'

test_expect_success '--dump-actions in the Home shows the bindings in force, outside it the defaults' '
	(cd home && hearth --dump-actions) >in-home &&
	grep -E "^R +record +" in-home &&
	grep -E "^q Ctrl-x +quit +" in-home &&
	! grep -E "^R F5 +refresh" in-home &&
	grep -E "^F5 +refresh +" in-home &&
	hearth --dump-actions >outside &&
	grep -E "^r +record +" outside &&
	grep -E "^R F5 +refresh +" outside
'

test_expect_success 'in the app, R records, r does nothing, the hint line and ? say so' '
	cd home &&
	APP_HEIGHT=110 &&
	app_start &&
	app_wait "first" &&
	app_keys 3 &&
	app_wait "notes.txt" &&
	app_wait "R record" &&
	app_keys r &&
	app_wait "r does nothing here" &&
	app_keys R &&
	app_wait "Record every change" &&
	app_type "with R" &&
	app_keys Enter &&
	app_wait "Recorded" 20 &&
	app_keys "?" &&
	app_wait "Help: every key binding" &&
	app_screen >../help &&
	grep -E "^ +R +record +Record the marked" ../help &&
	grep -E "^ +q Ctrl-x +quit " ../help &&
	app_keys "?" &&
	app_wait_gone "Help: every key binding" &&
	app_keys C-x &&
	app_wait "app-exit=0" &&
	hearth log --oneline -n 1 | grep "with R$"
'

test_expect_success 'an unknown action in keys: the app does not start, and says where and what' '
	cd home &&
	printf "  recrod: x\n" >>.hearth/config.yaml &&
	test_expect_code 1 hearth config check 2>err &&
	grep "config.yaml:[0-9]*:3: keys: unknown action .recrod.; did you mean .record.?" err &&
	app_start &&
	app_wait "did you mean" &&
	app_wait "app-exit=1" &&
	app_screen -J | grep "config.yaml:[0-9]*:3: keys: unknown action .recrod."
'

test_expect_success 'a key the app does not know, and a list of no keys, are refused' '
	cd home &&
	sed -i "/recrod/d" .hearth/config.yaml &&
	printf "  sync: Ctlr-s\n" >>.hearth/config.yaml &&
	test_expect_code 1 hearth config check 2>err &&
	grep "keys: .Ctlr-s. for sync is not a key" err &&
	sed -i "/Ctlr-s/d" .hearth/config.yaml &&
	printf "  sync: []\n" >>.hearth/config.yaml &&
	test_expect_code 1 hearth config check 2>err &&
	grep "give .sync. at least one key" err
'

test_expect_success 'R reloads the keys: a binding removed from the config is gone, a bad one keeps those in force' '
	cd home &&
	sed -i "/^keys:\$/,\$d" .hearth/config.yaml &&
	printf "keys:\n  record: R\n" >>.hearth/config.yaml &&
	echo three >notes.txt &&
	app_start &&
	app_wait "first" &&
	app_keys 3 &&
	app_wait "R record" &&
	printf "  sync: Ctlr-s\n" >>.hearth/config.yaml &&
	app_keys F5 &&
	app_wait "Cannot read the config again" &&
	app_wait "Reload failed" &&
	app_screen >../failed &&
	! grep "Reloading" ../failed &&
	app_keys Escape &&
	app_wait_gone "Cannot read the config again" &&
	app_wait "R record" &&
	sed -i "/^keys:\$/,\$d" .hearth/config.yaml &&
	app_keys F5 &&
	app_wait "r record" &&
	app_screen >../reloaded &&
	! grep "R record" ../reloaded &&
	app_keys r &&
	app_wait "Record every change" &&
	app_keys Escape &&
	app_wait_gone "Record every change" &&
	app_quit
'

test_done
