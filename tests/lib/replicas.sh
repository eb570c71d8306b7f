# Helpers for tests with several replicas on one machine. Sourced after
# test-lib.sh.
#
#   make_replica NEW FROM     a new replica of FROM's Home at NEW (clone)
#   sync_pair A B             A syncs with B (both ways); neither tree moves
#   settle A                  A's tree to head (checkout)
#   same_trees A B            the two working trees hold the same bytes
#   joined_home DIR           a Home joined from DIR/ssd and DIR/hdd, its
#                             state in DIR/state, described by DIR.yaml

joined_home() {
	mkdir -p "$TEST_ROOT/$1/ssd" "$TEST_ROOT/$1/hdd" &&
	cat >"$TEST_ROOT/$1.yaml" <<-EOF &&
	roots:
	  - name: ssd
	    path: $TEST_ROOT/$1/ssd
	  - name: hdd
	    path: $TEST_ROOT/$1/hdd
	state: $TEST_ROOT/$1/state
	EOF
	hearth -c "$TEST_ROOT/$1.yaml" init >/dev/null
}

make_replica() {
	hearth clone "$2" "$1" >/dev/null
}

sync_pair() {
	(cd "$1" && hearth sync "../$2" >/dev/null)
}

settle() {
	(cd "$1" && hearth checkout >/dev/null)
}

same_trees() {
	diff -r --no-dereference --exclude=.hearth --exclude=.hearth-id "$1" "$2"
}

# Both list the same versions and the same head tree, and fsck is clean.
converged() {
	(cd "$1" && hearth log --oneline) >"$TEST_ROOT/log.1" &&
	(cd "$2" && hearth log --oneline) >"$TEST_ROOT/log.2" &&
	test_cmp "$TEST_ROOT/log.1" "$TEST_ROOT/log.2" &&
	(cd "$1" && hearth conflicts --porcelain) >"$TEST_ROOT/conflicts.1" &&
	(cd "$2" && hearth conflicts --porcelain) >"$TEST_ROOT/conflicts.2" &&
	sed 's/ mine / SIDE /; s/ theirs / SIDE /' "$TEST_ROOT/conflicts.1" >"$TEST_ROOT/c1" &&
	sed 's/ mine / SIDE /; s/ theirs / SIDE /' "$TEST_ROOT/conflicts.2" >"$TEST_ROOT/c2" &&
	test_cmp "$TEST_ROOT/c1" "$TEST_ROOT/c2" &&
	(cd "$1" && hearth fsck >/dev/null) && (cd "$2" && hearth fsck >/dev/null)
}
