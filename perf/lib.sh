# perf/lib.sh: the shared runner of hearth's benchmark cases, in the manner
# of git's t/perf/perf-lib.sh. A case (perf/pNNNN-name.sh) sources it, builds
# its fixtures once ($BT is perf/bench-tool), then for each measurement
# names the sides and measures them interleaved:
#
#   bench_side hearth 'hearth record' "$home" \
#       'mv .hearth "$BENCH_TRASH/$$" && "$HEARTH" init . >/dev/null' \
#       '"$HEARTH" record -m first'
#   bench_side git 'git add -A && git commit' "$repo" \
#       'mv .git "$BENCH_TRASH/$$" && git init -q' 'git add -A && git commit -q -m first'
#   bench_goal ratio 0.5 git
#   bench_measure 10k 'first record'
#
# The first side is hearth, the subject; every other side is a peer. Each
# run does, for every side in turn (A B A B ...): its preparation (untimed,
# in its folder), sync(1), then its command (timed, in its folder, output
# to /dev/null; $BENCH_RUN is the run's number, 0 for a warm-up). One row is
# printed per peer: hearth's median (min-max) wall seconds, the peer's, the
# ratio of the medians, and the largest peak RSS of each (the command and
# every process it waited for). A side with no peer prints one row alone.
#
# Environment:
#   HEARTH_BIN         the hearth binary (required)
#   HEARTH_BENCH_TOOL  perf/bench-tool built with the release flags (built
#                      here with ${CC:-cc} when unset)
#   BENCH_SIZE         quick (default) or full
#   BENCH_RUNS         timed runs per side (default 5; fewer only to debug)
#   BENCH_COMMIT       what to call the measured source in the header
#                      (default: this tree's commit, marked when dirty)
#   BENCH_MEASURE      only time the measurements whose name matches this
#                      extended regular expression (e.g. 'first record|clean
#                      status'); the others run once, untimed, for what they
#                      leave behind (the next measurement may need it)
#   BENCH_TSV          also append every row, tab-separated, to this file,
#                      with each side's run times in run order
#   BENCH_KEEP         1: keep the scratch folder (its path is printed)
#   BENCH_VERBOSE      1: print each side's exact commands before its row
#   BENCH_SYNC         0: skip the sync(1) between a preparation and its run
#   BENCH_SETTLE       seconds to wait after emptying the trash (default 65
#                      at full sizes, 0 at quick ones, which only show that
#                      each case runs: `make bench` stays under 15 minutes)
#   TMPDIR             where the scratch folder is made (default /tmp)
#
# Absolute times on a shared machine drift, and a file system's creation
# rate swings after big deletes; the interleaving and the ratios are what
# to read.

set -eu

bench_perf_dir=$(cd "$(dirname "$0")" && pwd)
bench_source_dir=$(cd "$bench_perf_dir/.." && pwd)
bench_case=$(basename "$0" .sh)

BENCH_SIZE=${BENCH_SIZE:-quick}
BENCH_RUNS=${BENCH_RUNS:-5}
case $BENCH_SIZE in
quick|full) ;;
*) echo "perf: BENCH_SIZE must be quick or full, not '$BENCH_SIZE'" >&2; exit 2 ;;
esac
if [ -z "${HEARTH_BIN:-}" ] || [ ! -x "${HEARTH_BIN:-}" ]; then
	echo "perf: set HEARTH_BIN to a built hearth (make bench does)" >&2
	exit 2
fi
HEARTH=$(cd "$(dirname "$HEARTH_BIN")" && pwd)/$(basename "$HEARTH_BIN")
export HEARTH

bench_failed=0

# ---- the scratch folder and a private environment ------------------------

# run.sh makes one scratch folder for all cases; a case run alone makes its
# own. Whoever made it removes it.
if [ -z "${BENCH_SCRATCH:-}" ]; then
	BENCH_SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/hearth-bench.XXXXXX")
	bench_own_scratch=1
	export BENCH_SCRATCH
else
	bench_own_scratch=0
fi

bench_cleanup() {
	if [ "$bench_own_scratch" = 1 ]; then
		if [ "${BENCH_KEEP:-0}" = 1 ]; then
			echo "# scratch kept: $BENCH_SCRATCH"
		else
			rm -rf "$BENCH_SCRATCH"
		fi
	fi
}
trap bench_cleanup EXIT
trap 'exit 130' INT TERM

# Neither tool may see the user's settings. Git keeps its defaults except
# automatic gc and maintenance, which would pack in the background of the
# next measurement; hearth keeps its defaults (durability group).
mkdir -p "$BENCH_SCRATCH/home"
HOME=$BENCH_SCRATCH/home
XDG_CONFIG_HOME=$HOME/.config
GIT_CONFIG_NOSYSTEM=1
export HOME XDG_CONFIG_HOME GIT_CONFIG_NOSYSTEM
unset HEARTH_CONFIG GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE NO_COLOR 2>/dev/null || true
if [ ! -f "$HOME/.gitconfig" ]; then
	git config --global user.name bench
	git config --global user.email bench@example.invalid
	git config --global init.defaultBranch main
	git config --global gc.auto 0
	git config --global maintenance.auto false
	git config --global advice.detachedHead false
fi

if [ -z "${HEARTH_BENCH_TOOL:-}" ]; then
	HEARTH_BENCH_TOOL=$BENCH_SCRATCH/bench-tool
	if [ ! -x "$HEARTH_BENCH_TOOL" ]; then
		${CC:-cc} -std=c11 -O2 -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 -I"$bench_source_dir" \
		    -o "$HEARTH_BENCH_TOOL" "$bench_perf_dir/bench-tool.c" -lm
	fi
	export HEARTH_BENCH_TOOL
fi
BT=$HEARTH_BENCH_TOOL

# A case's own folder under the scratch folder, removed at the case's end.
bench_dir=$BENCH_SCRATCH/$bench_case
rm -rf "$bench_dir"
mkdir -p "$bench_dir"

# Deleting many files slows creating files afterwards: this scratch disk is
# ext4 without a journal, whose inode allocator skips every inode freed in
# the last 60 s (360 s while its table block is dirty), reading its
# table block each time. So nothing is deleted between timed runs: a
# preparation moves what it replaces into the trash (one rename, e.g.
# mv .git "$BENCH_TRASH/$$"), a run writes into a new folder there, and
# bench_empty_trash empties it after a measurement. bench_settle, before
# making many files, waits until BENCH_SETTLE seconds (65 at full sizes) have
# passed since the last emptying of any case's trash.
BENCH_TRASH=$bench_dir/trash
mkdir -p "$BENCH_TRASH"
export BENCH_TRASH

# bench_build_tool NAME SOURCE: builds perf/SOURCE into $bench_dir/NAME
# against the static libraries beside HEARTH_BIN (a `make O=DIR` build
# leaves DIR/hearth beside DIR/libbackend.a; for the top-level ./hearth of
# build/release, set HEARTH_LIB_DIR=build/release) and prints its path.
bench_build_tool() {
	lib_dir=${HEARTH_LIB_DIR:-$(dirname "$HEARTH")}
	if [ ! -f "$lib_dir/libbackend.a" ] && [ -f "$bench_source_dir/build/release/libbackend.a" ] &&
		[ "$(dirname "$HEARTH")" = "$bench_source_dir" ]; then
		lib_dir=$bench_source_dir/build/release
	fi
	if [ ! -f "$lib_dir/libbackend.a" ]; then
		echo "perf: $bench_case needs libbackend.a beside HEARTH_BIN (or HEARTH_LIB_DIR)" >&2
		exit 1
	fi
	# shellcheck disable=SC2046
	${CC:-cc} -std=c11 -O2 -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 -I"$bench_source_dir" \
		-o "$bench_dir/$1" "$bench_perf_dir/$2" "$lib_dir/libbackend.a" \
		"$lib_dir/libmodel.a" "$lib_dir/libconfig.a" \
		$(pkg-config --libs yaml-0.1 sqlite3 libzstd libcrypto) -lpthread -lm >&2
	echo "$bench_dir/$1"
}

bench_empty_trash() {
	rm -rf "$BENCH_TRASH"
	mkdir -p "$BENCH_TRASH"
	sync
	date +%s >"$BENCH_SCRATCH/last-delete"
}

bench_settle() {
	[ -f "$BENCH_SCRATCH/last-delete" ] || return 0
	remaining=$((${BENCH_SETTLE:-$(bench_pick 0 65)} - ($(date +%s) - $(cat "$BENCH_SCRATCH/last-delete"))))
	[ "$remaining" -le 0 ] || sleep "$remaining"
}

# ---- the header --------------------------------------------------------------

bench_header() {
	[ "${BENCH_HEADER_DONE:-0}" = 1 ] && return 0
	BENCH_HEADER_DONE=1
	export BENCH_HEADER_DONE
	if [ -n "${BENCH_COMMIT:-}" ]; then
		commit=$BENCH_COMMIT
	else
		commit=$(git -C "$bench_source_dir" rev-parse --short HEAD 2>/dev/null || echo unknown)
		if [ -n "$(git -C "$bench_source_dir" status --porcelain --untracked-files=no \
			-- backend model config themes tui 2>/dev/null)" ]; then
			commit="$commit + uncommitted changes"
		fi
	fi
	probe=$BENCH_SCRATCH/durability-probe
	rm -rf "$probe"
	"$HEARTH" init "$probe" >/dev/null
	durability=$(cd "$probe" && "$HEARTH" config check 2>/dev/null |
		sed -n 's/^durability: *//p')
	rm -rf "$probe"
	echo "# hearth benchmarks: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "# commit $commit; binary $HEARTH ($("$HEARTH" version 2>/dev/null || echo '?'))"
	echo "# machine: $(nproc) cores, $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p'), \
$(awk '/^MemTotal:/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo) RAM, kernel $(uname -r)"
	echo "# scratch: $BENCH_SCRATCH on $(df -hT "$BENCH_SCRATCH" | awk 'NR == 2 {print $2 " " $1 ", " $5 " used"}')"
	echo "# hearth durability: ${durability:-?} (as configured by default); \
git: defaults (core.fsync unset) with gc.auto=0 and maintenance.auto=false"
	echo "# $(git --version), $(rsync --version | head -1 | sed 's/  */ /g; s/ protocol.*//')"
	echo "# load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "# size $BENCH_SIZE, $BENCH_RUNS timed runs per side, interleaved; wall seconds \
median (min-max); ratio = hearth median / peer median; RSS = largest peak over the runs; \
noisy = a side's max exceeds its min by more than half its median"
	bench_row_format case size measurement hearth "hearth s" peer "peer s" \
		ratio "hearth RSS" "peer RSS" goal
	bench_row_format ---- ---- ----------- ------ -------- ---- ------ \
		----- ---------- -------- ----
}

bench_row_format() {
	printf '| %-12s | %-13s | %-27s | %-15s | %-20s | %-24s | %-20s | %-6s | %-10s | %-10s | %s |\n' \
		"$@"
}

# ---- sides, goals, measurements ----------------------------------------------

bench_sides=0
bench_goal_kind=
bench_goal_limit=
bench_goal_peer=

# bench_side NAME LABEL DIR PREPARE COMMAND
# PREPARE runs untimed before every run (may be ''); both run in DIR under
# sh -c with $HEARTH set. NAME is hearth for the subject.
bench_side() {
	bench_sides=$((bench_sides + 1))
	eval "bench_side_name_$bench_sides=\$1"
	eval "bench_side_label_$bench_sides=\$2"
	eval "bench_side_dir_$bench_sides=\$3"
	eval "bench_side_prepare_$bench_sides=\$4"
	eval "bench_side_command_$bench_sides=\$5"
}

# bench_goal ratio LIMIT PEER | seconds LIMIT | rss LIMIT_MIB
# A goal for the next measurement: the ratio to PEER (its NAME) at most LIMIT;
# hearth's median at most LIMIT seconds; hearth's peak RSS at most LIMIT MiB.
bench_goal() {
	bench_goal_kind=$1
	bench_goal_limit=$2
	bench_goal_peer=${3:-}
}

# Runs one side once: its preparation, then its command under the timer.
bench_once() {
	eval "dir=\$bench_side_dir_$1 prepare=\$bench_side_prepare_$1 command=\$bench_side_command_$1"
	log=$bench_dir/side-$1.log
	if [ -n "$prepare" ] && ! (cd "$dir" && sh -c "$prepare") >>"$log" 2>&1; then
		echo "perf: preparation failed: $prepare (in $dir)" >&2
		tail -5 "$log" >&2
		return 1
	fi
	# Every side starts with nothing dirty: hearth's durability barrier
	# (fsync, syncfs) must not pay for what the previous side left unwritten.
	[ "${BENCH_SYNC:-1}" = 0 ] || sync
	(cd "$dir" && "$BT" time "$bench_dir/side-$1.times" sh -c "$command") >/dev/null 2>>"$log" ||
		{
			echo "perf: command failed: $command (in $dir)" >&2
			tail -5 "$log" >&2
			return 1
		}
}

# Prints "MEDIAN MIN MAX RSS_MIB" of a times file.
bench_stats() {
	awk '{ t[NR] = $1; if ($2 > rss) rss = $2 }
	     END {
		n = NR
		for (i = 2; i <= n; i++) { v = t[i]; for (j = i - 1; j > 0 && t[j] > v; j--) t[j + 1] = t[j]; t[j + 1] = v }
		median = n % 2 ? t[(n + 1) / 2] : (t[n / 2] + t[n / 2 + 1]) / 2
		printf "%.3f %.3f %.3f %.1f\n", median, t[1], t[n], rss / 1024
	     }' "$1"
}

bench_goal_text() {
	# $1 median, $2 rss, $3 ratio (or -), $4 this row's peer name
	case $bench_goal_kind in
	ratio)
		[ "$4" = "$bench_goal_peer" ] || return 0
		verdict=$(awk -v r="$3" -v l="$bench_goal_limit" 'BEGIN { print ((r <= l) ? "met" : "MISSED") }')
		echo "ratio <= $bench_goal_limit: $verdict" ;;
	seconds)
		verdict=$(awk -v t="$1" -v l="$bench_goal_limit" 'BEGIN { print ((t <= l) ? "met" : "MISSED") }')
		echo "<= $bench_goal_limit s: $verdict" ;;
	rss)
		verdict=$(awk -v m="$2" -v l="$bench_goal_limit" 'BEGIN { print ((m <= l) ? "met" : "MISSED") }')
		echo "RSS <= $bench_goal_limit MiB: $verdict" ;;
	esac
}

# bench_measure SIZE MEASUREMENT [warm]
# Measures the sides named since the last measurement, interleaved, and
# prints a row per peer. With warm, every side runs once untimed first (for
# commands that only read, so the first timed run is not a cold start).
# Afterwards $bench_last_run is the $BENCH_RUN of the last run made.
bench_measure() {
	size=$1 measurement=$2 warm=${3:-}
	if [ -n "${BENCH_MEASURE:-}" ] && ! echo "$measurement" | grep -Eq -- "$BENCH_MEASURE"; then
		BENCH_RUN=0
		export BENCH_RUN
		i=1
		while [ $i -le $bench_sides ]; do
			bench_once $i || { bench_failed=1; break; }
			i=$((i + 1))
		done
		bench_last_run=0
		bench_reset
		return 0
	fi
	i=1
	while [ $i -le $bench_sides ]; do
		rm -f "$bench_dir/side-$i.times" "$bench_dir/side-$i.log"
		i=$((i + 1))
	done
	ok=1
	if [ "$warm" = warm ]; then
		BENCH_RUN=0
		export BENCH_RUN
		i=1
		while [ $ok = 1 ] && [ $i -le $bench_sides ]; do
			bench_once $i || ok=0
			i=$((i + 1))
		done
		i=1
		while [ $i -le $bench_sides ]; do
			rm -f "$bench_dir/side-$i.times"
			i=$((i + 1))
		done
	fi
	run=1
	while [ $ok = 1 ] && [ $run -le "$BENCH_RUNS" ]; do
		i=1
		while [ $ok = 1 ] && [ $i -le $bench_sides ]; do
			BENCH_RUN=$run
			export BENCH_RUN
			bench_once $i || ok=0
			i=$((i + 1))
		done
		run=$((run + 1))
	done
	bench_last_run=$BENCH_RUN
	if [ $ok = 0 ]; then
		bench_failed=1
		bench_row_format "$bench_case" "$size" "$measurement" FAILED "" "" "" "" "" "" ""
		bench_reset
		return 0
	fi
	set -- $(bench_stats "$bench_dir/side-1.times")
	h_median=$1 h_min=$2 h_max=$3 h_rss=$4
	eval "h_label=\$bench_side_label_1"
	if [ "${BENCH_VERBOSE:-0}" = 1 ]; then
		i=1
		while [ $i -le $bench_sides ]; do
			eval "echo \"#   \$bench_side_label_$i: prepare: \$bench_side_prepare_$i; timed: \$bench_side_command_$i\""
			i=$((i + 1))
		done
	fi
	i=2
	[ $bench_sides -ge 2 ] || i=1
	while [ $i -le $bench_sides ]; do
		if [ $i -ge 2 ]; then
			set -- $(bench_stats "$bench_dir/side-$i.times")
			p_median=$1 p_min=$2 p_max=$3 p_rss=$4
			eval "p_label=\$bench_side_label_$i p_name=\$bench_side_name_$i"
			ratio=$(awk -v a="$h_median" -v b="$p_median" 'BEGIN { printf "%.2f", (b > 0) ? a / b : 0 }')
			p_text="$p_median ($p_min-$p_max)"
			p_rss_text="$p_rss MiB"
		else
			p_label=- p_name=- ratio=- p_text=- p_rss_text=-
			p_median= p_min= p_max= p_rss=
		fi
		goal=
		if [ "$bench_goal_kind" = ratio ] || [ $i -le 2 ]; then
			goal=$(bench_goal_text "$h_median" "$h_rss" "$ratio" "$p_name")
		fi
		if awk -v m="$h_median" -v a="$h_min" -v b="$h_max" -v pm="${p_median:-0}" \
			-v pa="${p_min:-0}" -v pb="${p_max:-0}" \
			'BEGIN { exit !((b - a) > m / 2 || (pb - pa) > pm / 2) }'; then
			goal="${goal:+$goal; }noisy"
		fi
		bench_row_format "$bench_case" "$size" "$measurement" "$h_label" \
			"$h_median ($h_min-$h_max)" "$p_label" "$p_text" "$ratio" "$h_rss MiB" \
			"$p_rss_text" "$goal"
		if [ -n "${BENCH_TSV:-}" ]; then
			h_runs=$(awk '{ printf "%s%s", (NR > 1) ? "," : "", $1 }' "$bench_dir/side-1.times")
			p_runs=-
			[ $i -lt 2 ] || p_runs=$(awk '{ printf "%s%s", (NR > 1) ? "," : "", $1 }' \
				"$bench_dir/side-$i.times")
			printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
				"$bench_case" "$size" "$measurement" "$h_label" "$h_median" "$h_min" \
				"$h_max" "$p_label" "${p_median:--}" "${p_min:--}" "${p_max:--}" "$ratio" \
				"$h_rss" "${p_rss:--}" "$goal" "$h_runs" "$p_runs" >>"$BENCH_TSV"
		fi
		i=$((i + 1))
	done
	bench_reset
}

bench_reset() {
	bench_sides=0
	bench_goal_kind=
	bench_goal_limit=
	bench_goal_peer=
}

# The sizes of this run: bench_pick QUICK_LIST FULL_LIST
bench_pick() {
	if [ "$BENCH_SIZE" = full ]; then echo "$2"; else echo "$1"; fi
}

# 1000 -> 1k, 100000 -> 100k
bench_count_label() {
	awk -v n="$1" 'BEGIN { if (n >= 1000000 && n % 1000000 == 0) print n / 1000000 "M";
		else if (n >= 1000 && n % 1000 == 0) print n / 1000 "k"; else print n }'
}

# Ends a case: removes its folder and reports failure.
bench_done() {
	rm -rf "$bench_dir"
	sync
	date +%s >"$BENCH_SCRATCH/last-delete"
	return $bench_failed
}

bench_header
