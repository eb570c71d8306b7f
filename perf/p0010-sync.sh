#!/bin/sh
# p0010-sync: the delta between two replicas (issue 3 item 9, "delta").
#
# Fixture: two replicas share a base of `bench-tool tree DIR 1000 1` (the
# hearth one is a copy of the first with `hearth reid`; the git one a
# clone). The first then makes K ops offline: rounds of up to 1000 edits,
# each edit a file rewritten with one short line of its own (so each is a
# new blob, of about 20 bytes: the cost measured is per op and per chunk,
# not bytes), each round recorded (hearth record | git add -A && git
# commit). K = 10, 1 000 and 100 000 (100 rounds of 1000): 11, 1 001 and
# 100 100 hearth ops with the COMMITs; the quick size makes 10 000 in place
# of 100 000, so `make bench` stays short. BENCH_SYNC_OPS="..." overrides.
#
# Measurements, every command run in the second replica:
#   delta     hearth sync ../a              | git fetch -q ../a main
#             (before each run: the second replica's .hearth or .git moved
#             to the trash and its pristine copy put back)
#   no-op     the same again once in step: nothing to send either way
# Goals (issue 3): a 100 000-op delta in at most 2 s; a no-op sync of that
# Home in under 0.2 s.
. "$(dirname "$0")/lib.sh"

counts=${BENCH_SYNC_OPS:-$(bench_pick "10 1000 10000" "10 1000 100000")}

base=$bench_dir/base
mkdir -p "$base"
bench_settle
"$BT" tree "$base/files" 1000 1
i=0
while [ $i -lt 1000 ]; do
	"$BT" name 1 $i
	i=$((i + 1))
done >"$base/names"
(cd "$base/files" && "$HEARTH" init . >/dev/null && "$HEARTH" record -m base >/dev/null)
mv "$base/files/.hearth" "$base/hearth-state"
(cd "$base/files" && git init -q && git add -A && git commit -q -m base)
mv "$base/files/.git" "$base/git-dir"

# make_replicas DIR: DIR/a (hearth) and DIR/ga (git) hold the base; DIR/b
# and DIR/gb are their second replicas; DIR/b-state and DIR/gb-git are the
# second replicas' pristine stores, put back before each run.
make_replicas() {
	for side in a b ga gb; do
		cp -a "$base/files" "$1/$side"
	done
	cp -a "$base/hearth-state" "$1/a/.hearth"
	cp -a "$base/hearth-state" "$1/b/.hearth"
	(cd "$1/b" && "$HEARTH" reid >/dev/null)
	cp -a "$1/b/.hearth" "$1/b-state"
	cp -a "$base/git-dir" "$1/ga/.git"
	git clone -q "$1/ga" "$1/gb-clone" && mv "$1/gb-clone/.git" "$1/gb/.git" &&
		rm -rf "$1/gb-clone"
	cp -a "$1/gb/.git" "$1/gb-git"
}

# edit_rounds DIR K: K edits in rounds of 1000, each round recorded in
# DIR/a and committed in DIR/ga.
edit_rounds() {
	done_ops=0 round=0
	while [ $done_ops -lt "$2" ]; do
		round=$((round + 1))
		this=$(($2 - done_ops))
		[ $this -le 1000 ] || this=1000
		for tree in "$1/a" "$1/ga"; do
			head -n $this "$base/names" | while read -r path; do
				echo "round $round of $path" >"$tree/$path"
			done
		done
		(cd "$1/a" && "$HEARTH" record -m "round $round" >/dev/null)
		(cd "$1/ga" && git add -A && git commit -q -m "round $round")
		done_ops=$((done_ops + this))
	done
}

for count in $counts; do
	label=$(bench_count_label "$count")
	d=$bench_dir/$label
	mkdir -p "$d"
	make_replicas "$d"
	edit_rounds "$d" "$count"

	bench_side hearth 'hearth sync' "$d/b" \
		'mv .hearth "$BENCH_TRASH/hearth.$$" && cp -a ../b-state .hearth' \
		'"$HEARTH" sync ../a'
	bench_side git 'git fetch' "$d/gb" \
		'mv .git "$BENCH_TRASH/git.$$" && cp -a ../gb-git .git' \
		'git fetch -q ../ga main'
	[ "$count" -lt 100000 ] || bench_goal seconds 2
	bench_measure "$label ops" 'delta sync'

	(cd "$d/b" && "$HEARTH" sync ../a >/dev/null)
	(cd "$d/gb" && git fetch -q ../ga main)
	bench_side hearth 'hearth sync' "$d/b" '' '"$HEARTH" sync ../a'
	bench_side git 'git fetch' "$d/gb" '' 'git fetch -q ../ga main'
	[ "$count" -lt 100000 ] || bench_goal seconds 0.2
	bench_measure "$label ops" 'no-op sync' warm

	(cd "$d/b" && "$HEARTH" stats) | awk -v label="$label" '
		/^packs created/ { packs = $3 } /^ops / { ops = $2 }
		END { printf "#   after the %s delta the second replica holds %s ops in %s packs created\n",
			label, ops, packs }'
	rm -rf "$d"
	bench_empty_trash
done

bench_done
