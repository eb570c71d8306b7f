#!/bin/sh
test_description='a full disk: read-only commands still answer; write commands fail saying "no space left on DEVICE (PATH)" and leave everything as it was'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"

# A small tmpfs of its own (root only: CI runs as root), so "full" is real
# and nothing else on the machine is touched.
test_have_prereq TMPFS_MOUNT || test_skip_all 'needs root and a tmpfs mount (the full disk is a real one)'
DISK=$TEST_ROOT/disk
mkdir -p "$DISK"
mount -t tmpfs -o size=8m tmpfs "$DISK" || test_skip_all 'cannot mount a tmpfs here'
trap 'umount "$DISK" 2>/dev/null' EXIT

# Fills the disk to the last byte; fill_free frees it again.
fill_disk() {
	dd if=/dev/zero of="$DISK/fill" bs=64k 2>/dev/null || true
	dd if=/dev/zero of="$DISK/fill-tail" bs=512 2>/dev/null || true
	test "$(df --output=avail -B1 "$DISK" | tail -1 | tr -d " ")" -lt 4096
}
fill_free() { rm -f "$DISK/fill" "$DISK/fill-tail"; }

# Everything a command could change: the tree, the store's bytes, the packs.
snapshot() {
	(cd "$DISK/home" && find . -path ./.hearth -prune -o -printf '%y %s %m %p\n' | sort &&
	 cat .hearth/store.db .hearth/store.db-wal 2>/dev/null | md5sum &&
	 ls -l .hearth/packs | md5sum)
}

READERS='log|log --oneline -n 1|ls head|ls -l head~1 d|show head|show --cat head d/a|status|status --porcelain|fsck|stats|conflicts|peers'

test_expect_success 'setup: a Home with two versions on a small disk; what readers answer with room' '
	hearth init "$DISK/home" >/dev/null && cd "$DISK/home" &&
	mkdir d && echo a >d/a && head -c 200000 /dev/urandom >big &&
	hearth record -m one >/dev/null &&
	echo b >d/b && hearth record -m two >/dev/null && echo edit >d/a &&
	echo "$READERS" | tr "|" "\n" | while read -r command; do
		hearth $command >"$TEST_ROOT/with-room.$(echo $command | tr " /~" "___")" 2>&1 ||
			{ echo "hearth $command failed with room"; exit 1; }
	done
'

test_expect_success 'on the full disk every read-only command answers as it did with room' '
	fill_disk && test_when_finished fill_free &&
	cd "$DISK/home" &&
	echo "$READERS" | tr "|" "\n" | while read -r command; do
		name=$(echo $command | tr " /~" "___")
		hearth $command >"$TEST_ROOT/full.$name" 2>&1 ||
			{ echo "hearth $command failed on a full disk:"; cat "$TEST_ROOT/full.$name"; exit 1; }
		test_cmp "$TEST_ROOT/with-room.$name" "$TEST_ROOT/full.$name" || exit 1
	done
'

test_expect_success 'on the full disk a record fails saying so, and leaves everything as it was' '
	fill_disk && test_when_finished fill_free &&
	snapshot >"$TEST_ROOT/before" &&
	(cd "$DISK/home" && test_expect_code 1 hearth record -m full 2>"$TEST_ROOT/err") &&
	cat "$TEST_ROOT/err" &&
	grep "no space left on $DISK ($DISK/home/.hearth" "$TEST_ROOT/err" &&
	snapshot >"$TEST_ROOT/after" && test_cmp "$TEST_ROOT/before" "$TEST_ROOT/after"
'

test_expect_success 'on the full disk a checkout fails saying so, and leaves everything as it was' '
	fill_disk && test_when_finished fill_free &&
	snapshot >"$TEST_ROOT/before" &&
	(cd "$DISK/home" && test_must_fail hearth checkout --force head~1 2>"$TEST_ROOT/err") &&
	cat "$TEST_ROOT/err" &&
	grep "no space left on $DISK (" "$TEST_ROOT/err" &&
	snapshot >"$TEST_ROOT/after" && test_cmp "$TEST_ROOT/before" "$TEST_ROOT/after"
'

test_expect_success 'a record that runs out of space midway says so, and leaves everything as it was' '
	cd "$DISK/home" &&
	head -c 1500000 /dev/urandom >large &&
	avail=$(df --output=avail -B1 "$DISK" | tail -1 | tr -d " ") &&
	head -c $((avail - 300000)) /dev/zero >"$DISK/fill" && test_when_finished fill_free &&
	snapshot >"$TEST_ROOT/before" &&
	test_expect_code 1 hearth record -m midway 2>"$TEST_ROOT/err" &&
	cat "$TEST_ROOT/err" &&
	grep "no space left on $DISK (" "$TEST_ROOT/err" &&
	snapshot >"$TEST_ROOT/after" && test_cmp "$TEST_ROOT/before" "$TEST_ROOT/after" &&
	hearth fsck >"$TEST_ROOT/out" && grep "no problems" "$TEST_ROOT/out"
'

test_expect_success 'with room again, the same record succeeds and fsck is clean' '
	cd "$DISK/home" &&
	hearth record -m "room again" >"$TEST_ROOT/out" && grep "^Recorded" "$TEST_ROOT/out" &&
	hearth fsck >"$TEST_ROOT/out" && grep "no problems" "$TEST_ROOT/out"
'

test_expect_success 'the disk is unmounted' '
	cd "$TEST_ROOT" && umount "$DISK"
'

test_done
