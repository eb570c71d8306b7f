#!/bin/sh
# p0011-scenario: R replicas in a star and in a ring converge (issue 3 item
# 9 "scenario"; issue 5 "scenario").
#
# Fixture: a base Home of one file, copied into R replicas (the copies get
# their own replica ids with `hearth reid`), and the same as R git clones
# each on its own branch rN. Every replica then records 10 rounds of 100
# unique-content edits offline (its own folder rN/ of 100 files, each
# rewritten every round): 1 000 edits and 10 versions a replica. Sizes:
# quick R = 10; full R = 10, 50 and 100 (BENCH_REPLICAS="..." overrides).
#
# Measurement, one timed command per topology and side: every sync needed
# for all replicas to hold everything, run one after the other.
#   star   the hub is replica 0; each leaf syncs with it (both ways), then
#          every leaf but the last, which already holds everything, again
#   ring   replica i syncs with i+1 (the last with 0), then every pair up
#          to R-3 again: 2R-2 syncs
# hearth: hearth sync ../hJ (both ways). git: the same exchange of branches,
# git fetch of refs/heads/* in each direction. Before each run every store
# (.hearth, .git) is put back as it was after the edits. The row's RSS is
# the largest peak of any one sync; after the rows, a note gives the
# slowest single sync of the last run, and the convergence is checked:
# every replica's history (hearth) or branches (git) the same, and three
# hearth trees checked out byte for byte equal.
# Goals (issue 5): at R = 100 each topology converges in <= 600 s with a
# sync peak RSS <= 300 MB.
. "$(dirname "$0")/lib.sh"

counts=${BENCH_REPLICAS:-$(bench_pick "10" "10 50 100")}

# The exchanges of one topology, "I J" per line, in order.
topology_pairs() {
	awk -v kind="$1" -v r="$2" 'BEGIN {
		if (kind == "star") {
			for (i = 1; i < r; i++) print i, 0
			for (i = 1; i < r - 1; i++) print i, 0
		} else {
			for (i = 0; i < r; i++) print i, (i + 1) % r
			for (i = 0; i < r - 2; i++) print i, i + 1
		}
	}'
}

# A script that runs every exchange of a topology, each under the timer so
# the slowest one and the largest peak RSS can be told.
write_converge_script() {
	side=$1 kind=$2 replicas=$3 out=$4
	{
		echo "set -e"
		topology_pairs "$kind" "$replicas" | while read -r i j; do
			if [ "$side" = hearth ]; then
				echo "cd \"$d/h$i\" && \"$BT\" time \"$d/$side-$kind.syncs\" \"\$HEARTH\" sync ../h$j >/dev/null"
			else
				echo "cd \"$d/g$i\" && \"$BT\" time \"$d/$side-$kind.syncs\" sh -c 'git fetch -q --update-head-ok ../g$j \"+refs/heads/*:refs/heads/*\" && cd ../g$j && git fetch -q --update-head-ok ../g$i \"+refs/heads/*:refs/heads/*\"'"
			fi
		done
	} >"$out"
}

# Puts every store back as it was after the edits.
write_restore_script() {
	side=$1 replicas=$2 out=$3
	i=0
	{
		echo "set -e"
		echo "rm -f \"$d/$side-\"*.syncs"
		while [ $i -lt "$replicas" ]; do
			if [ "$side" = hearth ]; then
				echo "mv \"$d/h$i/.hearth\" \"\$BENCH_TRASH/h.\$\$.$i\" && cp -a \"$d/h$i.state\" \"$d/h$i/.hearth\""
			else
				echo "mv \"$d/g$i/.git\" \"\$BENCH_TRASH/g.\$\$.$i\" && cp -a \"$d/g$i.git\" \"$d/g$i/.git\""
			fi
			i=$((i + 1))
		done
	} >"$out"
}

make_replicas() {
	mkdir -p "$d/base"
	echo "a Home shared by $1 replicas" >"$d/base/README"
	(cd "$d/base" && "$HEARTH" init . >/dev/null && "$HEARTH" record -m base >/dev/null)
	(cd "$d/base" && git init -q -b r0 && git add README && git commit -q -m base)
	i=0
	while [ $i -lt "$1" ]; do
		mkdir -p "$d/h$i" "$d/g$i"
		cp "$d/base/README" "$d/h$i/" && cp "$d/base/README" "$d/g$i/"
		cp -a "$d/base/.hearth" "$d/h$i/.hearth"
		[ $i = 0 ] || (cd "$d/h$i" && "$HEARTH" reid >/dev/null)
		cp -a "$d/base/.git" "$d/g$i/.git"
		[ $i = 0 ] || (cd "$d/g$i" && git checkout -q -b "r$i")
		i=$((i + 1))
	done
}

# 10 rounds of 100 edits in each replica, each round recorded or committed.
make_edits() {
	i=0
	while [ $i -lt "$1" ]; do
		round=1
		while [ $round -le 10 ]; do
			for tree in "$d/h$i" "$d/g$i"; do
				mkdir -p "$tree/r$i"
				awk -v i=$i -v round=$round -v dir="$tree/r$i" 'BEGIN {
					for (k = 0; k < 100; k++)
						printf "replica %d, round %d, file %d\n", i, round, k >(dir "/f" k ".txt")
				}'
			done
			(cd "$d/h$i" && "$HEARTH" record -m "r$i round $round" >/dev/null)
			(cd "$d/g$i" && git add -A && git commit -q -m "r$i round $round")
			round=$((round + 1))
		done
		cp -a "$d/h$i/.hearth" "$d/h$i.state"
		cp -a "$d/g$i/.git" "$d/g$i.git"
		i=$((i + 1))
	done
}

# Every replica holds what replica 0 holds: the same history (hearth log)
# and the same branches (git); and three replicas (the first, one in the
# middle, the last) check out trees byte for byte equal. Those trees are
# then put back as they were, for the next topology.
check_converged() {
	replicas=$1 failed=0
	(cd "$d/h0" && "$HEARTH" log --oneline) >"$d/log.0"
	(cd "$d/g0" && git for-each-ref --format='%(refname) %(objectname)' refs/heads) >"$d/refs.0"
	i=1
	while [ $i -lt "$replicas" ]; do
		(cd "$d/h$i" && "$HEARTH" log --oneline) >"$d/log.i"
		cmp -s "$d/log.0" "$d/log.i" || failed=1
		(cd "$d/g$i" && git for-each-ref --format='%(refname) %(objectname)' refs/heads) >"$d/refs.i"
		cmp -s "$d/refs.0" "$d/refs.i" || failed=1
		i=$((i + 1))
	done
	for i in 0 $((replicas / 2)) $((replicas - 1)); do
		(cd "$d/h$i" && "$HEARTH" checkout >/dev/null) || failed=1
	done
	for i in $((replicas / 2)) $((replicas - 1)); do
		diff -r -q --exclude=.hearth --exclude=.hearth-id "$d/h0" "$d/h$i" >/dev/null || failed=1
	done
	for i in 0 $((replicas / 2)) $((replicas - 1)); do
		find "$d/h$i" -mindepth 1 -maxdepth 1 -name 'r*' ! -name "r$i" -exec rm -rf {} +
	done
	[ $failed = 0 ] || { echo "#   NOT CONVERGED: replicas differ after the syncs"; bench_failed=1; }
	return 0
}

slowest() {
	sort -n "$1" | tail -n 1 | awk '{ printf "%.3f s (peak RSS %.1f MiB)", $1, $2 / 1024 }'
}

for count in $counts; do
	label="R=$count"
	d=$bench_dir/r$count
	mkdir -p "$d"
	make_replicas "$count"
	make_edits "$count"
	for kind in star ring; do
		write_restore_script hearth "$count" "$d/restore-hearth.sh"
		write_restore_script git "$count" "$d/restore-git.sh"
		write_converge_script hearth "$kind" "$count" "$d/converge-hearth-$kind.sh"
		write_converge_script git "$kind" "$count" "$d/converge-git-$kind.sh"
		bench_side hearth "hearth sync x$(topology_pairs "$kind" "$count" | wc -l)" "$d" \
			"sh \"$d/restore-hearth.sh\"" "sh \"$d/converge-hearth-$kind.sh\""
		bench_side git 'git fetch, both ways' "$d" \
			"sh \"$d/restore-git.sh\"" "sh \"$d/converge-git-$kind.sh\""
		[ "$count" -lt 100 ] || bench_goal seconds 600
		bench_measure "$label" "$kind: to convergence"
		echo "#   $label $kind, last run: slowest hearth sync $(slowest "$d/hearth-$kind.syncs"), slowest git exchange $(slowest "$d/git-$kind.syncs")"
		check_converged "$count"
	done
	rm -rf "$d"
	bench_empty_trash
done

bench_done
