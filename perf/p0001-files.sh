#!/bin/sh
# p0001-files: trees of small files (issue 2 item 10; issue 5 "files").
#
# Fixture: `bench-tool tree DIR COUNT 1`, 1 to 8 KiB a file (mean 4.5 KiB),
# seven in eight text-like, 24 files a folder three levels deep, mtimes in
# 2024; identical copies for each first record run of hearth and of git,
# and a pristine source for cp -a and rsync. Sizes: quick 1k 10k; full 1k
# 10k 100k (BENCH_FILES="..." overrides).
#
# Measurements, hearth beside its peers, every command run in its tree:
#   first record        hearth record -m first      | git add -A && git commit -q -m first
#                       (each run in a new tree made before it, since record
#                       leaves identity marks in the tree and a second record
#                       of one tree would not be a first; then hearth init .
#                       |  git init -q; later rows use the last run's trees)
#   clean status        hearth status               | git status
#   status, one edit    (one line appended to one file first)
#                       hearth status               | git status
#   record one edit     (before each run: one line appended to one file)
#                       hearth record -m edit       | git commit -q -a -m edit
#                                                   | git add -A && git commit -q -m edit
#   log                 hearth log                  | git log
#   export              hearth export head OUT      | git clone -q REPO OUT
#                                                   | cp -a SRC OUT && sync -f OUT
#                                                   | rsync -a SRC/ OUT/ && sync -f OUT
#                       (OUT is a new folder each run, deleted after the measurement;
#                       the repository is packed by `git gc` first and cloned
#                       locally, as a user would; export flushes what it wrote
#                       with one syncfs, so cp and rsync are followed by one)
# Nothing is deleted between timed runs (see bench_empty_trash in lib.sh):
# the trash is emptied after each size, and the next size waits for the
# freed inodes to age out (bench_settle).
# Goals (issue 2): first record of 10k and 100k files <= 0.5 x git's add +
# commit; clean status of 100k files <= 1.0 x git status.
. "$(dirname "$0")/lib.sh"

sizes=${BENCH_FILES:-$(bench_pick "1000 10000" "1000 10000 100000")}

for count in $sizes; do
	label=$(bench_count_label "$count")
	d=$bench_dir/$label
	mkdir -p "$d"
	bench_settle
	"$BT" tree "$d/src" "$count" 1
	edited=$("$BT" name 1 $((count / 2)))

	# A new tree for every run (left in place until the size is done).
	BENCH_COUNT=$count
	export BENCH_COUNT
	bench_side hearth 'hearth record' "$d" \
		'"$HEARTH_BENCH_TOOL" tree "hearth.$BENCH_RUN" "$BENCH_COUNT" 1 &&
		 cd "hearth.$BENCH_RUN" && "$HEARTH" init . >/dev/null' \
		'cd "hearth.$BENCH_RUN" && "$HEARTH" record -m first'
	bench_side git 'git add -A && git commit' "$d" \
		'"$HEARTH_BENCH_TOOL" tree "git.$BENCH_RUN" "$BENCH_COUNT" 1 &&
		 cd "git.$BENCH_RUN" && git init -q' \
		'cd "git.$BENCH_RUN" && git add -A && git commit -q -m first'
	[ "$count" -lt 10000 ] || bench_goal ratio 0.5 git
	bench_measure "$label" 'first record'
	mv "$d/hearth.$bench_last_run" "$d/hearth"
	mv "$d/git.$bench_last_run" "$d/git"

	bench_side hearth 'hearth status' "$d/hearth" '' '"$HEARTH" status'
	bench_side git 'git status' "$d/git" '' 'git status'
	[ "$count" -lt 100000 ] || bench_goal ratio 1.0 git
	bench_measure "$label" 'clean status' warm

	echo 'one more line' >>"$d/hearth/$edited"
	echo 'one more line' >>"$d/git/$edited"
	bench_side hearth 'hearth status' "$d/hearth" '' '"$HEARTH" status'
	bench_side git 'git status' "$d/git" '' 'git status'
	bench_measure "$label" 'status after one edit' warm

	bench_side hearth 'hearth record' "$d/hearth" \
		"echo \"edit \$BENCH_RUN\" >>'$edited'" '"$HEARTH" record -m edit'
	bench_side git 'git commit -a' "$d/git" \
		"echo \"edit \$BENCH_RUN\" >>'$edited'" 'git commit -q -a -m edit'
	bench_side git-add 'git add -A && git commit' "$d/git" \
		"echo \"edit \$BENCH_RUN\" >>'$edited'" 'git add -A && git commit -q -m edit'
	[ "$count" -lt 100000 ] || bench_goal ratio 1.0 git
	bench_measure "$label" 'record one edit'

	bench_side hearth 'hearth log' "$d/hearth" '' '"$HEARTH" log'
	bench_side git 'git log' "$d/git" '' 'git log'
	bench_measure "$label" 'log' warm

	bench_side hearth 'hearth export' "$d/hearth" '' \
		"\"\$HEARTH\" export head \"\$BENCH_TRASH/hearth.\$BENCH_RUN\""
	git -C "$d/git" gc -q
	bench_side git 'git clone' "$d" '' \
		"git clone -q git \"\$BENCH_TRASH/git.\$BENCH_RUN\""
	bench_side cp 'cp -a && sync -f' "$d" '' \
		"cp -a src \"\$BENCH_TRASH/cp.\$BENCH_RUN\" && sync -f \"\$BENCH_TRASH/cp.\$BENCH_RUN\""
	bench_side rsync 'rsync -a && sync -f' "$d" '' \
		"rsync -a src/ \"\$BENCH_TRASH/rsync.\$BENCH_RUN/\" && sync -f \"\$BENCH_TRASH/rsync.\$BENCH_RUN\""
	[ "$count" -lt 100000 ] || bench_goal ratio 1.2 cp
	bench_measure "$label" 'export into an empty folder'

	rm -rf "$d"
	bench_empty_trash
done

bench_done
