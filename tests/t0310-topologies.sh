#!/bin/sh
test_description='ten replicas in a star and in a ring edit offline and converge to one tree'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"
. "$HEARTH_SOURCE_DIR/tests/lib/replicas.sh"

count=10

# Every replica records a few offline changes: a file of its own, an edit
# of a shared file (concurrent with everyone: content conflicts), a move.
offline_edits() {
	i=0
	while [ $i -lt $count ]; do
		r=$1$i
		echo "own file of $r" >$r/own-$i.txt &&
		echo "edit by $r" >$r/shared/common.txt &&
		mkdir -p $r/by-$i && echo "moved by $r" >$r/by-$i/moved-$i.txt &&
		(cd $r && hearth record -m "offline work of $r" >/dev/null) || return 1
		i=$((i + 1))
	done
}

heads_agree() {
	i=0
	: >heads
	while [ $i -lt $count ]; do
		(cd $1$i && hearth log --oneline | head -1) >>heads || return 1
		i=$((i + 1))
	done
	test $(sort -u heads | wc -l) = 1
}

trees_agree() {
	i=0
	while [ $i -lt $count ]; do settle $1$i || return 1; i=$((i + 1)); done
	i=1
	while [ $i -lt $count ]; do same_trees ${1}0 $1$i || return 1; i=$((i + 1)); done
}

setup_replicas() {
	hearth init ${1}0 >/dev/null && mkdir ${1}0/shared && echo base >${1}0/shared/common.txt &&
	(cd ${1}0 && hearth record -m base >/dev/null) &&
	i=1 &&
	while [ $i -lt $count ]; do make_replica $1$i ${1}0 || return 1; i=$((i + 1)); done
}

test_expect_success 'a star: every replica syncs with the hub until all agree' '
	setup_replicas star && offline_edits star &&
	for pass in 1 2; do
		i=1
		while [ $i -lt $count ]; do sync_pair star$i star0 || exit 1; i=$((i + 1)); done
	done &&
	heads_agree star && trees_agree star &&
	(cd star0 && hearth conflicts --porcelain) >conflicts &&
	grep " content shared/common.txt" conflicts &&
	(cd star5 && hearth fsck >/dev/null)
'

test_expect_success 'a ring: each replica syncs with the next until all agree' '
	setup_replicas ring && offline_edits ring &&
	for pass in 1 2; do
		i=0
		while [ $i -lt $count ]; do
			sync_pair ring$i ring$(( (i + 1) % count )) || exit 1
			i=$((i + 1))
		done
	done &&
	heads_agree ring && trees_agree ring &&
	(cd ring3 && hearth fsck >/dev/null)
'

test_done
