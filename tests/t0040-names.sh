#!/bin/sh
test_description='names are bytes: spaces, newlines, invalid UTF-8, long names'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"

hearth init home >/dev/null
cd home

newline_name=$(printf 'line\nbreak')
bad_utf8=$(printf 'caf\351')
long_name=$(printf '%0255d' 0)

test_expect_success 'odd names are recorded' '
	echo space >"with space" &&
	echo newline >"$newline_name" &&
	echo latin1 >"$bad_utf8" &&
	echo long >"$long_name" &&
	mkdir "dir with space" && echo inner >"dir with space/$bad_utf8" &&
	echo tab >"$(printf "a\tb")" &&
	hearth record -m odd >/dev/null &&
	hearth status --porcelain >../out && ! grep -v "^#" ../out
'

test_expect_success 'listings escape names so each is one line' '
	hearth ls >../out &&
	grep "^line\\\\nbreak$" ../out &&
	grep "^caf\\\\xe9$" ../out &&
	grep "^a\\\\tb$" ../out &&
	test $(wc -l <../out) = 6
'

test_expect_success '-z listings give the raw bytes' '
	hearth ls -z >../raw &&
	tr "\0" "\n" <../raw | grep -c "" >../count &&
	grep -q "$long_name" ../raw
'

test_expect_success 'bytes of odd names come back' '
	hearth show --cat head "$newline_name" >../got && echo newline >../expected &&
	test_cmp ../expected ../got &&
	hearth show --cat head "dir with space/$bad_utf8" >../got && echo inner >../expected &&
	test_cmp ../expected ../got
'

test_expect_success 'odd names survive export' '
	hearth export head ../out-tree &&
	test -f "../out-tree/$newline_name" && test -f "../out-tree/$bad_utf8" &&
	test -f "../out-tree/$long_name" &&
	diff -r --no-dereference --exclude=.hearth --exclude=.hearth-id . ../out-tree
'

test_expect_success 'a rename of an odd name is a move' '
	mv "$bad_utf8" "$(printf "caf\303\251")" &&
	hearth status --porcelain -z >../out &&
	tr "\0" "\n" <../out | grep "^R caf" &&
	hearth record -m rename >/dev/null
'

test_expect_success 'porcelain -z keeps the bytes of a path' '
	echo x >"$newline_name" &&
	hearth status --porcelain -z >../out &&
	grep -q "$newline_name" ../out
'

test_done
