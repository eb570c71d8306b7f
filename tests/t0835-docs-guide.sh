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

# The sections walked, in the guide's order: from a fresh machine to two
# synced machines and a conflict settled. "WHEN A DISK IS MISSING" is left
# out (it unmounts a disk: t0440 fails a root the same way), and so is a
# display with a command run in the background or with sudo (the watch:
# its lines are checked below, and t0420 runs it).
WALKED_SECTIONS='ONE MACHINE AND ONE FOLDER
A HOME ON TWO DISKS
BACKING UP AND CHECKING THE STORE
A SECOND MACHINE OVER SSH
YOUR FIRST CONFLICT'

# Each machine of the guide is a folder of its own here: its home
# (/home/me), its disks (/mnt) and its /tmp. A command the guide gives is
# typed with those places moved there; ssh://me@desktop/... reaches the
# desktop's folder through walk-ssh (the path names the desktop's home).
machine_paths() {
	sed -e "s# /tmp/# $TEST_ROOT/$1/tmp/#g" -e "s# /mnt/# $TEST_ROOT/$1/mnt/#g"
}

# What may differ between the guide and a real run: the machines' folders,
# ids, times, authors, the bytes on the wire (ids and author names are in
# them), and how many files a record had to read (their times decide it,
# as the guide says).
normalise() {
	sed -e "s#$TEST_ROOT/\(desktop\|laptop\)/\(home/me\|mnt\|tmp\)#/\2#g" \
	    -e 's/[0-9a-f]\{8,\}/ID/g' \
	    -e 's/[0-9]\{4\}-[0-9][0-9]-[0-9][0-9] [0-9:]*\( [+-][0-9]\{4\}\)\{0,1\}/DATE/g' \
	    -e 's/^Author: .*/Author: AUTHOR/' \
	    -e "s/ \\(me@laptop\\|me@desktop\\|me@$(uname -n)\\),/ AUTHOR,/" \
	    -e 's/[0-9][0-9]* B on the wire/N B on the wire/' \
	    -e 's/[0-9][0-9]* files\{0,1\} read/N files read/' "$1"
}

# One step of the walk: the command typed on its machine, in the folder
# that machine's last command left it in, its output into out.N. When the
# walk turns to the other machine, it waits for the clock's next second:
# a version's time is in seconds, and two machines' versions of one second
# would be listed in their total order, which is the replicas' random ids'.
walk_step() {
	if [ "$1" != "$(cat last-machine 2>/dev/null)" ]; then
		echo 'second=$(date +%s) && test_wait_for '"'"'[ "$(date +%s)" != "$second" ]'"'"' 10'
		echo "$1" >last-machine
	fi
	printf 'cd "$(cat "%s/cwd.%s")" && HOME=%s/%s/home/me && export HOME\n' \
	    "$TEST_ROOT" "$1" "$TEST_ROOT" "$1"
	printf '{ %s\n} >"%s/out.%s" 2>&1 </dev/null || true\n' "$(machine_paths "$1" <"command.$2")" \
	    "$TEST_ROOT" "$2"
	printf 'pwd >"%s/cwd.%s"\n' "$TEST_ROOT" "$1"
}

# Turns the displays into one script: each "$ command" (on the desktop) or
# "laptop$ command" runs on its machine with its output into out.N, and the
# lines under it go into expected.N; a here-document's lines belong to its
# command. The app itself ("$ hearth" alone) is left out. ls prints in
# columns, as it does on a terminal.
walk_script() {
	echo 'ls() { COLUMNS=80 command ls -C -T 0 "$@"; }'
	n=0
	for display in "$@"; do
		grep -q '^[a-z]*\$ ' "$display" || continue
		grep -q -e '^[a-z]*\$ sudo ' -e '^[a-z]*\$ .*&$' "$display" && continue
		command= heredoc=
		while IFS= read -r line; do
			if [ -n "$heredoc" ]; then
				printf '%s\n' "$line" >>"command.$n"
				[ "$line" = "$heredoc" ] && heredoc= && walk_step "$machine" "$n"
				continue
			fi
			case $line in
			'$ hearth' | *'$ hearth')
				command=
				;;
			'$ '* | desktop'$ '* | laptop'$ '*)
				n=$((n + 1))
				machine=${line%%\$ *}
				machine=${machine:-desktop}
				command=${line#*\$ }
				printf '%s\n' "$command" >"command.$n"
				echo "$machine" >"machine.$n"
				: >"expected.$n"
				case $command in
				*'<<EOF') heredoc=EOF ;;
				*) walk_step "$machine" "$n" ;;
				esac
				;;
			*)
				[ -n "$command" ] && printf '%s\n' "$line" >>"expected.$n"
				;;
			esac
		done <"$display"
	done
	echo "$n" >steps
}

# The guide's output of step N against the program's: a last line "..."
# in the guide stands for the rest of the output.
walk_compare() {
	normalise "expected.$1" >want
	normalise "out.$1" >got
	if [ "$(tail -n 1 want)" = "..." ]; then
		sed '$d' want >want.head && mv want.head want
		head -n "$(wc -l <want)" got >got.head && mv got.head got
	fi
	cmp -s want got && return 0
	echo "step $1 ($(cat "machine.$1")): \$ $(cat "command.$1")"
	diff -u want got
	return 1
}

# ssh for the walk: "walk-ssh [OPTIONS] me@HOST COMMAND" runs COMMAND on
# HOST's folder, with /home/me and /mnt named there.
write_walk_ssh() {
	cat >walk-ssh <<-EOF
	#!/bin/sh
	while [ \$# -gt 2 ]; do shift; done
	host=\${1#*@}
	HOME=$TEST_ROOT/\$host/home/me && export HOME && cd "\$HOME" || exit 255
	command=\$(printf '%s\n' "\$2" | sed -e "s|/home/me|\$HOME|g" -e "s|/mnt/|$TEST_ROOT/\$host/mnt/|g")
	eval "exec \$command"
	EOF
	chmod +x walk-ssh
}

test_expect_success 'the guide walked, every command as it is typed there: one machine, two disks, a backup, a second machine over ssh, a conflict settled' '
	for machine in desktop laptop; do
		mkdir -p $machine/home/me $machine/tmp $machine/mnt/ssd $machine/mnt/hdd $machine/mnt/backup &&
		echo "$TEST_ROOT/$machine/home/me" >cwd.$machine || return 1
	done &&
	printf "%%PDF-1.4 a passport\n" >desktop/home/me/passport.pdf &&
	printf "a holiday film\n" >desktop/home/me/holiday.mkv &&
	write_walk_ssh &&
	echo "$WALKED_SECTIONS" | while IFS= read -r section; do
		section_displays "$section" "guide.$(echo "$section" | tr " " _)" || exit 1
	done >displays &&
	test "$(wc -l <displays)" -ge 30 &&
	walk_script $(cat displays) >walk.sh &&
	test "$(cat steps)" -ge 60 &&
	grep -l "^laptop$" machine.* >/dev/null &&
	(umask 022 && USER=me && export USER && HEARTH_SSH=$TEST_ROOT/walk-ssh && export HEARTH_SSH &&
	 PATH=$(dirname "$HEARTH_BIN"):$PATH && . "$TEST_ROOT/walk.sh") &&
	step=1 failed=0 &&
	while [ "$step" -le "$(cat steps)" ]; do
		if ! test -f "out.$step"; then
			echo "step $step did not run" && failed=1
		elif ! walk_compare "$step"; then
			failed=1
		fi
		step=$((step + 1))
	done &&
	test "$failed" = 0
'

test_expect_success 'the guide says what the History view'"'"'s arrow marks' '
	docs_render "$GUIDE" | tr -s " \n" "  " >guide.txt &&
	grep -F "marks the version the working tree is at" guide.txt &&
	! grep -F "with the cursor (" guide.txt
'

test_expect_success 'the guide names no fixed id (version, conflict, replica) on a line typed' '
	echo "$WALKED_SECTIONS" | while IFS= read -r section; do
		section_displays "$section" "fixed.$(echo "$section" | tr " " _)" || exit 1
	done >fixed &&
	test "$(wc -l <fixed)" -ge 30 &&
	! grep -h "^[a-z]*\\$ .*[0-9a-f]\\{8\\}" $(cat fixed)
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
	grep "^laptop\$ echo \"cv, updated on the laptop\" > Documents/cv.txt$" conflict &&
	grep "^desktop\$ echo \"cv, updated at home\" > Documents/cv.txt$" conflict &&
	grep "^laptop\$ hearth sync origin$" conflict &&
	docs_render "$GUIDE" | tr -s " \n" "  " >guide.txt &&
	grep -F "says \"No conflicts.\":" guide.txt
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
