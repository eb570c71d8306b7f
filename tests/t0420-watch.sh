#!/bin/sh
test_description='hearth watch keeps the index current; status answers from it; overflow and the watch limit fall back to polling'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"
. "$HEARTH_SOURCE_DIR/tests/lib/watch-lib.sh"

hearth init home >/dev/null
cd home
printf 'poll_interval: 500ms\n' >>.hearth/config.yaml
for i in 1 2 3 4 5 6; do
	mkdir -p "d$i/inner"
	echo "file $i" >"d$i/f.txt"
	echo "inner $i" >"d$i/inner/g.txt"
done
old_times d*/inner/* d*/* d* .
hearth record -m first >/dev/null

# The status a walk gives (the watch is stopped first, so none is asked)
# and the one the watch's index gives must agree.
status_walked() {
	watch_stop main && hearth status --porcelain >../walked && ! hearth status | grep "watched index"
}
status_watched() {
	status_from_watch ../human &&
	hearth status --porcelain >../watched
}

test_expect_success 'a watch checks, walks, then says the index is current' '
	watch_start main &&
	watch_wait main "^current: the index is current; status lists 0 folders$" &&
	grep "^checked: " ../main.log
'

test_expect_success 'status answers from the index and lists no folder when nothing changed' '
	status_from_watch ../out && cat ../out &&
	grep "From the watched index: 0 folders listed, no walk" ../out &&
	grep "Nothing changed since then" ../out
'

test_expect_success 'edits, new files, deletes and moves are seen as they happen' '
	echo "changed" >d1/f.txt &&
	echo new >d2/new.txt &&
	rm d3/inner/g.txt &&
	mv d4/f.txt d5/from-d4.txt &&
	mv d6/inner d1/inner-from-d6 &&
	mkdir -p d2/made/deeper && echo deep >d2/made/deeper/file &&
	status_watched && cat ../human &&
	grep "folders listed" ../human &&
	status_walked &&
	test_cmp ../walked ../watched
'

test_expect_success 'an edit in place keeping size and time is seen (its change time moves)' '
	watch_start main && watch_wait main "^current" &&
	printf "F" | dd of=d5/f.txt bs=1 seek=0 conv=notrunc 2>/dev/null &&
	old_times d5/f.txt &&
	status_watched && grep "^M d5/f.txt$" ../watched
'

test_expect_success 'a record while watching: the index follows, ids stay' '
	hearth record -m "while watching" >/dev/null &&
	tree_ids >../ids.1 &&
	status_from_watch ../out && grep "Nothing changed" ../out &&
	watch_stop main &&
	hearth status --porcelain >../after && ! grep "^[AMDR] " ../after &&
	tree_ids >../ids.2 && test_cmp ../ids.1 ../ids.2
'

test_expect_success 'rename, move within a root and restart: the same ids' '
	tree_ids >../ids.before &&
	watch_start main && watch_wait main "^current" &&
	mv d1/inner-from-d6 d1/renamed && mv d2/made d5/made &&
	hearth record -m moves >/dev/null &&
	watch_stop main && watch_start main && watch_wait main "^current" &&
	hearth status >../out && grep "Nothing changed" ../out &&
	tree_ids >../ids.after &&
	sed "s|d1/inner-from-d6|d1/renamed|; s|d2/made|d5/made|" ../ids.before | sort >../expected &&
	sort ../ids.after >../actual && test_cmp ../expected ../actual
'

test_expect_success 'a queue overflow retires the watches; a walk catches up; watching resumes' '
	watch_stop main &&
	(HEARTH_WATCH_FAULT=overflow:3 && export HEARTH_WATCH_FAULT && watch_start main) &&
	watch_wait main "^current" &&
	for i in 1 2 3 4 5; do echo "burst $i" >"d3/burst$i.txt"; done &&
	watch_wait main "^polling: the inotify event queue overflowed" &&
	watch_wait main "^current" 10 2 &&
	status_watched && grep "^A d3/burst5.txt$" ../watched &&
	status_walked && test_cmp ../walked ../watched
'

max_events=$(cat /proc/sys/fs/inotify/max_queued_events 2>/dev/null || echo 0)
test_expect_success 'a real overflow: more events than the kernel queues while the watch is stopped' '
	if [ "$max_events" -eq 0 ] || [ "$max_events" -gt 70000 ]; then
		echo "max_queued_events is $max_events: too many to overflow here"; exit 0
	fi
	watch_start main && watch_wait main "^current" &&
	# The watch must watch burst/ before it stops, or the touches make no
	# events: a status it answered has seen every event before it.
	mkdir burst && status_from_watch ../out &&
	pid=$(cat "$WATCH_PIDS/main") &&
	kill -STOP "$pid" &&
	# Each new file queues at least two events (create, close after
	# writing); as many files as the queue holds events overflow it twice.
	(cd burst && seq 1 $max_events | xargs touch) &&
	kill -CONT "$pid" &&
	watch_wait main "^polling: the inotify event queue overflowed" 30 &&
	watch_wait main "^current" 60 2 &&
	status_watched && grep "^A burst/1$" ../watched &&
	status_walked && test_cmp ../walked ../watched &&
	rm -rf burst
'

test_expect_success 'the inotify watch limit: polling every poll_interval, and the marks converge' '
	(HEARTH_WATCH_FAULT=limit:4 && export HEARTH_WATCH_FAULT && watch_start main) &&
	watch_wait main "^polling: the inotify watch limit is reached after" &&
	echo later >d4/later.txt &&
	test_wait_for "test_tool marks . | grep -q \"^d4\$\"" &&
	hearth status >../out && ! grep "watched index" ../out && grep "added:    d4/later.txt" ../out &&
	watch_stop main
'

# docs/DESIGN.md §6: the full walk after the restart check waits for the
# Home to be quiet for about 2 s, so it never competes with a burst of
# work. The writer touches the Home every 0.1 s (a twentieth of the quiet
# time) until told to stop; the test waits for 30 of its writes after the
# check (at least 3 s of work, however slow the machine) and no walk may
# have begun.
test_expect_success 'the full walk waits until the Home has been quiet for 2 s' '
	watch_stop main || exit 1
	rm -f ../stop-busy &&
	# Alone in its list: "a && (loop) &" would put a in the background too.
	(i=0; while ! test -e ../stop-busy; do echo "busy $i" >>d2/busy.txt; sleep 0.1; i=$((i + 1)); done) &
	busy=$!
	test -n "$busy" &&
	test_when_finished ": >../stop-busy; wait $busy 2>/dev/null || :" &&
	watch_start main && watch_wait main "^checked: " &&
	written=$(wc -l <d2/busy.txt) &&
	test_wait_for "[ \$(wc -l <d2/busy.txt) -ge $((written + 30)) ]" &&
	! grep -E "^(walking|current)" ../main.log &&
	: >../stop-busy && wait $busy &&
	watch_wait main "^current" 15 &&
	status_watched && grep "^A d2/busy.txt$" ../watched &&
	watch_stop main && rm d2/busy.txt
'

test_expect_success 'a status with no current watch walks, and says nothing of an index' '
	hearth status >../out && ! grep "watched index" ../out
'

test_expect_success 'a root renamed away stops the watch, fails closed, loses nothing' '
	tree_ids >../ids.before &&
	watch_start main && watch_wait main "^current" &&
	cd .. && mv home hidden &&
	watch_gone main 30 &&
	grep "root .main. is missing" main.log &&
	mv hidden home && cd home &&
	tree_ids >../ids.after && test_cmp ../ids.before ../ids.after &&
	watch_start main && watch_wait main "^current" &&
	status_from_watch ../out &&
	watch_stop main
'

test_expect_success 'a watch that dies leaves no trusted row behind: status walks' '
	watch_start main && watch_wait main "^current" &&
	kill -KILL "$(cat "$WATCH_PIDS/main")" && watch_gone main &&
	hearth status >../out && ! grep "watched index" ../out
'

test_done
