#!/bin/sh
# perf/plot.sh TSV... OUTDIR: the scaling curves of a benchmark run as SVG
# charts (gnuplot), one per measurement below: wall seconds (the median of
# the interleaved runs) against the size, both on log scales, hearth beside
# each of its peers. TSV is what perf/lib.sh appends to BENCH_TSV (`make
# bench` keeps it beside the build); rows of several runs or files join,
# the last row of a (case, size, side) winning. A chart with fewer than two
# sizes is not drawn. Prints each chart's path. Titles are plain text
# (gnuplot would read "&&" in "rsync -a && sync -f" as markup).
set -eu

if [ $# -lt 2 ]; then
	echo "usage: perf/plot.sh TSV... OUTDIR" >&2
	exit 2
fi
if ! command -v gnuplot >/dev/null 2>&1; then
	echo "perf/plot.sh: gnuplot is not installed (Debian: gnuplot-nox)" >&2
	exit 2
fi
for out; do :; done	# the last argument
files=
while [ $# -gt 1 ]; do
	files="$files $1"
	shift
done
mkdir -p "$out"

# name|case|measurement|title
charts='first-record|p0001-files|first record|First record of N small files
clean-status|p0001-files|clean status|Clean status of N files, walking
export|p0001-files|export into an empty folder|Export of N files into an empty folder
clone|p0012-sync-peers|clone into an empty replica|Clone of N files into an empty replica
sync-delta|p0010-sync|delta sync|Sync of a delta of N ops
resync|p0012-sync-peers|sync 1k changed files|Sync of 1 000 changed files in a Home of N files
ops-status|p0003-ops|clean status|Clean status in a Home of N ops
ops-show|p0003-ops|show head|show head in a Home of N ops
ops-log|p0003-ops|log|log of a Home of N ops'

# The points of one chart: "side<TAB>size<TAB>seconds", sizes as numbers
# (1k, 100k files, 1M ops, 10 ops ...), the hearth side once per size.
points() {
	# shellcheck disable=SC2086
	awk -F '\t' -v want_case="$1" -v want="$2" '
	function number(label,   n, unit) {
		n = label; sub(/ .*/, "", n)
		unit = n; sub(/^[0-9.]+/, "", unit); sub(/[^0-9.].*$/, "", n)
		if (unit == "k") n *= 1000
		else if (unit == "M") n *= 1000000
		else if (unit == "G") n *= 1000000000
		else if (unit != "") return -1
		return n
	}
	$1 == want_case && $3 == want {
		size = number($2)
		if (size < 0) next
		point[$4 SUBSEP size] = $5
		if ($8 != "-" && $9 != "-") point[$8 SUBSEP size] = $9
	}
	END {
		for (key in point) {
			split(key, part, SUBSEP)
			printf "%s\t%s\t%s\n", part[1], part[2], point[key]
		}
	}' $files | sort -t '	' -k1,1 -k2,2n
}

# gnuplot's script for one chart from its points on stdin.
script() {
	awk -F '\t' -v svg="$1" -v title="$2" '
	{
		if (!($1 in seen)) { seen[$1] = 1; found[++count] = $1 }
		data[$1] = data[$1] $2 " " $3 "\n"
	}
	END {
		# hearth first, then its peers as they came
		for (i = 1; i <= count; i++) if (found[i] ~ /^hearth/) order[++sides] = found[i]
		for (i = 1; i <= count; i++) if (found[i] !~ /^hearth/) order[++sides] = found[i]
		print "set terminal svg size 640,400 dynamic font \"sans,11\" background \"white\""
		print "set output \"" svg "\""
		print "set title \"" title "\""
		print "set logscale xy"
		print "set autoscale xfix"
		print "set offsets graph 0.05, graph 0.05, 0, 0"
		print "set xlabel \"N\""
		print "set ylabel \"seconds (median)\""
		print "set key left top"
		print "set grid"
		print "set format x \"%.0s%c\""
		for (i = 1; i <= sides; i++)
			printf "$side%d << EOD\n%sEOD\n", i, data[order[i]]
		line = "plot "
		for (i = 1; i <= sides; i++) {
			style = order[i] ~ /^hearth/ ? "lw 3" : "lw 1.5 dt 2"
			line = line sprintf("%s$side%d using 1:2 with linespoints %s title \"%s\" noenhanced",
			    i > 1 ? ", " : "", i, style, order[i])
		}
		print line
	}'
}

status=0
while IFS='|' read -r name case measurement title; do
	pts=$(points "$case" "$measurement")
	[ -n "$pts" ] || continue
	sizes=$(echo "$pts" | cut -f2 | sort -u | wc -l)
	[ "$sizes" -ge 2 ] || continue
	echo "$pts" | script "$out/$name.svg" "$title" | gnuplot || status=1
	echo "$out/$name.svg"
done <<CHARTS
$charts
CHARTS
exit $status
