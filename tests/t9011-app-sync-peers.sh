#!/bin/sh
test_description='the app: the Sync view lists each replica once, shows peer names and addresses whole at 100 columns, and R reads new peers from the config'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"
. "$HEARTH_SOURCE_DIR/tests/lib/app-lib.sh"

test_expect_success 'b syncs with a by its path, then names it in the config' '
	hearth init a >/dev/null &&
	echo one >a/notes.txt && (cd a && hearth record -m base >/dev/null) &&
	hearth init b >/dev/null &&
	test_tool join-home b a &&
	(cd b && hearth sync ../a >/dev/null) &&
	(cd b && hearth peers --porcelain) >before &&
	test "$(wc -l <before)" = 1 &&
	printf "peers:\n  - name: laptop-at-work\n    url: %s\n  - name: desk\n    url: ssh://me@laptop/home/me/Home\n" \
	    "$TEST_ROOT/a" >>b/.hearth/config.yaml
'

test_expect_success 'hearth peers lists that replica once, under its name, with its last sync' '
	(cd b && hearth peers --porcelain) >peers &&
	test "$(wc -l <peers)" = 2 &&
	cut -f1 peers >names &&
	printf "laptop-at-work\ndesk\n" >expected &&
	test_cmp expected names &&
	(cd b && hearth peers) >human &&
	grep -A1 "^laptop-at-work " human | grep "last success: [0-9]"
'

test_expect_success 'the Sync view: one row a replica, names and addresses whole at 100 columns' '
	cd b &&
	APP_WIDTH=100 &&
	app_start &&
	app_wait "1 History" &&
	app_keys 4 &&
	app_wait "Last attempt" &&
	app_screen >../screen &&
	test "$(grep -c "^  [a-z]" ../screen)" -ge 2 &&
	grep -E "^  laptop-at-work +" ../screen &&
	grep -E "^  desk +.* ssh://me@laptop/home/me/Home *$" ../screen &&
	! grep -E "^  /" ../screen &&
	! grep -E "^  laptop-at-w?o?r?k?…" ../screen
'

test_expect_success 'R reads the config again: a peer added while the app runs shows' '
	printf "  - name: usb-disk\n    url: /media/usb/Home\n" >>"$TEST_ROOT/b/.hearth/config.yaml" &&
	app_keys R &&
	app_wait "usb-disk" &&
	app_screen | grep -E "^  usb-disk +.*/media/usb/Home *$" &&
	app_screen | grep "4 Sync" &&
	app_quit
'

test_done
