#!/bin/sh
# `make lint-io`: no backend code writes to the disk except through the
# I/O seam (backend/io/io.h), so the fault and power-loss tests see every
# write. A grep over the C files with comments taken out: a direct call of
# a system call or libc function that writes, syncs, creates, renames or
# removes, or an open with a write flag, is an error naming file and line.
#
#   sh tests/lib/lint-io.sh [FOLDER]      (default: backend)
set -u
folder=${1:-backend}

# Calls that change the disk. open/openat/fopen count only with a write
# flag or mode (checked over the whole call, which may span lines).
writers='write|pwrite|writev|pwritev|rename|renameat|renameat2|unlink|unlinkat|rmdir|remove'
writers="$writers|mkdir|mkdirat|mknod|mknodat|fsync|fdatasync|syncfs|sync|sync_file_range"
writers="$writers|truncate|ftruncate|fallocate|posix_fallocate|setxattr|fsetxattr|lsetxattr"
writers="$writers|removexattr|fremovexattr|lremovexattr|symlink|symlinkat|link|linkat"
writers="$writers|chmod|fchmod|fchmodat|chown|fchown|fchownat|lchown|utime|utimes|futimes"
writers="$writers|utimensat|futimens|creat|mkstemp|mkostemp|mkdtemp|tmpfile|copy_file_range"
writers="$writers|sendfile|splice"
openers='open|openat|openat2|fopen|fdopen|freopen'
write_flags='O_(CREAT|WRONLY|RDWR|TRUNC|APPEND)|"[wa]|"r\+'

# The allow-list, as FILE:TEXT (TEXT a fixed string on the offending line).
# Keep it short; each entry says why it is not a write to go through io.h.
allowed=$(cat <<'EOF'
backend/io/io.c:
backend/io/io_powerloss.c:
backend/store/store_vfs.c:shim->powerloss_fd = open(path, O_RDWR | O_CLOEXEC)
backend/sync/transport.c:write(transport->write_fd,
EOF
)
# io.c is the seam itself. io_powerloss.c is the seam's test-mode power-loss
# simulator: it undoes writes behind the process's back, by design. The VFS
# shim opens a descriptor of its own in power-loss mode only, for that
# simulator, and never writes through it. transport.c writes the sync
# protocol into the pipe to the peer process: not a file (the peer's own
# writes pass its own seam).

is_allowed() {	# FILE LINE-TEXT
	printf '%s\n' "$allowed" | while IFS= read -r entry; do
		file=${entry%%:*}
		text=${entry#*:}
		[ "$file" = "$1" ] || continue
		if [ -z "$text" ]; then echo yes; break; fi
		case $2 in *"$text"*) echo yes; break ;; esac
	done
}

# Prints FILE:LINE:TEXT for every offending call, comments removed (line
# numbers kept) and an open call's continuation lines joined to its first.
offenders() {
	for source in "$folder"/*.c "$folder"/*.h "$folder"/*/*.c "$folder"/*/*.h; do
		[ -e "$source" ] || continue
		awk -v writers="$writers" -v openers="$openers" -v flags="$write_flags" '
		function strip(text,    out, at) {
			out = ""
			while (text != "") {
				if (in_comment) {
					at = index(text, "*/")
					if (at == 0) return out
					text = substr(text, at + 2); in_comment = 0
				} else {
					at = index(text, "/*")
					if (at == 0) return out text
					out = out substr(text, 1, at - 1) " "
					text = substr(text, at + 2); in_comment = 1
				}
			}
			return out
		}
		BEGIN { call = "(^|[^A-Za-z0-9_.>])(" writers ")[[:space:]]*\\("
			open = "(^|[^A-Za-z0-9_.>])(" openers ")[[:space:]]*\\(" }
		{
			code = strip($0)
			if (code ~ call) print FILENAME ":" FNR ":" code
			if (pending != "") {
				pending = pending " " code
				if (code ~ /;/) { if (pending ~ flags) print pending_at pending; pending = "" }
			} else if (code ~ open) {
				if (code ~ /;/ || code ~ /\{[[:space:]]*$/) {
					if (code ~ flags) print FILENAME ":" FNR ":" code
				} else { pending = code; pending_at = FILENAME ":" FNR ":" }
			}
		}' "$source"
	done
}

status=0
found=$(offenders)
if [ -n "$found" ]; then
	while IFS= read -r hit; do
		file=${hit%%:*}
		rest=${hit#*:}
		text=${rest#*:}
		[ -n "$(is_allowed "$file" "$text")" ] && continue
		line=${rest%%:*}
		echo "$file:$line: writes around the I/O seam (use io.h):$(printf '%s' "$text" |
		    sed 's/^[[:space:]]*/ /')" >&2
		status=1
	done <<EOF
$found
EOF
fi
if [ $status -eq 0 ]; then
	echo "  lint-io no write in $folder/ goes around the I/O seam"
fi
exit $status
