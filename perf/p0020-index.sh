#!/bin/sh
# p0020-index: the joined Home's index (issue 4 item 10): listing a folder,
# watching while idle, status with watching, the restart check.
#
# Measurements:
#   first page of 50      perf/index-bench list: hearth_list (the call the
#                         app's Home view makes) for the first 50 entries of
#                         SAMPLES folders spread over a metadata-only index
#                         (index-bench fill: rows of the working-tree index,
#                         no files), each call timed alone in one process
#                         opened as the app opens the Home; p50 and p99 in
#                         microseconds, median over the runs; the process's
#                         peak RSS; beside them the p50 and p99 of the
#                         thread's CPU time per call (a wall time far above
#                         it is time the core went to another process).
#                         "first" is each folder's first listing,
#                         "warm" the same folders again. Sizes: quick 100
#                         folders x 10 x 100 files (101k entries); full 100 x
#                         100 x 100 (1.01M entries).
#   watch, idle           `hearth watch` on FILES files in FOLDERS folders,
#                         once it says the index is current: CPU seconds it
#                         uses while nothing changes for IDLE seconds
#                         (/proc/PID/stat). Quick 10k files, 100 folders, 10 s;
#                         full 100k, 1k, 60 s.
#   status, watched       hearth status with that watch running | git status
#                         of a copy of the tree, clean.
#   record one edit,      (before each run: one line appended to one file,
#     watched             then 1 s for the watch to see it, untimed)
#                         hearth record with that watch running
#                         | git commit -q -a (the same line appended)
#   restart check         hearth watch --check (stats every folder the last
#                         walk stamped) | git status; and the full walk that
#                         follows it, hearth watch --once.
#   filter                perf/index-bench find: hearth_find_names (the Home
#                         view's filter over the whole index) 200 times in
#                         one process, p50 and p99 per call; and one process
#                         that opens the Home and calls it once | git
#                         ls-files | grep -c for the same text.
# Goals (issue 4): first page p50 <= 50 us, p99 <= 100 us, RSS <= 30 MiB at
# 1M entries; idle watch under 0.1 % of one core; status with watching at
# 100k files <= 20 ms. Issue 5: record of one edit at 100k files <= 0.6 x
# git's (the app runs a watch, so this is the record its user waits for).
#
# index-bench is built here against the static libraries beside HEARTH_BIN
# (bench_build_tool in lib.sh).
. "$(dirname "$0")/lib.sh"

IB=$(bench_build_tool index-bench index-bench.c)

# Prints a row whose figures are not wall seconds (the list and CPU rows).
bench_note() {
	bench_row_format "$bench_case" "$1" "$2" "$3" "$4" - - - "$5" - "$6"
	if [ -n "${BENCH_TSV:-}" ]; then
		printf '%s\t%s\t%s\t%s\t%s\t\t\t-\t-\t-\t-\t-\t%s\t-\t%s\t\t-\n' "$bench_case" "$1" \
			"$2" "$3" "$4" "$5" "$6" >>"$BENCH_TSV"
	fi
}

median() {
	sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# ---- listing ---------------------------------------------------------------

shape=$(bench_pick "100 10 100" "100 100 100")
samples=$(bench_pick 1000 2000)
set -- $shape
entries=$(($1 + $1 * $2 + $1 * $2 * $3))
label=$(bench_count_label "$entries")
[ "$entries" -lt 1000000 ] || label=$(awk -v n="$entries" 'BEGIN { printf "%.2fM", n / 1e6 }')
home=$bench_dir/list-home
"$HEARTH" init "$home" >/dev/null
"$IB" fill "$home/.hearth" "$@" >/dev/null
: >"$bench_dir/list.out"
run=1
while [ $run -le "$BENCH_RUNS" ]; do
	"$IB" list "$home" "$samples" 50 >>"$bench_dir/list.out"
	run=$((run + 1))
done
for pass in first warm; do
	p50=$(awk -v p=$pass '$1 == p { print $3 }' "$bench_dir/list.out" | median)
	p99=$(awk -v p=$pass '$1 == p { print $5 }' "$bench_dir/list.out" | median)
	cpu50=$(awk -v p=$pass '$1 == p { print $9 }' "$bench_dir/list.out" | median)
	cpu99=$(awk -v p=$pass '$1 == p { print $11 }' "$bench_dir/list.out" | median)
	rss=$(awk '$1 == "rss_mib" && $2 > m { m = $2 } END { print m }' "$bench_dir/list.out")
	goal=$(awk -v a="$p50" -v b="$p99" -v r="$rss" 'BEGIN {
		printf "p50 <= 50 us: %s; p99 <= 100 us: %s; RSS <= 30 MiB: %s",
		    (a <= 50) ? "met" : "MISSED", (b <= 100) ? "met" : "MISSED", (r <= 30) ? "met" : "MISSED" }')
	bench_note "$label entries" "first page of 50, $pass" "hearth_list ($samples folders)" \
		"p50 $p50 us, p99 $p99 us (CPU $cpu50, $cpu99)" "$rss MiB" "$goal"
done
rm -rf "$home"

# ---- a real tree: watch idle, status with watching, restart check ----------

files=$(bench_pick 10000 100000)
folders=$(bench_pick 100 1000)
idle=$(bench_pick 10 60)
label="$(bench_count_label "$files") files"
d=$bench_dir/tree
mkdir -p "$d"
bench_settle
"$IB" tree "$d/hearth" "$files" "$folders"
cp -a "$d/hearth" "$d/git"
(cd "$d/hearth" && "$HEARTH" init . >/dev/null && "$HEARTH" record -m first >/dev/null)
(cd "$d/git" && git init -q && git add -A && git commit -q -m first)

(cd "$d/hearth" && exec "$HEARTH" watch >"$bench_dir/watch.log" 2>&1) &
watch_pid=$!
stop_watch() {
	kill -TERM "$watch_pid" 2>/dev/null || true
	wait "$watch_pid" 2>/dev/null || true
}
tries=0
until grep -q '^current' "$bench_dir/watch.log"; do
	tries=$((tries + 1))
	if [ $tries -gt 1200 ] || ! kill -0 "$watch_pid" 2>/dev/null; then
		echo "perf: the watch never said the index is current:" >&2
		cat "$bench_dir/watch.log" >&2
		stop_watch
		exit 1
	fi
	sleep 0.1
done
# Its last page committed; what it does from here on is idling.
sleep 3
set -- $("$IB" cpu "$watch_pid" "$idle")
cpu_s=$2 share=$4
goal=$(awk -v s="$share" 'BEGIN { printf "< 0.1 %% of a core: %s", (s < 0.1) ? "met" : "MISSED" }')
rss=$(awk '/^VmHWM/ { printf "%.1f", $2 / 1024 }' "/proc/$watch_pid/status")
bench_note "$label, $folders folders" "watch, idle $idle s" "hearth watch" \
	"$cpu_s CPU s ($share % of a core)" "$rss MiB" "$goal"

bench_side hearth 'hearth status (watched)' "$d/hearth" '' '"$HEARTH" status'
bench_side git 'git status' "$d/git" '' 'git status'
[ "$files" -lt 100000 ] || bench_goal seconds 0.020
bench_measure "$label" 'status with watching' warm
(cd "$d/hearth" && "$HEARTH" status | grep -q "From the watched index") ||
	echo "# p0020: WARNING: status did not answer from the watched index" >&2

edited=$(cd "$d/git" && find . -name .git -prune -o -type f -print | head -n 1)
bench_side hearth 'hearth record (watched)' "$d/hearth" \
	"echo \"edit \$BENCH_RUN\" >>'$edited' && sleep 1" '"$HEARTH" record -m edit'
bench_side git 'git commit -a' "$d/git" \
	"echo \"edit \$BENCH_RUN\" >>'$edited'" 'git commit -q -a -m edit'
[ "$files" -lt 100000 ] || bench_goal ratio 0.6 git
bench_measure "$label" 'record one edit, watched'
(cd "$d/hearth" && "$HEARTH" status --porcelain | grep -qv '^#') &&
	echo "# p0020: WARNING: a change is left unrecorded after record with watching" >&2
stop_watch

bench_side hearth 'hearth watch --check' "$d/hearth" '' '"$HEARTH" watch --check'
bench_side git 'git status' "$d/git" '' 'git status'
bench_measure "$label" 'restart check' warm

bench_side hearth 'hearth watch --once' "$d/hearth" '' '"$HEARTH" watch --once'
bench_side git 'git status' "$d/git" '' 'git status'
bench_measure "$label" 'full walk after it' warm

# The Home view's filter (issue 15): every name of the index that holds
# the text, at the app's limit, per keystroke (in one process, as the app
# calls it), and once per process beside git's index scanned for the same
# text (its paths hold the folders' names too, so it finds a few more).
filter=00042
"$IB" find "$d/hearth" "$filter" 200 >"$bench_dir/find.out"
set -- $(cat "$bench_dir/find.out")
bench_note "$label" "filter \"$filter\", per keystroke" "hearth_find_names (200 calls)" \
	"p50 $3 us, p99 $5 us (CPU $9, ${11}); ${13} paths" "${15} MiB" "-"
bench_side hearth 'index-bench find (open + one call)' "$d/hearth" '' "'$IB' find . $filter 1"
bench_side git "git ls-files | grep -c $filter" "$d/git" '' "git ls-files | grep -c $filter"
bench_measure "$label" 'filter, one process' warm

rm -rf "$d"
bench_done
