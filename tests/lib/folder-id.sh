# Sourced after setting xattrs=yes|no (whether the scratch folder's file system
# keeps user xattrs).
# The id a folder carries: its xattr, or its marker file where the file
# system keeps no xattrs.
folder_id() {
	if [ $xattrs = yes ]; then getfattr --only-values -n user.hearth.id "$1" 2>/dev/null
	else cat "$1/.hearth-id"; fi
}
# damage_id FOLDER TEXT, drop_id FOLDER: the same, damaged or taken away.
damage_id() {
	if [ $xattrs = yes ]; then setfattr -n user.hearth.id -v "$2" "$1"
	else echo "$2" >"$1/.hearth-id"; fi
}
drop_id() {
	if [ $xattrs = yes ]; then setfattr -x user.hearth.id "$1"
	else rm "$1/.hearth-id"; fi
}
