#!/bin/sh
test_description='the pages are lint-clean, refer to each other rightly, are pointed to by the README and install where man finds them'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"
. "$HEARTH_SOURCE_DIR/tests/lib/docs-lib.sh"

PAGES=$(cd "$MAN_DIR" && ls *.[0-9])

test_expect_success 'the pages are hearth(1), hearth.yaml(5) and hearth-setup(7) at least' '
	for page in hearth.1 hearth.yaml.5 hearth-setup.7; do
		test -f "$MAN_DIR/$page" || { echo "no man/$page"; exit 1; }
	done
'

for page in $PAGES; do
	test_expect_success "mandoc -Tlint -Wwarning finds nothing in $page" '
		mandoc -Tlint -Wwarning "$MAN_DIR/'"$page"'" >lint 2>&1 || true &&
		cat lint && test ! -s lint
	'
done

test_expect_success 'each page names itself as its file is named' '
	for page in $PAGES; do
		name=${page%.*} section=${page##*.}
		title=$(sed -n "s/^\.Dt \([^ ]*\) \([0-9]\).*/\1 \2/p" "$MAN_DIR/$page")
		upper=$(echo "$name $section" | tr "[:lower:]" "[:upper:]")
		test "$title" = "$upper" || { echo "$page: .Dt $title"; exit 1; }
	done
'

test_expect_success 'every hearth page a page refers to exists, and each is referred to' '
	cat "$MAN_DIR"/*.[0-9] | sed -n "s/^\.Xr \(hearth[^ ]*\) \([0-9]\).*/\1.\2/p" | sort -u >referred &&
	for page in $(cat referred); do
		test -f "$MAN_DIR/$page" || { echo "a page refers to $page, which is not in man/"; exit 1; }
	done &&
	for page in $PAGES; do
		test "$page" = hearth.1 || grep -x "$page" referred >/dev/null ||
		{ echo "no page refers to $page"; exit 1; }
	done
'

test_expect_success 'no shipped doc holds a to-do marker' '
	! grep -n -E "TODO|FIXME|XXX" "$MAN_DIR"/*.[0-9] "$HEARTH_SOURCE_DIR"/completion/* \
		"$HEARTH_SOURCE_DIR/README.md"
'

test_expect_success 'the setup guide has its places for syncing, and says they are to come' '
	guide=$MAN_DIR/hearth-setup.7 &&
	grep "^\.Sh A SECOND MACHINE OVER SSH$" "$guide" &&
	grep "^\.Sh YOUR FIRST CONFLICT$" "$guide" &&
	if docs_dump command | cut -f1 | grep -x sync >/dev/null; then
		! grep "which is not in this version of" "$guide" ||
		{ echo "hearth has a sync command now: hearth-setup(7) must guide through it"; exit 1; }
	fi
'

test_expect_success 'the README points to every page and keeps its two commands at the top' '
	readme=$HEARTH_SOURCE_DIR/README.md &&
	sed -n "/^## Documentation/,/^## /p" "$readme" >documentation &&
	for page in $PAGES; do
		grep -F "man/$page" documentation >/dev/null || { echo "README: no man/$page"; exit 1; }
	done &&
	sed -n "1,/^## A short tour/p" "$readme" | grep "^    make deps && make demo " &&
	sed -n "1,/^## A short tour/p" "$readme" | grep "^    make deps && make check "
'

# make install with DESTDIR, without building: -o treats the binary under
# test as up to date, whatever the build folder holds.
install_into() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$HEARTH_SOURCE_DIR" \
		-o "$HEARTH_BIN" BINARY="$HEARTH_BIN" DESTDIR="$TEST_ROOT/dest" PREFIX=/usr "$@"
}

test_expect_success 'make install puts every page in its section and the completions in place' '
	install_into install >install.log 2>&1 || { cat install.log; exit 1; } &&
	for page in $PAGES; do
		cmp "$MAN_DIR/$page" "dest/usr/share/man/man${page##*.}/$page" || exit 1
	done &&
	cmp "$HEARTH_SOURCE_DIR/completion/hearth.bash" dest/usr/share/bash-completion/completions/hearth &&
	cmp "$HEARTH_SOURCE_DIR/completion/_hearth" dest/usr/share/zsh/vendor-completions/_hearth &&
	test -x dest/usr/bin/hearth
'

test_expect_success 'man finds the installed pages' '
	if command -v man >/dev/null 2>&1; then
		MANPATH=$TEST_ROOT/dest/usr/share/man man -w hearth-setup >where &&
		grep "man7/hearth-setup.7" where &&
		MANPATH=$TEST_ROOT/dest/usr/share/man man -w 5 hearth.yaml | grep "man5/hearth.yaml.5"
	fi
'

test_expect_success 'make uninstall takes them away again' '
	install_into uninstall >uninstall.log 2>&1 || { cat uninstall.log; exit 1; } &&
	find dest -type f >left &&
	cat left && test ! -s left
'

test_done
