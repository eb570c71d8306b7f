#!/bin/sh
test_description='every way hearth writes a file gives it the mode that was recorded, whatever the umask'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"

# A file is made with its mode where the umask keeps it, else made 0600
# and set at the end (checkout_write.c): both sides of that choice, for
# checkout, clone and export, under umasks that strip nothing, group and
# other bits, and everything. (A file's permission bits are what is
# recorded, docs/DESIGN.md §3: no setuid, setgid or sticky bit.)
modes="644 755 600 400 444 640 666 700 750 777"

mode_of() {
	stat -c %a "$1"
}

# Prints "name mode" for each file of folder $1, sorted.
modes_in() {
	for m in $modes; do
		echo "f$m $(mode_of "$1/f$m")"
	done
}

test_expect_success 'setup: a Home with a file of each mode' '
	hearth init a >/dev/null &&
	for m in $modes; do
		echo "mode $m" >a/f$m && chmod $m a/f$m || return 1
	done &&
	(cd a && hearth record -m modes >/dev/null) &&
	modes_in a >expect &&
	grep "^f400 400" expect && grep "^f777 777" expect
'

for mask in 000 022 027 077; do
	test_expect_success "clone under umask $mask: every mode as recorded" '
		(umask $mask && hearth clone a clone$mask >/dev/null) &&
		modes_in clone$mask >actual && test_cmp expect actual
	'

	test_expect_success "checkout under umask $mask writes the modes back" '
		for m in $modes; do rm -f clone$mask/f$m || return 1; done &&
		(cd clone$mask && umask $mask && hearth checkout --force >/dev/null) &&
		modes_in clone$mask >actual && test_cmp expect actual
	'

	test_expect_success "export under umask $mask: every mode as recorded" '
		(cd a && umask $mask && hearth export head ../export$mask >/dev/null) &&
		modes_in export$mask >actual && test_cmp expect actual
	'
done

# As an ordinary user (root may write any file): a read-only file is
# made 0600 and set read-only last, after its id, which only a writable
# file takes from its owner.
. "$HEARTH_SOURCE_DIR/tests/lib/as-user.sh"
# ... where the scratch folder keeps user xattrs, to read the ids.
if ! { command -v getfattr >/dev/null 2>&1 && touch probe &&
	setfattr -n user.probe -v 1 probe 2>/dev/null; }; then
	test -z "$user_root" || rm -rf "$user_root"
	user_root=
fi

test_expect_success 'as an ordinary user, read-only files come with their mode and their id' '
	test -n "$user_root" || exit 0
	cd "$user_root" && as_user "$HEARTH_BIN" init h >/dev/null &&
	as_user sh -c "for m in 400 444 644 600; do echo \$m >h/f\$m && chmod \$m h/f\$m; done" &&
	(cd h && as_user "$HEARTH_BIN" record -m modes >/dev/null) &&
	(umask 022 && as_user "$HEARTH_BIN" clone h h2 >/dev/null) &&
	for m in 400 444 644 600; do
		test "$(mode_of h2/f$m)" = $m &&
		getfattr -n user.hearth.id h2/f$m >/dev/null || return 1
	done
'

test_expect_success 'cleanup: the ordinary user'"'"'s folder' '
	test -n "$user_root" || exit 0
	rm -rf "$user_root"
'

test_done
