#!/bin/sh
test_description='every design section the code cites is a section of docs/DESIGN.md, named by that file'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"

# The sections docs/DESIGN.md has, one a line: "4" for "## 4. State
# derivation", "4.1" for "### 4.1 Placement".
design_sections() {
	sed -n -e 's/^## \([0-9][0-9]*\)\. .*/\1/p' \
		-e 's/^### \([0-9][0-9]*\.[0-9][0-9]*\) .*/\1/p' "$1/docs/DESIGN.md"
}

# Text files of the tree under $1 that mention a design section (the
# fixtures and fuzz corpora are data, not prose; this script shows bad
# citations on purpose).
cited_files() {
	(cd "$1" && grep -r -I -l -E '§|DESIGN [0-9]' backend model config tui themes tests perf \
		man completion docs README.md 2>/dev/null |
		grep -v -E '^tests/(fixtures|fuzz/corpus)/|^tests/t0850-design-citations\.sh$' | sort)
}

# Prints "FILE: §N" for every citation of a section the design lacks, and
# "FILE:LINE: ..." for a citation that does not name docs/DESIGN.md; fails
# when it printed anything. A bare "§N" is a design section too, and a file
# holding one must name docs/DESIGN.md somewhere, so a reader knows where
# to look.
check_citations() {
	root=$1
	design_sections "$root" >"$TEST_ROOT/sections"
	test -s "$TEST_ROOT/sections" || { echo "docs/DESIGN.md has no numbered sections"; return 1; }
	bad=0
	for file in $(cited_files "$root"); do
		for section in $(grep -I -o '§[0-9][0-9.]*[0-9]\|§[0-9]' "$root/$file" | sed 's/^§//' | sort -u); do
			grep -x -F "$section" "$TEST_ROOT/sections" >/dev/null ||
				{ echo "$file: cites §$section, which docs/DESIGN.md does not have"; bad=1; }
		done
		if sed 's|docs/DESIGN\.md §||g' "$root/$file" | grep -n 'DESIGN\(\.md\)\{0,1\} §\|DESIGN [0-9]'; then
			echo "$file: write a citation as docs/DESIGN.md §N"
			bad=1
		fi
		test "$file" = docs/DESIGN.md || grep -q 'docs/DESIGN\.md' "$root/$file" ||
			{ echo "$file: cites a § but never names docs/DESIGN.md"; bad=1; }
	done
	return $bad
}

test_expect_success 'docs/DESIGN.md numbers the sections the code has always cited' '
	design_sections "$HEARTH_SOURCE_DIR" >sections &&
	for section in 2 3 4 4.1 4.2 4.3 4.4 4.5 4.6 5 6 7 8 9 10; do
		grep -x -F "$section" sections >/dev/null || { echo "no section $section"; exit 1; }
	done
'

test_expect_success 'every section cited in the code exists, and every citation names the file' '
	check_citations "$HEARTH_SOURCE_DIR"
'

# A copy of the parts the check reads, to show it can fail.
make_copy() {
	rm -rf copy && mkdir -p copy/docs copy/backend &&
	cp "$HEARTH_SOURCE_DIR/docs/DESIGN.md" copy/docs/ &&
	cp "$HEARTH_SOURCE_DIR/README.md" copy/
}

test_expect_success 'a citation of a section the design lacks fails the check' '
	make_copy &&
	printf "/* The frobnicator (docs/DESIGN.md §4.9). */\n" >copy/backend/frob.c &&
	! check_citations "$PWD/copy" >out &&
	grep "backend/frob.c: cites §4.9" out
'

test_expect_success 'a citation that does not name docs/DESIGN.md fails the check' '
	make_copy &&
	printf "/* Placement (DESIGN §4.1). */\n" >copy/backend/place.c &&
	! check_citations "$PWD/copy" >out &&
	grep "backend/place.c: write a citation as docs/DESIGN.md §N" out &&
	printf "/* Places (docs/DESIGN.md §4.1, DESIGN.md §4.5). */\n" >copy/backend/place.c &&
	! check_citations "$PWD/copy" >out &&
	grep "backend/place.c: write a citation as docs/DESIGN.md §N" out &&
	printf "/* Placement (§4.1). */\n" >copy/backend/place.c &&
	! check_citations "$PWD/copy" >out &&
	grep "backend/place.c: cites a § but never names docs/DESIGN.md" out
'

test_expect_success 'the README points to the design' '
	grep -F "(docs/DESIGN.md)" "$HEARTH_SOURCE_DIR/README.md"
'

test_done
