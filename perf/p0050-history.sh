#!/bin/sh
# p0050-history: a real project's history replayed as records (issue 17,
# "The store is 8.2 times git's"): how big the store grows beside git's,
# before and after `hearth gc`, and every version read back equal to git's
# tree (the replay doubles as a test of deltas and gc).
#
# Needs a git repository: HEARTH_HISTORY_REPO (skipped without one; none is
# committed here, see perf/RESULTS.md for the one used). Its last
# HISTORY_COMMITS (quick 60, full 400) first-parent commits of
# HISTORY_REV (default HEAD), oldest first, are each written into one
# working folder the way a checkout writes them (`git read-tree -m -u` from
# the previous commit: changed files replaced, removed ones removed), then
#   hearth record -m COMMIT        in a Home there, and
#   git add -A && git commit -m COMMIT
#                                  in a new repository with the same folder
#                                  as its working tree (.hearth excluded)
# Rows (sizes in bytes, one row each, no timing):
#   .hearth after the records      store.db (checkpointed) + packs, and packs
#   .git after git gc              the new repository after `git gc`
#   .hearth after hearth gc        and its pack count
# and a check: each version hearth lists, exported, has the tree git gives
# for its commit (HISTORY_CHECK_EVERY: every Nth, default 1).
# Goals (issue 17): .hearth at most 1.0 x .git after git gc; at most 20
# packs after hearth gc; every version equal.
. "$(dirname "$0")/lib.sh"

repo=${HEARTH_HISTORY_REPO:-}
if [ -z "$repo" ] || ! git -C "$repo" rev-parse --git-dir >/dev/null 2>&1; then
	echo "# $bench_case: skipped (set HEARTH_HISTORY_REPO to a git repository)"
	bench_done
	exit 0
fi
count=${HISTORY_COMMITS:-$(bench_pick 60 400)}
every=${HISTORY_CHECK_EVERY:-1}
rev=${HISTORY_REV:-HEAD}

work=$bench_dir/tree
side=$bench_dir/git-side
mkdir -p "$work" "$side"
git -C "$repo" rev-list --first-parent -n "$count" "$rev" | tac >"$bench_dir/commits"
first=$(head -n 1 "$bench_dir/commits")
last=$(tail -n 1 "$bench_dir/commits")
name=$(cd "$repo" && pwd) && name=${name%/repo} && name=${name%/.git}
echo "# $bench_case: $(basename "$name") $(git -C "$repo" rev-parse --short "$first")..$(git -C "$repo" rev-parse --short "$last"), $(wc -l <"$bench_dir/commits") first-parent commits"

git init -q "$side" && echo /.hearth >>"$side/.git/info/exclude"
"$HEARTH" init "$work" >/dev/null
index=$bench_dir/index
previous=
started=$(date +%s)
while read -r commit; do
	if [ -z "$previous" ]; then
		GIT_INDEX_FILE=$index git -C "$repo" --work-tree="$work" read-tree -u --reset "$commit"
	else
		# The record stamps each file's identity (an xattr), which moves
		# its ctime: the index is refreshed before it is trusted.
		GIT_INDEX_FILE=$index git -C "$repo" --work-tree="$work" update-index -q --refresh \
		    >/dev/null || true
		GIT_INDEX_FILE=$index git -C "$repo" --work-tree="$work" read-tree -m -u "$previous" "$commit"
	fi
	(cd "$work" && "$HEARTH" record -m "$commit" >/dev/null)
	git --git-dir="$side/.git" --work-tree="$work" add -A &&
	git --git-dir="$side/.git" --work-tree="$work" commit -q --allow-empty -m "$commit"
	previous=$commit
done <"$bench_dir/commits"
echo "# replayed in $(($(date +%s) - started)) s"

size_of() {
	du -sb "$@" 2>/dev/null | awk '{ s += $1 } END { print s + 0 }'
}
hearth_size() {
	# A checkpoint first, so the database's size is its file's alone.
	(cd "$work" && "$HEARTH" stats >/dev/null)
	size_of "$work/.hearth/store.db" "$work/.hearth/store.db-wal" "$work/.hearth/packs"
}
packs_of() {
	ls "$work/.hearth/packs" | wc -l
}

hearth_before=$(hearth_size)
packs_before=$(packs_of)
db_before=$(size_of "$work/.hearth/store.db" "$work/.hearth/store.db-wal")
git_loose=$(size_of "$side/.git")
git --git-dir="$side/.git" gc -q
git_size=$(size_of "$side/.git")
(cd "$work" && "$HEARTH" gc) | sed "s/^/# hearth gc: /"
hearth_after=$(hearth_size)
packs_after=$(packs_of)
db_after=$(size_of "$work/.hearth/store.db" "$work/.hearth/store.db-wal")
(cd "$work" && "$HEARTH" stats) | grep -E "^(stored bytes|pack bytes|delta|chunks)" |
	sed "s/^/# hearth stats: /"

size_ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0) ? a / b : 0 }'
}
echo "# .git loose before git gc: $git_loose bytes"
echo "# .hearth after the records: $hearth_before bytes ($db_before the database), $packs_before packs; $(size_ratio "$hearth_before" "$git_size") x .git after git gc"
echo "# .git after git gc: $git_size bytes"
echo "# .hearth after hearth gc: $hearth_after bytes ($db_after the database), $packs_after packs; $(size_ratio "$hearth_after" "$git_size") x .git after git gc (goal <= 1.0, <= 20 packs)"

# Every version, exported, against git's tree of its commit (written by
# read-tree as the replay wrote it: no export-subst or export-ignore).
checked=0 differ=0 n=0
(cd "$work" && "$HEARTH" log) | awk '/^version / { id = $2 } /^    [0-9a-f]+$/ && length($1) == 40 { print id, $1 }' \
    >"$bench_dir/versions"
while read -r version commit; do
	n=$((n + 1))
	[ $((n % every)) = 0 ] || continue
	rm -rf "$bench_dir/out" "$bench_dir/expected" "$bench_dir/index.check" &&
	    mkdir "$bench_dir/expected"
	(cd "$work" && "$HEARTH" export "$version" "$bench_dir/out") >/dev/null
	GIT_INDEX_FILE=$bench_dir/index.check git -C "$repo" --work-tree="$bench_dir/expected" \
	    read-tree -u --reset "$commit"
	if diff -r --no-dereference "$bench_dir/expected" "$bench_dir/out" >/dev/null; then
		checked=$((checked + 1))
	else
		differ=$((differ + 1))
		echo "# version $version (commit $commit) differs from git's tree"
	fi
done <"$bench_dir/versions"
echo "# every ${every}th version exported and compared with git's tree: $checked equal, $differ differ"
[ $differ = 0 ] || bench_failed=1
bench_done
