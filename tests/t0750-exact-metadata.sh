#!/bin/sh
test_description='exact metadata: mtimes of any year the filesystem holds; sparse files stay sparse on export and checkout; a path past PATH_MAX is said and left out, the rest recorded, and nothing is lost when a folder above it is renamed or deleted; show --cat and log -n validate as documented'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"

# Kilobytes a file takes on disk (its blocks, not its size).
disk_kb() { du -k "$1" | cut -f1; }

# Whether the scratch filesystem keeps holes at all (tmpfs, ext4, xfs and
# btrfs do; some do not).
test_lazy_prereq SPARSE 'truncate -s 64M probe && test "$(du -k probe | cut -f1)" -lt 1024'

test_expect_success 'setup: a Home with sparse files: a hole in the middle, one at the end, all hole' '
	hearth init home >/dev/null && cd home &&
	truncate -s 64M middle && printf middle | dd of=middle bs=1 seek=20000000 conv=notrunc 2>/dev/null &&
	printf start >tail && truncate -s 32M tail &&
	truncate -s 16M empty-space &&
	head -c 100000 /dev/urandom >dense &&
	hearth record -m sparse >/dev/null
'

test_expect_success SPARSE 'export writes holes as holes, byte for byte the same' '
	(cd home && hearth export head ../exported) &&
	for name in middle tail empty-space dense; do
		cmp home/$name exported/$name || exit 1
	done &&
	test "$(disk_kb exported/middle)" -lt 1024 &&
	test "$(disk_kb exported/tail)" -lt 1024 &&
	test "$(disk_kb exported/empty-space)" -lt 1024 &&
	test "$(stat -c %s exported/tail)" = 33554432 &&
	test "$(stat -c %s exported/empty-space)" = 16777216
'

test_expect_success SPARSE 'checkout writes them back sparse too' '
	cd home &&
	rm middle tail empty-space &&
	hearth record --yes -m gone >/dev/null &&
	hearth checkout head~1 >/dev/null &&
	cmp middle ../exported/middle && cmp tail ../exported/tail &&
	cmp empty-space ../exported/empty-space &&
	test "$(disk_kb middle)" -lt 1024 && test "$(disk_kb tail)" -lt 1024 &&
	test "$(disk_kb empty-space)" -lt 1024 &&
	hearth checkout --yes >/dev/null && hearth fsck >../out && grep "no problems" ../out
'

# 25 folders (or $2) of 201 to 202 bytes under $1, an f.txt in each
# ("level N"): past 4096 bytes at the 21st. The shell cannot cd that deep,
# so python walks with openat.
make_long_tree() {
	python3 - "$1" "${2:-25}" <<-\EOF
	import os, sys
	fd = os.open(sys.argv[1], os.O_RDONLY)
	for i in range(int(sys.argv[2])):
	    name = "d" * 200 + str(i)
	    os.mkdir(name, dir_fd=fd)
	    inner = os.open(name, os.O_RDONLY, dir_fd=fd)
	    os.close(fd)
	    fd = inner
	    out = os.open("f.txt", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
	    os.write(out, b"level %d\n" % i)
	    os.close(out)
	EOF
}

test_expect_success 'a path longer than PATH_MAX is said once and left out; the rest is recorded' '
	cd home && mkdir long && make_long_tree long && echo beside >beside.txt &&
	hearth status >../out &&
	test "$(grep -c "a path longer than PATH_MAX (4096 bytes), left out" ../out)" = 1 &&
	grep "added:    beside.txt" ../out &&
	hearth record -m long >../out &&
	grep "^Recorded" ../out &&
	test "$(grep -c "a path longer than PATH_MAX (4096 bytes), left out" ../out)" = 1 &&
	hearth ls head >../ls && grep -x beside.txt ../ls && grep -x long/ ../ls &&
	hearth status --porcelain >../out && ! grep -v "^#" ../out &&
	hearth fsck >../out && grep "no problems" ../out
'

test_expect_success 'what was left out is kept on disk and the tree under PATH_MAX checks out' '
	cd home &&
	hearth export head ../long-export &&
	test -f ../long-export/beside.txt &&
	find ../long-export/long -name f.txt | wc -l >../count && test "$(cat ../count)" -ge 19
'

# What every f.txt under $1 holds, sorted: os.fwalk walks by folder fds,
# where a path past PATH_MAX cannot be named whole.
long_levels() {
	python3 -c '
import os, sys
for top, folders, files, fd in os.fwalk(sys.argv[1]):
    if "f.txt" in files:
        with open(os.open("f.txt", os.O_RDONLY, dir_fd=fd)) as f:
            print(f.read(), end="")
' "$1" | sort
}

test_expect_success 'a recorded folder renamed so that what it holds passes PATH_MAX: said, record refuses, nothing deleted' '
	hearth init renamed >/dev/null && cd renamed &&
	mkdir x && make_long_tree x 19 && echo beside >beside.txt &&
	hearth record -m "19 levels" >/dev/null &&
	long_levels x >../levels.before && test "$(wc -l <../levels.before)" = 19 &&
	mv x "$(printf "%0255d" 1)" &&
	hearth status >../out &&
	grep "^Note: .*: recorded, but a folder above it was renamed or moved so that its path is longer than PATH_MAX (4096 bytes); record refuses until a folder above it has a shorter name.$" ../out &&
	! grep "deleted:" ../out &&
	test_must_fail hearth record -m renamed >../out 2>../err &&
	grep "cannot record: a folder was renamed or moved so that a recorded path below it is longer than PATH_MAX (4096 bytes), which no replica could write; nothing was recorded. Give a folder above it a shorter name, then record." ../err &&
	test "$(hearth log --oneline | wc -l)" = 1 &&
	mv "$(printf "%0255d" 1)" "$(printf "%0100d" 1)" &&
	hearth record -m "renamed shorter" >../out &&
	grep "^ R x -> 0000" ../out && ! grep "^ D " ../out &&
	long_levels "$(printf "%0100d" 1)" >../levels.after && test_cmp ../levels.before ../levels.after &&
	hearth status --porcelain >../out && ! grep -v "^#" ../out &&
	hearth fsck >../out && grep "no problems" ../out
'

test_expect_success 'a replica checks it out whole' '
	hearth clone renamed renamed-copy >/dev/null &&
	(cd renamed-copy && hearth checkout >/dev/null) &&
	long_levels renamed-copy >levels.copy &&
	test_cmp levels.before levels.copy &&
	(cd renamed-copy && hearth fsck) >out && grep "no problems" out
'

test_expect_success 'a checkout that deletes a folder keeps what is in it past PATH_MAX' '
	hearth init deleted >/dev/null && cd deleted &&
	echo first >first.txt && hearth record -m first >/dev/null &&
	mkdir y && make_long_tree y 23 && hearth record -m "23 levels" >/dev/null &&
	hearth checkout --yes head~1 >../out &&
	long_levels y >../levels.kept &&
	printf "level 20\nlevel 21\nlevel 22\n" >../expected && test_cmp ../expected ../levels.kept &&
	hearth checkout >/dev/null && long_levels y >../levels.back &&
	test "$(wc -l <../levels.back)" = 23 &&
	hearth fsck >../out && grep "no problems" ../out
'

# 64 bits of nanoseconds end in 2262; ext4 holds times to 2446, tmpfs more.
test_lazy_prereq YEAR_2300 '
	touch -d "2300-06-01 12:00:00.123456789" probe &&
	test "$(stat -c %y probe)" = "2300-06-01 12:00:00.123456789 +0000"
'

test_expect_success YEAR_2300 'an mtime after 2262 is recorded, listed, exported and checked out exactly' '
	cd home &&
	echo future >future.txt && touch -d "2300-06-01 12:00:00.123456789" future.txt &&
	echo later >later.txt && touch -d "2440-01-02 03:04:05.5" later.txt &&
	echo past >past.txt && touch -d "1910-03-04 05:06:07.25" past.txt &&
	hearth record -m years >/dev/null &&
	hearth ls -l head >../ls && cat ../ls &&
	grep "2300-06-01 12:00 .*future.txt" ../ls && grep "2440-01-02 03:04 .*later.txt" ../ls &&
	grep "1910-03-04 05:06 .*past.txt" ../ls &&
	hearth export head ../years &&
	test "$(stat -c %y ../years/future.txt)" = "2300-06-01 12:00:00.123456789 +0000" &&
	test "$(stat -c %y ../years/later.txt)" = "2440-01-02 03:04:05.500000000 +0000" &&
	test "$(stat -c %y ../years/past.txt)" = "1910-03-04 05:06:07.250000000 +0000" &&
	rm future.txt later.txt past.txt && hearth record --yes -m gone >/dev/null &&
	hearth checkout head~1 >/dev/null &&
	test "$(stat -c %y future.txt)" = "2300-06-01 12:00:00.123456789 +0000" &&
	test "$(stat -c %y later.txt)" = "2440-01-02 03:04:05.500000000 +0000" &&
	hearth status --porcelain >../out && ! grep -v "^#" ../out &&
	hearth checkout --yes >/dev/null && hearth fsck >../out && grep "no problems" ../out
'

test_expect_success 'show --cat of a symbolic link is a usage error, as hearth(1) says' '
	cd home &&
	ln -s middle link && mkdir folder && echo x >folder/f &&
	hearth record -m link >/dev/null &&
	test_expect_code 2 hearth show --cat head link >out 2>err &&
	grep "link is a symbolic link, not a file" err && ! test -s out &&
	test_expect_code 2 hearth show --cat head folder 2>err && grep "folder is a folder" err &&
	hearth show --cat head folder/f >out && echo x | cmp - out
'

test_expect_success 'log -n takes a positive number only' '
	cd home &&
	for bad in -1 0 "" 1x x -0 +1 " 1" 99999999999999999999999; do
		test_expect_code 2 hearth log -n "$bad" >out 2>err ||
			{ echo "log -n \"$bad\" was accepted"; exit 1; }
		grep -- "-n needs a positive number" err || exit 1
	done &&
	hearth log -n 1 --oneline >out && test "$(wc -l <out)" = 1 &&
	hearth log --max-count=2 --oneline >out && test "$(wc -l <out)" = 2
'

test_done
