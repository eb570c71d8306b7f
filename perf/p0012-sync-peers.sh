#!/bin/sh
# p0012-sync-peers: filling and updating a replica, beside rsync and Unison
# (issue 5 "sync": 10k files into an empty replica, 1 000 changed files;
# "one 1 GB file": its sync).
#
# Measurements (what each row times; every fixture is made once per row):
#   clone into an empty replica
#       A Home of N small files (`bench-tool tree DIR N 1`, 1 to 8 KiB,
#       seven in eight text-like), recorded, beside a plain copy of the
#       same tree. Timed, each run into a new folder of the trash:
#         hearth clone HOME OUT                 | rsync -a SRC/ OUT/ && sync -f OUT
#       (the flush counted alike: clone ends with one per root, as
#       hearth's default durability does)
#       clone is how a user fills an empty second replica (hearth(1)): it
#       makes the replica, pulls every op and all content over a sync
#       session with `hearth serve`, and checks head out, so the files are
#       in OUT when it returns. The last run's OUT is compared with the
#       Home (diff -r, untimed). Sizes: quick 1k, full 1k, 10k and 100k
#       (BENCH_CLONE_FILES="..." overrides, in ascending order).
#   sync 1k changed files
#       Two replicas of a Home of M small files in step (the second made by
#       `hearth clone`), and two plain copies of the tree that Unison has
#       synced once (its archive under the case's folder: UNISON points
#       there, so ~/.unison is never read or written). Before each run,
#       untimed: 1 000 files not changed before (`bench-tool edit`, round
#       $BENCH_RUN) are rewritten in the first replica, which records them
#       (hearth record), and the same 1 000 in the first plain copy.
#       Timed, in the second replica | in the copies' folder:
#         hearth sync --checkout origin         | unison ua ub -batch -silent
#                                               | unison ... && sync -f ub
#       (Unison flushes nothing; the second peer flushes what it wrote, as
#       hearth's checkout does; its rounds are numbered from 100.)
#       The sync takes the ops and content in and the checkout writes the
#       1 000 files into the second replica's tree: the files appear, as
#       Unison's copies do. Unison's time includes finding the change (it
#       walks both copies against its archive); hearth's record of it is
#       done before, as the user records before syncing. Each run starts in
#       step with a change of its own rather than from a restored copy:
#       both hearth's index and Unison's archive key unchanged files on
#       their inode and times, so putting the old files back would make
#       both rehash them, which no real sync pays. After the runs, both
#       pairs are compared (diff -r, untimed). Sizes: quick 10k, full 10k
#       and 100k (BENCH_RESYNC_FILES="..." overrides). Without unison installed (it is
#       not in `make deps`), this row is left out, saying so.
#   clone one big file
#       As the first row, with a Home of one big file (`bench-tool file
#       big MIB KIND 7`, incompressible or text-like) and a small one.
#         hearth clone HOME OUT                 | rsync -a SRC/ OUT/ && sync -f OUT
#       (before each run, the side's previous OUT is removed, to keep
#       the disk free: a few files, which do not slow the next creations).
#       Sizes: quick 64 MiB, full 1 GiB (BENCH_BLOB_MIB overrides, as in
#       p0002).
# Goals (issue 5): 10k files into an empty replica at most 1.5 x rsync -a;
# 1 000 changed files at most 0.5 x Unison; one 1 GB file synced into an
# empty replica at most 64 MiB peak RSS (the largest of clone and the
# `hearth serve` it runs).
. "$(dirname "$0")/lib.sh"

UNISON=$bench_dir/unison
mkdir -p "$UNISON"
export UNISON
if command -v unison >/dev/null 2>&1; then
	echo "# $(unison -version 2>/dev/null | head -1)"
	have_unison=1
else
	have_unison=0
fi

# recorded_home DIR: makes DIR a Home and records what it holds.
recorded_home() {
	(cd "$1" && "$HEARTH" init . >/dev/null && "$HEARTH" record -m first >/dev/null)
}

# ---- N files into an empty replica ----------------------------------------

for files in ${BENCH_CLONE_FILES:-$(bench_pick 1000 "1000 10000 100000")}; do
	label=$(bench_count_label "$files")
	d=$bench_dir/clone
	mkdir -p "$d"
	bench_settle
	"$BT" tree "$d/src" "$files" 1
	"$BT" tree "$d/home" "$files" 1
	recorded_home "$d/home"

	bench_side hearth 'hearth clone' "$d" '' \
		'"$HEARTH" clone home "$BENCH_TRASH/hearth.$BENCH_RUN"'
	bench_side rsync 'rsync -a && sync -f' "$d" '' \
		'rsync -a src/ "$BENCH_TRASH/rsync.$BENCH_RUN/" && sync -f "$BENCH_TRASH/rsync.$BENCH_RUN"'
	bench_goal ratio 1.5 rsync
	bench_measure "$label files" 'clone into an empty replica'
	# Against the Home, its .hearth aside, as the clone writes it.
	if ! diff -r --exclude=.hearth "$d/home" "$BENCH_TRASH/hearth.$bench_last_run" >/dev/null; then
		echo "perf: the clone's files differ from the source" >&2
		bench_failed=1
	fi
	rm -rf "$d"
	bench_empty_trash
done

# ---- 1 000 changed files -----------------------------------------------------

if [ "$have_unison" = 0 ]; then
	echo "# p0012: unison is not installed (apt-get install unison): no 'sync 1k changed files' row"
else
	for total in ${BENCH_RESYNC_FILES:-$(bench_pick 10000 "10000 100000")}; do
		label=$(bench_count_label "$total")
		d=$bench_dir/resync
		mkdir -p "$d"
		bench_settle
		"$BT" tree "$d/a" "$total" 1
		recorded_home "$d/a"
		"$HEARTH" clone "$d/a" "$d/b" >/dev/null
		"$BT" tree "$d/ua" "$total" 1
		"$BT" tree "$d/ub" "$total" 1
		# The first sync builds Unison's archive (the replicas are equal, so it
		# only fingerprints both); it warns that it found none.
		(cd "$d" && unison ua ub -batch -silent) >/dev/null 2>&1

		BENCH_TOTAL=$total
		export BENCH_TOTAL
		bench_side hearth 'hearth sync --checkout' "$d/b" \
			'"$HEARTH_BENCH_TOOL" edit ../a 1 "$BENCH_TOTAL" "$BENCH_RUN" 1000 &&
			 cd ../a && "$HEARTH" record -m "round $BENCH_RUN" >/dev/null' \
			'"$HEARTH" sync --checkout origin'
		bench_side unison 'unison -batch' "$d" \
			'"$HEARTH_BENCH_TOOL" edit ua 1 "$BENCH_TOTAL" "$BENCH_RUN" 1000' \
			'unison ua ub -batch -silent'
		# Unison flushes nothing; hearth's checkout ends with one syncfs per
		# root (durability group). Its rounds are numbered from 100, so each
		# edit writes bytes neither side wrote before (at 10k files the
		# rounds of both sides come round to the same files).
		bench_side unison-flush 'unison -batch && sync -f' "$d" \
			'"$HEARTH_BENCH_TOOL" edit ua 1 "$BENCH_TOTAL" $((BENCH_RUN + 100)) 1000' \
			'unison ua ub -batch -silent && sync -f ub'
		bench_goal ratio 0.5 unison
		bench_measure "$label files" 'sync 1k changed files'
		if ! diff -r --exclude=.hearth "$d/a" "$d/b" >/dev/null || ! diff -r "$d/ua" "$d/ub" >/dev/null; then
			echo "perf: the replicas differ after the syncs" >&2
			bench_failed=1
		fi
		rm -rf "$d"
		bench_empty_trash
	done
fi

# ---- one big file into an empty replica ----------------------------------------

mib=${BENCH_BLOB_MIB:-$(bench_pick 64 1024)}
if [ "$mib" -ge 1024 ] && [ $((mib % 1024)) = 0 ]; then
	label="$((mib / 1024)) GiB"
else
	label="$mib MiB"
fi
for kind in random text; do
	d=$bench_dir/big-$kind
	mkdir -p "$d/home" "$d/src"
	for tree in "$d/home" "$d/src"; do
		echo 'a small file beside the big one' >"$tree/small.txt"
		"$BT" file "$tree/big" "$mib" "$kind" 7
	done
	recorded_home "$d/home"

	bench_side hearth 'hearth clone' "$d" 'rm -rf "$BENCH_TRASH"/hearth.*' \
		'"$HEARTH" clone home "$BENCH_TRASH/hearth.$BENCH_RUN"'
	bench_side rsync 'rsync -a && sync -f' "$d" 'rm -rf "$BENCH_TRASH"/rsync.*' \
		'rsync -a src/ "$BENCH_TRASH/rsync.$BENCH_RUN/" && sync -f "$BENCH_TRASH/rsync.$BENCH_RUN"'
	bench_goal rss 64
	bench_measure "$label $kind" 'clone one big file'
	if ! cmp -s "$d/src/big" "$BENCH_TRASH/hearth.$bench_last_run/big"; then
		echo "perf: the cloned big file differs from the source" >&2
		bench_failed=1
	fi
	rm -rf "$d"
	bench_empty_trash
done

bench_done
