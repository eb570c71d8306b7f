#!/bin/sh
# p0003-ops: a Home with a long history (issue 5 "ops").
#
# Fixture: `bench-tool tree DIR 10000 1` (10k small files) recorded once,
# then grown by rounds of 1 000 edits (`bench-tool edit`: each a file
# rewritten with a line of its own, so a new blob), each round recorded
# (hearth record -m "round N" | git add -A && git commit -q -m "round N"):
# about 1 001 ops a round. Sizes: quick 30k ops (the base and 10 rounds:
# it shows the case runs); full 100k and 1M ops (1 000 rounds), the second
# grown from the first
# (BENCH_OPS="..." overrides, in ascending order).
#
# Measurements, every command run in its tree, in this order:
#   open             hearth log -n 1             | git log -1
#   clean status     hearth status               | git status
#   log              hearth log                  | git log
#   show head        hearth show head            | git show --stat HEAD
#   record one edit  (before each run: one line appended to one file)
#                    hearth record -m edit       | git commit -q -a -m edit
#   checkout old     (before each run: back to head)
#                    hearth checkout head~50     | git checkout -q HEAD~50
#                    (50 rounds back, fewer in a shorter history)
#                    (git: from its branch; back with git checkout -q main)
#   clone            (before each run: the last clone moved to the trash)
#                    hearth clone hearth hearth-clone
#                                                | git clone -q --no-local git git-clone
#                    (every op into an empty replica, and the files checked out)
#   no-op sync       in the clone, once it is in step:
#                    hearth sync ../hearth       | git fetch -q origin
# Goals (issue 5, at 1M ops): open and log <= 0.1 s; status, record one
# edit and show head <= 0.3 s; status peak RSS <= 200 MB (the row's RSS);
# clone (1M ops into an empty replica) <= 20 s; a no-op sync <= 0.2 s.
. "$(dirname "$0")/lib.sh"

counts=${BENCH_OPS:-$(bench_pick "30000" "100000 1000000")}
files=10000

d=$bench_dir/ops
mkdir -p "$d"
bench_settle
"$BT" tree "$d/hearth" $files 1
cp -a "$d/hearth" "$d/git"
(cd "$d/hearth" && "$HEARTH" init . >/dev/null && "$HEARTH" record -m base >/dev/null)
(cd "$d/git" && git init -q -b main && git add -A && git commit -q -m base)
edited=$("$BT" name 1 $((files / 2)))
round=0
# The base alone is about 2 ops a file (a create, its content) and one a
# folder.
grown=$(cd "$d/hearth" && "$HEARTH" stats | awk '/^ops / { print $2 }')

# grow_to OPS: rounds of edits until both histories hold about OPS ops.
grow_to() {
	while [ $grown -lt "$1" ]; do
		round=$((round + 1))
		for tree in hearth git; do
			"$BT" edit "$d/$tree" 1 $files $round 1000
		done
		(cd "$d/hearth" && "$HEARTH" record -m "round $round" >/dev/null)
		(cd "$d/git" && git add -A && git commit -q -m "round $round")
		grown=$((grown + 1001))
	done
}

for count in $counts; do
	label=$(bench_count_label "$count")
	grow_to "$count"
	[ "$count" -lt 1000000 ] || at_goal=1

	bench_side hearth 'hearth log -n 1' "$d/hearth" '' '"$HEARTH" log -n 1'
	bench_side git 'git log -1' "$d/git" '' 'git log -1'
	[ -z "${at_goal:-}" ] || bench_goal seconds 0.1
	bench_measure "$label ops" open warm

	bench_side hearth 'hearth status' "$d/hearth" '' '"$HEARTH" status'
	bench_side git 'git status' "$d/git" '' 'git status'
	[ -z "${at_goal:-}" ] || bench_goal seconds 0.3
	bench_measure "$label ops" 'clean status' warm

	bench_side hearth 'hearth log' "$d/hearth" '' '"$HEARTH" log'
	bench_side git 'git log' "$d/git" '' 'git log'
	[ -z "${at_goal:-}" ] || bench_goal seconds 0.1
	bench_measure "$label ops" log warm

	bench_side hearth 'hearth show head' "$d/hearth" '' '"$HEARTH" show head'
	bench_side git 'git show --stat HEAD' "$d/git" '' 'git show --stat HEAD'
	[ -z "${at_goal:-}" ] || bench_goal seconds 0.3
	bench_measure "$label ops" 'show head' warm

	bench_side hearth 'hearth record' "$d/hearth" "echo edit >>'$edited'" \
		'"$HEARTH" record -m edit'
	bench_side git 'git commit -a' "$d/git" "echo edit >>'$edited'" 'git commit -q -a -m edit'
	[ -z "${at_goal:-}" ] || bench_goal seconds 0.3
	bench_measure "$label ops" 'record one edit'
	grown=$((grown + bench_last_run * 2))

	# As far back as the history goes, 50 versions at most: a size below
	# the base's own ops (BENCH_OPS=10000) has only the base and the
	# record rounds' edits.
	back=$(($(cd "$d/hearth" && "$HEARTH" log --oneline | wc -l) - 1))
	[ $back -le 50 ] || back=50
	if [ $back -ge 1 ]; then
		bench_side hearth "hearth checkout head~$back" "$d/hearth" \
			'"$HEARTH" checkout head >/dev/null' "\"\$HEARTH\" checkout head~$back"
		bench_side git "git checkout HEAD~$back" "$d/git" 'git checkout -q main' \
			"git checkout -q HEAD~$back"
		bench_measure "$label ops" 'checkout old'
		(cd "$d/hearth" && "$HEARTH" checkout head >/dev/null)
		(cd "$d/git" && git checkout -q main)
	fi

	bench_side hearth 'hearth clone' "$d" \
		'[ ! -e hearth-clone ] || mv hearth-clone "$BENCH_TRASH/hearth-clone.$$"' \
		'"$HEARTH" clone hearth hearth-clone'
	bench_side git 'git clone --no-local' "$d" \
		'[ ! -e git-clone ] || mv git-clone "$BENCH_TRASH/git-clone.$$"' \
		'git clone -q --no-local git git-clone'
	[ -z "${at_goal:-}" ] || bench_goal seconds 20
	bench_measure "$label ops" clone

	bench_side hearth 'hearth sync' "$d/hearth-clone" '' '"$HEARTH" sync ../hearth'
	bench_side git 'git fetch' "$d/git-clone" '' 'git fetch -q origin'
	[ -z "${at_goal:-}" ] || bench_goal seconds 0.2
	bench_measure "$label ops" 'no-op sync' warm
	mv "$d/hearth-clone" "$BENCH_TRASH/hearth-clone.last"
	mv "$d/git-clone" "$BENCH_TRASH/git-clone.last"
	bench_empty_trash

	(cd "$d/hearth" && "$HEARTH" stats) | awk -v label="$label" '
		/^ops / { ops = $2 } /^versions / { versions = $2 }
		END { printf "#   at %s: the Home holds %s ops in %s versions\n", label, ops, versions }'
done

bench_done
