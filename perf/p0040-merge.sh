#!/bin/sh
# p0040-merge: concurrent edits of one text file merged by line (issue 16,
# deliverable 6), beside git merge-file and diff3, and beside the seed's
# line-CRDT figures (perf/RESULTS.md).
#
# Measurements:
#   merge two versions   `merge-bench make` writes a 10 000-line base and
#                        two versions of it with 500 line edits each at
#                        random lines (rewrites, some insertions and
#                        deletions; where both touch one line they
#                        overlap). Timed, one process each, interleaved:
#                        merge-bench file (model/merge.c, markers around
#                        overlaps) | git merge-file -p | diff3 -m. Then
#                        merge-bench pair: the merge alone in process
#                        (median of 21), and its peak RSS.
#   replicas             R replicas of a Home with one file of L lines;
#                        every round each replica checks out, rewrites E/N
#                        random lines of the file and records, then the
#                        replicas sync in a ring (i with i+1) or a star (each
#                        with replica 0), each sync timed. N rounds, then
#                        the topology's syncs again until nothing moves
#                        (a conflict still listed is settled by --mine, or
#                        --theirs where no side is the replica's own);
#                        every replica's file must be equal. Printed: total
#                        and slowest sync, the merges made, the distinct
#                        content conflicts seen after syncs, and the edits that truly
#                        overlapped (two replicas rewrote one line from one
#                        version of it, neither seeing the other's).
#                        quick: R=5 E=100 N=5 L=2000; full: R=20 E=500
#                        N=20 L=10000 (BENCH_MERGE_REPLICAS="R E N L").
#   a real history       man/hearth.1's versions in this repository: for
#                        each version after the first, the hunks of its
#                        diff from the one before are split between two
#                        replicas (odd and even), each records its half, one
#                        syncs the other; the merged file must be that
#                        version. quick: the last 10; full: all of them.
. "$(dirname "$0")/lib.sh"

MB=$(bench_build_tool merge-bench merge-bench.c)
export MB

# ---- one merge -----------------------------------------------------------------------

d=$bench_dir/pair
mkdir -p "$d"
"$MB" make "$d" 10000 500 16
bench_side hearth 'merge-bench file (model/merge.c)' "$d" ':' '"$MB" file base mine theirs'
bench_side git 'git merge-file -p' "$d" ':' 'git merge-file -p mine base theirs || :'
bench_side diff3 'diff3 -m' "$d" ':' 'diff3 -m mine base theirs || :'
bench_measure "10k lines, 2x500 edits" 'merge two versions' warm
(cd "$d" && "$MB" pair base mine theirs 21) | awk '
	{ v[$1] = $2 }
	END { printf "# p0040 in process: merge_lines median %s ms (min %s, max %s), %s overlaps, peak RSS %.1f MiB\n",
	    v["median_ms"], v["min_ms"], v["max_ms"], v["overlaps"], v["peak_rss_kib"] / 1024 }'
git_conflicts=$(cd "$d" && git merge-file -p mine base theirs 2>/dev/null | grep -c "^<<<<<<<" || :)
echo "# p0040 the same pair: git merge-file leaves $git_conflicts conflict(s) (it takes edits of adjacent lines as one)"

# ---- replicas ----------------------------------------------------------------------------

set -- ${BENCH_MERGE_REPLICAS:-$(bench_pick "5 100 5 2000" "20 500 20 10000")}
replicas=$1 edits=$2 rounds=$3 lines=$4
per_round=$((edits / rounds))

ns_now() { date +%s%N; }

# edit_file FILE WHO ROUND SEED: rewrites per_round random lines "K:TAG" as
# "K:WHO.ROUND", logging "K OLDTAG NEWTAG" to the edits log.
edit_file() {
	awk -v who="$2" -v round="$3" -v seed="$4" -v n="$per_round" -v logfile="$topo_dir/edits.log" '
		{ line[NR] = $0 }
		END {
			srand(seed)
			for (i = 0; i < n; i++) pick[int(rand() * NR) + 1] = 1
			for (k = 1; k <= NR; k++) {
				if (k in pick) {
					split(line[k], part, ":")
					new = who "." round
					print part[1], part[2], new >>logfile
					print part[1] ":" new
				} else print line[k]
			}
		}' "$1" >"$1.new" && mv "$1.new" "$1"
}

# sync_timed I J: replica I syncs with J, both ways; times and counts it.
sync_timed() {
	start=$(ns_now)
	(cd "$topo_dir/r$1" && "$HEARTH" sync --porcelain "../r$2") >"$topo_dir/sync.out"
	took=$(( $(ns_now) - start ))
	echo "$took" >>"$topo_dir/sync.times"
	grep "^files_merged" "$topo_dir/sync.out" | awk '{ print $2 }' >>"$topo_dir/merges"
	# Each content conflict as the set of its sides, to count distinct ones.
	(cd "$topo_dir/r$1" && "$HEARTH" conflicts --porcelain) | awk '
		/ content / { if (sides != "") print sides; sides = "c"; next }
		/^  / && sides != "" { sides = sides " " $1 ":" $2; next }
		{ if (sides != "") print sides; sides = "" }
		END { if (sides != "") print sides }' >>"$topo_dir/conflicted"
}

topology_syncs() {
	i=0
	while [ $i -lt $replicas ]; do
		if [ "$1" = ring ]; then
			sync_timed $i $(( (i + 1) % replicas ))
		elif [ $i -gt 0 ]; then
			sync_timed $i 0
		fi
		i=$((i + 1))
	done
}

run_topology() {
	topo_dir=$bench_dir/$1
	mkdir -p "$topo_dir/r0"
	: >"$topo_dir/sync.times"
	: >"$topo_dir/merges"
	: >"$topo_dir/conflicted"
	: >"$topo_dir/edits.log"
	awk -v n="$lines" 'BEGIN { for (k = 1; k <= n; k++) print k ":base" }' >"$topo_dir/r0/notes.txt"
	(cd "$topo_dir/r0" && "$HEARTH" init . >/dev/null && "$HEARTH" record -m base >/dev/null)
	i=1
	while [ $i -lt $replicas ]; do
		"$HEARTH" clone "$topo_dir/r0" "$topo_dir/r$i" >/dev/null
		i=$((i + 1))
	done
	started=$(ns_now)
	round=1
	while [ $round -le $rounds ]; do
		i=0
		while [ $i -lt $replicas ]; do
			(cd "$topo_dir/r$i" && "$HEARTH" checkout >/dev/null) &&
			edit_file "$topo_dir/r$i/notes.txt" "r$i" $round $((round * 1000 + i)) &&
			(cd "$topo_dir/r$i" && "$HEARTH" record -m "r$i round $round" >/dev/null)
			i=$((i + 1))
		done
		topology_syncs "$1"
		round=$((round + 1))
	done
	rounds_done=$(ns_now)
	# Until nothing moves; a conflict left is settled where it is listed.
	pass=0
	while [ $pass -lt 6 ]; do
		topology_syncs "$1"
		topology_syncs "$1"
		left=0
		i=0
		while [ $i -lt $replicas ]; do
			if (cd "$topo_dir/r$i" && "$HEARTH" conflicts --porcelain) | grep -q " content "; then
				(cd "$topo_dir/r$i" && "$HEARTH" checkout >/dev/null &&
				    { "$HEARTH" resolve --mine notes.txt >/dev/null 2>&1 ||
				      "$HEARTH" resolve --theirs notes.txt >/dev/null; })
				left=$((left + 1))
			fi
			i=$((i + 1))
		done
		[ $left -gt 0 ] || break
		pass=$((pass + 1))
	done
	equal=yes
	i=0
	while [ $i -lt $replicas ]; do
		(cd "$topo_dir/r$i" && "$HEARTH" checkout >/dev/null)
		cmp -s "$topo_dir/r0/notes.txt" "$topo_dir/r$i/notes.txt" || equal=no
		i=$((i + 1))
	done
	total_ms=$(( (rounds_done - started) / 1000000 ))
	syncs=$(wc -l <"$topo_dir/sync.times")
	slowest=$(sort -n "$topo_dir/sync.times" | tail -n 1 | awk '{ printf "%.3f", $1 / 1e9 }')
	sync_sum=$(awk '{ s += $1 } END { printf "%.2f", s / 1e9 }' "$topo_dir/sync.times")
	merges=$(awk '{ s += $1 } END { print s + 0 }' "$topo_dir/merges")
	conflicted=$(sort -u "$topo_dir/conflicted" | wc -l)
	overlaps=$(awk '{ n[$1 " " $2]++ } END { for (k in n) s += n[k] - 1; print s + 0 }' "$topo_dir/edits.log")
	printf '# p0040 %s: %d replicas x %d edits, %d rounds, %d lines: rounds %.2f s; %d syncs in all took %s s, the slowest %s s; %d merges; %d distinct content conflicts seen after syncs; %d edits truly overlapped; every file equal: %s\n' \
	    "$1" "$replicas" "$edits" "$rounds" "$lines" "$(awk -v t="$total_ms" 'BEGIN { print t / 1000 }')" \
	    "$syncs" "$sync_sum" "$slowest" "$merges" "$conflicted" "$overlaps" "$equal"
	[ "$equal" = yes ] || bench_failed=1
}

run_topology ring
run_topology star

# ---- a real file's history ---------------------------------------------------------------

h=$bench_dir/history
mkdir -p "$h"
if git -C "$bench_source_dir" rev-parse --git-dir >/dev/null 2>&1; then
	git -C "$bench_source_dir" log --format=%H --reverse -- man/hearth.1 >"$h/versions"
	take=$(bench_pick 11 100000)
	tail -n "$take" "$h/versions" >"$h/used"
	pairs=0 clean=0 exact=0 sync_ns=0
	previous=
	while read -r version; do
		git -C "$bench_source_dir" show "$version:man/hearth.1" >"$h/new"
		if [ -n "$previous" ]; then
			rm -rf "$h/a" "$h/b"
			mkdir "$h/a" && cp "$h/old" "$h/a/hearth.1"
			(cd "$h/a" && "$HEARTH" init . >/dev/null && "$HEARTH" record -m old >/dev/null)
			"$HEARTH" clone "$h/a" "$h/b" >/dev/null
			# Odd hunks to a, even ones to b, applied by old line numbers;
			# a version of one hunk has nothing to split.
			diff -U0 "$h/old" "$h/new" >"$h/diff" || :
			if [ "$(grep -c "^@@ " "$h/diff")" -lt 2 ]; then
				cp "$h/new" "$h/old"
				continue
			fi
			for side in a b; do
				awk -v want="$side" -v diff="$h/diff" '
					BEGIN {
						while ((getline l < diff) > 0) {
							if (l ~ /^@@ /) {
								n++; split(l, f, " "); split(substr(f[2], 2), o, ",")
								start[n] = o[1]; count[n] = (o[2] == "") ? 1 : o[2]
								if (count[n] == 0) start[n]++
								keep[n] = (want == "a") == (n % 2 == 1)
							} else if (n > 0 && l ~ /^\+/) add[n] = add[n] substr(l, 2) "\n"
						}
					}
					{ old[NR] = $0 }
					END {
						h = 1
						for (k = 1; k <= NR + 1; k++) {
							while (h <= n && start[h] == k) {
								if (keep[h]) { printf "%s", add[h]; skip = count[h] } else skip = 0
								h++
								break
							}
							if (skip > 0) { skip--; continue }
							if (k <= NR) print old[k]
						}
					}' "$h/old" >"$h/$side/hearth.1"
				(cd "$h/$side" && "$HEARTH" record -m "$side half" >/dev/null)
			done
			start=$(ns_now)
			(cd "$h/b" && "$HEARTH" sync --porcelain ../a) >"$h/sync.out"
			sync_ns=$((sync_ns + $(ns_now) - start))
			pairs=$((pairs + 1))
			if grep -q "^files_merged 1" "$h/sync.out"; then
				clean=$((clean + 1))
				(cd "$h/b" && "$HEARTH" checkout >/dev/null)
				! cmp -s "$h/b/hearth.1" "$h/new" || exact=$((exact + 1))
			fi
		fi
		cp "$h/new" "$h/old"
		previous=$version
	done <"$h/used"
	printf '# p0040 man/hearth.1 history: %d versions of two hunks or more, each split in two halves: %d merged with no conflict, %d equal to the real version, syncs %.2f s in all\n' \
	    "$pairs" "$clean" "$exact" "$(awk -v t="$sync_ns" 'BEGIN { print t / 1e9 }')"
else
	echo "# p0040 man/hearth.1 history: left out (the source is not a git work tree)"
fi

bench_done
