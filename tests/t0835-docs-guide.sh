#!/bin/sh
test_description='hearth-setup(7) walked literally: each command of its first part, typed as the guide shows it, prints what the guide shows; the rest of the guide agrees with the program where it was seen to differ'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"
. "$HEARTH_SOURCE_DIR/tests/lib/docs-lib.sh"

GUIDE=$MAN_DIR/hearth-setup.7

# The literal displays of one section of the guide, each into its own file
# PREFIX.N (escapes undone); prints the file names.
section_displays() {
	awk -v section="$1" -v prefix="$2" '
		/^\.Sh / { inside = substr($0, 5) == section; next }
		!inside { next }
		/^\.Bd -literal/ { n++; file = prefix "." n; print file; printf "" >file; shown = 1; next }
		/^\.Ed/ { shown = 0; next }
		shown { line = $0; gsub(/\\e/, "\\", line); gsub(/\\&/, "", line); print line >file }' "$GUIDE"
}

# What may differ between the guide and a real run: ids, times, author and
# host, the home folder, and how many files a record had to read (their
# times decide it, as the guide says).
normalise() {
	sed -e "s|$HOME|/home/me|g" \
	    -e 's/[0-9a-f]\{8,\}/ID/g' \
	    -e 's/[0-9]\{4\}-[0-9][0-9]-[0-9][0-9] [0-9:]*\( [+-][0-9]\{4\}\)\{0,1\}/DATE/g' \
	    -e 's/^Author: .*/Author: AUTHOR/' \
	    -e 's/[0-9][0-9]* files\{0,1\} read/N files read/' "$1"
}

# Turns the displays into one script: each "$ command" runs in one shell
# (so cd carries on) with its output into out.N, and the lines under it
# into expected.N. The app itself ("$ hearth" alone) is left out.
walk_script() {
	n=0
	for display in "$@"; do
		grep -q '^\$ ' "$display" || continue
		while IFS= read -r line; do
			case $line in
			'$ hearth')
				command=
				;;
			'$ '*)
				n=$((n + 1))
				command=${line#\$ }
				printf '%s\n' "$command" >"command.$n"
				: >"expected.$n"
				printf '{ %s\n} >"%s/out.%s" 2>&1 || true\n' "$command" "$TEST_ROOT" "$n"
				;;
			*)
				[ -n "$command" ] && printf '%s\n' "$line" >>"expected.$n"
				;;
			esac
		done <"$display"
	done
	echo "$n" >steps
}

test_expect_success 'the first part of the guide, every command as it is typed there' '
	mkdir -p "$HOME" &&
	section_displays "ONE MACHINE AND ONE FOLDER" guide >displays &&
	test "$(wc -l <displays)" -ge 10 &&
	walk_script $(cat displays) >walk.sh &&
	test "$(cat steps)" -ge 25 &&
	(cd "$HOME" && PATH=$(dirname "$HEARTH_BIN"):$PATH sh "$TEST_ROOT/walk.sh") &&
	step=1 &&
	while [ "$step" -le "$(cat steps)" ]; do
		test -f "out.$step" || { echo "step $step did not run"; exit 1; }
		normalise "expected.$step" >want
		normalise "out.$step" >got
		if ! cmp -s want got; then
			echo "step $step: \$ $(cat command.$step)"
			diff -u want got
			exit 1
		fi
		step=$((step + 1))
	done
'

test_expect_success 'the guide says what the History view'"'"'s arrow marks' '
	docs_render "$GUIDE" | tr -s " \n" "  " >guide.txt &&
	grep -F "marks the version the working tree is at" guide.txt &&
	! grep -F "with the cursor (" guide.txt
'

test_expect_success 'the guide names no fixed version id on a line typed' '
	section_displays "ONE MACHINE AND ONE FOLDER" fixed >/dev/null &&
	! grep -h "^\\$ .*[0-9a-f]\\{8\\}" fixed.*
'

test_expect_success 'the guide'"'"'s watch lines are the ones hearth watch prints' '
	section_displays "A HOME ON TWO DISKS" disks >/dev/null &&
	cat disks.* >disks &&
	grep "^checked: no folder walked before, so a first walk follows$" disks &&
	grep "^current: the index is current; status lists [0-9]* folders" disks &&
	grep -F "no folder walked before, so a first walk follows" "$HEARTH_SOURCE_DIR"/backend/*/*.c &&
	grep -F "status lists %llu folder" "$HEARTH_SOURCE_DIR"/backend/*/*.c
'

test_expect_success 'the conflict section makes its conflict: both machines edit the CV before the sync' '
	section_displays "YOUR FIRST CONFLICT" conflict >/dev/null &&
	cat conflict.* >conflict &&
	grep "^\$ echo \"cv, updated on the laptop\" > Documents/cv.txt$" conflict &&
	grep "^\$ echo \"cv, updated at home\" > Documents/cv.txt$" conflict &&
	grep "^\$ hearth sync origin$" conflict &&
	docs_render "$GUIDE" | tr -s " \n" "  " >guide.txt &&
	grep -F "says \"No conflicts.\":" guide.txt
'

test_expect_success 'the conflict section'"'"'s sync says the conflict it brought, as sync says it' '
	section_displays "YOUR FIRST CONFLICT" brought >/dev/null &&
	sed -n "/^\$ hearth sync origin\$/,/^\$ /p" brought.* >guide-sync &&
	hearth init desk >/dev/null && mkdir -p desk/Documents &&
	echo cv >desk/Documents/cv.txt && (cd desk && hearth record -m cv >/dev/null) &&
	hearth clone desk lap >/dev/null &&
	echo "cv, updated on the laptop" >lap/Documents/cv.txt &&
	(cd lap && hearth record -m "CV from the train" >/dev/null) &&
	echo "cv, updated at home" >desk/Documents/cv.txt &&
	(cd desk && hearth record -m "CV at home" >/dev/null) &&
	(cd lap && hearth sync origin) >synced &&
	grep "^The sync brought 1 new conflict" synced >said &&
	test "$(wc -l <said)" -eq 1 &&
	grep -x -F -f said guide-sync &&
	grep -v "^\$ " guide-sync | grep -n -x -F -f said | grep "^4:"
'

# The number the docs give in words, for the count of the demo's versions.
number_word() {
	n=$1
	set -- zero one two three four five six seven eight nine ten eleven twelve
	shift "$n" && echo "$1"
}

test_expect_success 'README and hearth demo --help give the demo'"'"'s number of versions' '
	TMPDIR=$TEST_ROOT/tmp && mkdir -p "$TMPDIR" && export TMPDIR &&
	hearth demo </dev/null >where &&
	(cd "$TMPDIR"/hearth-demo-*/home && hearth log --oneline) >versions &&
	word=$(number_word "$(wc -l <versions)") &&
	hearth demo --help | tr -s " \n" "  " | grep -F "with $word versions" &&
	tr -s " \n" "  " <"$HEARTH_SOURCE_DIR/README.md" | grep -F "hearth demo\` ($word versions"
'

test_done
