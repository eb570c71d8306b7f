#!/bin/sh
# p0002-blobs: one big file (issue 2 item 10; issue 5 "blobs").
#
# Fixture: `bench-tool file big MIB KIND SEED` of text-like or
# incompressible bytes, beside one small file, written into the hearth Home
# and the git work tree. Sizes: quick 256 MiB, full 1 GiB (BENCH_BLOB_MIB
# overrides); git's add of 1 GiB alone takes 30 s a run here.
#
# Measurements, hearth beside git, every command run in its tree:
#   record      hearth record -m big               | git add -A && git commit -q -m big
#               (before each run: rm -rf .hearth, the file's identity xattr
#               removed, hearth init .  |  rm -rf .git && git init -q)
#   checkout    then the file is moved away and recorded as a second version;
#               hearth checkout head~1             | git checkout -q with
#               (before each run: hearth checkout head  |  git checkout -q main,
#               which delete the big file)
# Goals: record under 64 MiB peak RSS (issue 2); checkout too (issue 5).
. "$(dirname "$0")/lib.sh"

mib=${BENCH_BLOB_MIB:-$(bench_pick 256 1024)}
if [ "$mib" -ge 1024 ] && [ $((mib % 1024)) = 0 ]; then
	label="$((mib / 1024)) GiB"
else
	label="$mib MiB"
fi

for kind in text random; do
	d=$bench_dir/$kind
	mkdir -p "$d/hearth" "$d/git"
	for tree in "$d/hearth" "$d/git"; do
		echo 'a small file beside the big one' >"$tree/small.txt"
		"$BT" file "$tree/big" "$mib" "$kind" 7
	done

	bench_side hearth 'hearth record' "$d/hearth" \
		'rm -rf .hearth && { setfattr -x user.hearth.id big 2>/dev/null || :; } &&
		 "$HEARTH" init . >/dev/null' '"$HEARTH" record -m big'
	bench_side git 'git add -A && git commit' "$d/git" \
		'rm -rf .git && git init -q' 'git add -A && git commit -q -m big'
	bench_goal rss 64
	bench_measure "$label $kind" 'record one big file'
	(cd "$d/hearth" && "$HEARTH" stats) | awk -v kind="$kind" '
		/^stored bytes/ { stored = $3 } /^pack bytes/ { pack = $3 }
		/^written per stored byte/ { written = $5 }
		END { printf "#   hearth stats after the record (%s): pack/stored %.3f, written per stored byte %s\n",
			kind, stored ? pack / stored : 0, written }'

	(cd "$d/hearth" && mv big ../big-hearth && "$HEARTH" record -m without >/dev/null)
	(cd "$d/git" && git tag with && mv big ../big-git && git commit -q -a -m without)
	rm -f "$d/big-hearth" "$d/big-git"
	bench_side hearth 'hearth checkout' "$d/hearth" \
		'"$HEARTH" checkout head >/dev/null' '"$HEARTH" checkout head~1'
	bench_side git 'git checkout' "$d/git" 'git checkout -q main' 'git checkout -q with'
	bench_goal rss 64
	bench_measure "$label $kind" 'checkout one big file'

	rm -rf "$d"
done

bench_done
