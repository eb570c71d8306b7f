#!/bin/sh
test_description='what the op format cannot hold is refused where the op is made, before anything is written'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"

# n bytes of "m".
bytes() { head -c "$1" /dev/zero | tr '\0' m; }

test_expect_success 'setup: a Home with one version and a change not yet recorded' '
	hearth init h >/dev/null &&
	echo one >h/one && (cd h && hearth record -m first >/dev/null) &&
	echo two >h/two &&
	(cd h && hearth log) >log.before &&
	(cd h && hearth stats) | grep -v "^store\|time" >stats.before
'

test_expect_success 'record -m with a 70000-byte message is refused, nothing written' '
	(cd h && test_expect_code 2 hearth record -m "$(bytes 70000)") 2>err &&
	grep "message is 70000 bytes; it may hold at most 65536" err &&
	(cd h && hearth log) >log.after && test_cmp log.before log.after &&
	(cd h && hearth status --porcelain) >status && grep "^A two" status
'

test_expect_success 'a message of exactly 65536 bytes is recorded and decodes everywhere' '
	(cd h && hearth record -m "$(bytes 65536)" >/dev/null) &&
	(cd h && hearth fsck) >fsck.out && grep "no problems" fsck.out &&
	hearth clone h c >/dev/null &&
	(cd c && hearth fsck) >fsck.out && grep "no problems" fsck.out
'

test_expect_success 'resolve -m with a message over the limit is refused before it settles anything' '
	echo base >h/both && (cd h && hearth record -m base >/dev/null) &&
	(cd c && hearth sync ../h >/dev/null) &&
	echo mine >h/both && (cd h && hearth record -m mine >/dev/null) &&
	echo theirs >c/both && (cd c && hearth record -m theirs >/dev/null) &&
	(cd h && hearth sync ../c >/dev/null) &&
	(cd h && hearth conflicts --porcelain) >conflicts.before && test -s conflicts.before &&
	(cd h && test_expect_code 2 hearth resolve --mine -M "$(bytes 65537)" both) 2>err &&
	grep "message is 65537 bytes" err &&
	(cd h && hearth conflicts --porcelain) >conflicts.after &&
	test_cmp conflicts.before conflicts.after
'

test_expect_success 'an author the op format cannot hold is refused in the config' '
	cat >long.yaml <<-END &&
	roots:
	  - name: main
	    path: $PWD/h
	state: $PWD/h/.hearth
	author: "$(bytes 257)"
	END
	! hearth -c long.yaml status 2>err &&
	grep "author is 257 bytes; it may hold at most 256" err
'

test_done
