#!/bin/sh
# `make lint-layers`, the backend's rooms: each sub-folder of backend/ is a
# room, and a room may include only the headers of rooms before it in ROOMS
# (and backend/hearth.h), so the rooms never form a circle. Files at the top
# of backend/ are the API's own and may include any room.
#
#   sh tests/lib/lint-rooms.sh [BACKEND-FOLDER]      (default: backend)
set -u
backend=${1:-backend}
# Lowest first; keep in step with backend/README.md.
ROOMS='io store disk history sync'

position() {	# ROOM -> its place in ROOMS, or nothing
	at=0
	for room in $ROOMS; do
		at=$((at + 1))
		if [ "$room" = "$1" ]; then echo $at; return; fi
	done
}

bad=0
for folder in "$backend"/*/; do
	room=$(basename "$folder")
	[ -n "$(position "$room")" ] ||
		{ echo "$backend/$room/: not a room of backend/ (the rooms are: $ROOMS)"; bad=1; }
done
for source in "$backend"/*/*.c "$backend"/*/*.h; do
	[ -e "$source" ] || continue
	room=$(basename "$(dirname "$source")")
	own=$(position "$room")
	[ -n "$own" ] || continue
	grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"backend/' "$source" |
	while IFS= read -r line; do
		header=$(printf '%s\n' "$line" | sed 's/.*"backend\/\([^"]*\)".*/\1/')
		case $header in
		hearth.h) continue ;;
		*/*) ;;
		*) echo "$source:${line%%:*}: room $room includes backend/$header, a file of the API above every room"
		   continue ;;
		esac
		other=${header%%/*}
		theirs=$(position "$other")
		if [ -z "$theirs" ]; then
			echo "$source:${line%%:*}: includes backend/$header, not in a room"
		elif [ "$theirs" -gt "$own" ]; then
			echo "$source:${line%%:*}: room $room includes backend/$header of room $other, which comes after it ($ROOMS)"
		fi
	done
done >"${TMPDIR:-/tmp}/lint-rooms.$$"
if [ -s "${TMPDIR:-/tmp}/lint-rooms.$$" ]; then
	cat "${TMPDIR:-/tmp}/lint-rooms.$$"
	bad=1
fi
rm -f "${TMPDIR:-/tmp}/lint-rooms.$$"
exit $bad
