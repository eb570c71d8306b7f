#!/bin/sh
# perf/run.sh [CASE...]: runs hearth's benchmark cases (all of perf/p*.sh, or
# those named: p0001, p0001-files or files) in one scratch folder under
# ${TMPDIR:-/tmp}, removed at the end, and prints one table. `make bench`
# runs it with HEARTH_BIN set; BENCH_SIZE=full for the full sizes. See
# perf/lib.sh for every setting and perf/RESULTS.md for the latest figures.
set -eu

perf_dir=$(cd "$(dirname "$0")" && pwd)
if [ -z "${HEARTH_BIN:-}" ] || [ ! -x "${HEARTH_BIN:-}" ]; then
	echo "perf/run.sh: set HEARTH_BIN to a built hearth (make bench does)" >&2
	exit 2
fi

cases=
if [ $# = 0 ]; then
	cases=$(ls "$perf_dir"/p[0-9][0-9][0-9][0-9]-*.sh)
else
	for name in "$@"; do
		found=$(ls "$perf_dir"/p[0-9][0-9][0-9][0-9]-*.sh | grep -E "/($name|$name-.*|p[0-9]{4}-$name)\.sh$" || true)
		if [ -z "$found" ]; then
			echo "perf/run.sh: no case $name in $perf_dir" >&2
			exit 2
		fi
		cases="$cases $found"
	done
fi

BENCH_SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/hearth-bench.XXXXXX")
export BENCH_SCRATCH
trap 'if [ "${BENCH_KEEP:-0}" = 1 ]; then echo "# scratch kept: $BENCH_SCRATCH"; else rm -rf "$BENCH_SCRATCH"; fi' EXIT
trap 'exit 130' INT TERM

started=$(date +%s)
status=0
for case in $cases; do
	sh "$case" || status=1
	BENCH_HEADER_DONE=1
	export BENCH_HEADER_DONE
done
echo "# done in $(($(date +%s) - started)) s; load average at the end: \
$(cut -d' ' -f1-3 /proc/loadavg)$([ $status = 0 ] || echo '; some measurements FAILED')"
exit $status
