#!/bin/sh
# p0002-blobs: one big file (issue 2 item 10; issue 5 "blobs").
#
# Fixture: `bench-tool file big MIB KIND SEED` of text-like or
# incompressible bytes, beside one small file, written into the hearth Home
# and the git work tree. Sizes: quick 256 MiB, full 1 GiB (BENCH_BLOB_MIB
# overrides); git's add of 1 GiB alone takes 30 s a run here.
#
# Measurements, hearth beside git and cp, every command run in its tree:
#   record      hearth record -m big               | git add -A && git commit -q -m big
#                                                  | cp big copy && sync copy (the
#                                                    bytes read and written once,
#                                                    and flushed as hearth's
#                                                    default durability flushes
#                                                    them: the least a store of
#                                                    them costs)
#               (before each run: rm -rf .hearth, the file's identity xattr
#               removed, hearth init .  |  rm -rf .git && git init -q  |  rm -f copy)
#   checkout    then the file is moved away and recorded as a second version;
#               hearth checkout head~1             | git checkout -q with
#                                                  | cp ../big-kept big && sync big
#               (before each run: hearth checkout head  |  git checkout -q main,
#               which delete the big file  |  rm -f big)
# Goals: record and checkout at most 2 x cp (issue 17); their peak RSS
# under 64 MiB (issues 2 and 5) is in the RSS column.
. "$(dirname "$0")/lib.sh"

mib=${BENCH_BLOB_MIB:-$(bench_pick 256 1024)}
if [ "$mib" -ge 1024 ] && [ $((mib % 1024)) = 0 ]; then
	label="$((mib / 1024)) GiB"
else
	label="$mib MiB"
fi

for kind in text random; do
	d=$bench_dir/$kind
	mkdir -p "$d/hearth" "$d/git" "$d/cp"
	for tree in "$d/hearth" "$d/git" "$d/cp"; do
		echo 'a small file beside the big one' >"$tree/small.txt"
		"$BT" file "$tree/big" "$mib" "$kind" 7
	done

	bench_side hearth 'hearth record' "$d/hearth" \
		'rm -rf .hearth && { setfattr -x user.hearth.id big 2>/dev/null || :; } &&
		 "$HEARTH" init . >/dev/null' '"$HEARTH" record -m big'
	bench_side git 'git add -A && git commit' "$d/git" \
		'rm -rf .git && git init -q' 'git add -A && git commit -q -m big'
	bench_side cp 'cp && sync' "$d/cp" 'rm -f copy' 'cp big copy && sync copy'
	bench_goal ratio 2 cp
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
	(cd "$d/cp" && mv big ../big-kept && rm -f copy)
	bench_side cp 'cp && sync' "$d/cp" 'rm -f big' 'cp ../big-kept big && sync big'
	bench_goal ratio 2 cp
	bench_measure "$label $kind" 'checkout one big file'

	rm -rf "$d"
done

bench_done
