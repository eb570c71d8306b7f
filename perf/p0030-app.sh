#!/bin/sh
# p0030-app: the full-screen app's own timings (issue 5 "app").
#
# Fixture: `bench-tool tree DIR N 1` recorded as a Home, with one file
# edited since (so the Home view has a mark to show). Sizes: quick 10k
# files; full 100k (BENCH_FILES="..." overrides). BENCH_APP_HOME=DIR
# measures an existing Home instead, such as the 1M-op one p0003-ops leaves
# with BENCH_KEEP=1.
#
# Each of BENCH_RUNS runs starts the app in a tmux pane of 120x40 with
# HEARTH_APP_TIMINGS set (tui/app.c): it writes "first-screen MS" when its
# first screen is drawn, with the current view built, and "key NAME MS" for
# each key from its arrival to the end of the repaint that shows it. The
# run waits for the first screen, then sends 60 keys one at a time, each
# once the previous one is timed: down and up the history (j, k), half a
# page down (Ctrl-d), the Home view (3), down it opening folders (l), the
# other views (1, 2, 4), and quits. There is no peer: no other tool has this screen.
# Goals (issue 5, on the 1M-op, 100k-file Home): first complete screen
# <= 100 ms; key to repaint <= 16 ms at the 99th percentile.
. "$(dirname "$0")/lib.sh"

command -v tmux >/dev/null || { echo "perf: p0030-app needs tmux (make deps)" >&2; exit 2; }

app_dir=$bench_dir/tmux
mkdir -p "$app_dir"
app_socket=$app_dir/socket
app_tmux() { tmux -S "$app_socket" "$@"; }
trap 'app_tmux kill-server >/dev/null 2>&1 || :' EXIT

# app_lines FILE PATTERN COUNT: waits (up to 30 s) until FILE holds COUNT
# lines matching PATTERN.
app_lines() {
	tries=300
	while [ "$(grep -c -E "$2" "$1" 2>/dev/null || :)" -lt "$3" ]; do
		tries=$((tries - 1))
		[ $tries -gt 0 ] || { echo "perf: the app never wrote $3 of '$2' to $1" >&2; return 1; }
		sleep 0.1
	done
}

# app_run HOME TIMINGS: one run of the app on HOME, its timings into TIMINGS.
app_run() {
	: >"$2"
	app_tmux kill-server >/dev/null 2>&1 || :
	app_tmux new-session -d -x 120 -y 40 -c "$1" \
	    "env TERM=tmux-256color HEARTH_APP_TIMINGS='$2' '$HEARTH'" || return 1
	app_lines "$2" '^first-screen ' 1 || return 1
	keys=0
	for key in j j j j j j j j j j k k k k k C-d C-d k k k 3 j j l j j l j j j \
	    j j j j j k k k k k 1 j j j 2 j 4 j 1 j j j j j j k k k k; do
		app_tmux send-keys "$key"
		keys=$((keys + 1))
		app_lines "$2" '^key ' $keys || return 1
	done
	app_tmux send-keys q
	sleep 0.2
	app_tmux kill-server >/dev/null 2>&1 || :
}

# app_measure LABEL HOME: the runs, then a row for the first screen and one
# for the keys.
app_measure() {
	all=$app_dir/all-keys
	: >"$all"
	: >"$app_dir/first"
	run=1
	while [ $run -le "$BENCH_RUNS" ]; do
		app_run "$2" "$app_dir/run.$run" || { bench_failed=1; return 0; }
		sed -n 's/^first-screen //p' "$app_dir/run.$run" >>"$app_dir/first"
		sed -n 's/^key [^ ]* //p' "$app_dir/run.$run" >>"$all"
		run=$((run + 1))
	done
	first=$(sort -n "$app_dir/first" | awk '
		{ t[NR] = $1 }
		END {
			median = NR % 2 ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2
			printf "%.1f ms (%.1f-%.1f)|<= 100 ms: %s\n", median, t[1], t[NR],
			    median <= 100 ? "met" : "MISSED"
		}')
	keys=$(sort -n "$all" | awk '
		{ t[NR] = $1 }
		END {
			p50 = t[int((NR - 1) * 0.50) + 1]; p99 = t[int((NR - 1) * 0.99) + 1]
			printf "p50 %.2f, p99 %.2f ms|p99 <= 16 ms: %s; %d keys, max %.2f ms\n",
			    p50, p99, p99 <= 16 ? "met" : "MISSED", NR, t[NR]
		}')
	bench_row_format p0030-app "$1" 'first complete screen' 'hearth (app)' \
	    "${first%%|*}" - - - - - "${first#*|}"
	bench_row_format p0030-app "$1" 'key to repaint' 'hearth (app)' \
	    "${keys%%|*}" - - - - - "${keys#*|}"
}

if [ -n "${BENCH_APP_HOME:-}" ]; then
	ops=$(cd "$BENCH_APP_HOME" && "$HEARTH" stats | awk '/^ops / { print $2 }')
	app_measure "$BENCH_APP_HOME ($ops ops)" "$BENCH_APP_HOME"
else
	for count in ${BENCH_FILES:-$(bench_pick "10000" "100000")}; do
		label=$(bench_count_label "$count")
		d=$bench_dir/$label
		mkdir -p "$d"
		"$BT" tree "$d/home" "$count" 1
		(cd "$d/home" && "$HEARTH" init . >/dev/null && "$HEARTH" record -m base >/dev/null)
		echo "edit" >>"$d/home/$("$BT" name 1 $((count / 2)))"
		app_measure "$label files" "$d/home"
		rm -rf "$d"
	done
fi

bench_done
