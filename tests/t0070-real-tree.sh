#!/bin/sh
test_description='a real tree (a copy of /usr/include) round-trips exactly'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"

test -d /usr/include || test_skip_all '/usr/include is missing'

test_expect_success 'record a copy of /usr/include' '
	hearth init home >/dev/null &&
	cp -a /usr/include home/include &&
	find home/include -type l | grep -q . &&
	(cd home && hearth record -m "usr include" >../out) &&
	grep "^Recorded" out
'

test_expect_success 'export it into an empty folder: no difference, same modes' '
	(cd home && hearth export head ../exported) &&
	diff -r --no-dereference --exclude=.hearth-id home/include exported/include &&
	(cd home/include && find . -name .hearth-id -prune -o -printf "%y %m %p %l\n" | sort) >modes.home &&
	(cd exported/include && find . -printf "%y %m %p %l\n" | sort) >modes.exported &&
	test_cmp modes.home modes.exported
'

test_expect_success 'files keep their modification times' '
	(cd home/include && find . -name .hearth-id -prune -o -type f -printf "%T@ %p\n" | sort) >times.home &&
	(cd exported/include && find . -type f -printf "%T@ %p\n" | sort) >times.exported &&
	test_cmp times.home times.exported
'

test_expect_success 'the tree deleted from the Home comes back with checkout' '
	rm -rf home/include &&
	(cd home && hearth checkout >/dev/null) &&
	diff -r --no-dereference --exclude=.hearth-id exported/include home/include &&
	(cd home && hearth status --porcelain >../out) && ! grep -v "^#" out
'

test_expect_success 'fsck checks every chunk and finds nothing wrong' '
	(cd home && hearth fsck >../out) && grep "no problems" out
'

test_done
