#!/bin/sh
# `make lint-layers`, memory: no code of backend/ allocates with libc's own
# allocators. Every allocation goes through model/array.h (array_grow,
# array_resize, array_alloc, array_zeroed, array_strdup, ...), which keeps
# the one out-of-memory policy backend/hearth.h states; a raw realloc is
# also the unchecked doubling loop those helpers replaced. A grep over the
# C files with comments and string literals taken out: each call is an
# error naming file and line.
#
#   sh tests/lib/lint-memory.sh [FOLDER]      (default: backend)
set -u
folder=${1:-backend}
allocators='malloc|calloc|realloc|reallocarray|strdup|strndup|asprintf|vasprintf'
allocators="$allocators|aligned_alloc|posix_memalign"

found=$(for source in "$folder"/*.c "$folder"/*.h "$folder"/*/*.c "$folder"/*/*.h; do
	[ -e "$source" ] || continue
	awk -v allocators="$allocators" '
	# The line without comments (a block comment may span lines) and
	# with each string or character literal emptied.
	function code_of(text,    out, c, next2) {
		out = ""
		while (text != "") {
			c = substr(text, 1, 1); next2 = substr(text, 1, 2)
			if (in_comment) {
				if (next2 == "*/") { in_comment = 0; text = substr(text, 3) }
				else text = substr(text, 2)
				continue
			}
			if (next2 == "/*") { in_comment = 1; text = substr(text, 3); out = out " "; continue }
			if (next2 == "//") return out
			if (c == "\"" || c == "'\''") {
				text = substr(text, 2)
				while (text != "" && substr(text, 1, 1) != c)
					text = substr(text, substr(text, 1, 1) == "\\" ? 3 : 2)
				text = substr(text, 2); out = out c c
				continue
			}
			out = out c; text = substr(text, 2)
		}
		return out
	}
	BEGIN { call = "(^|[^A-Za-z0-9_.>])(" allocators ")[[:space:]]*\\(" }
	{ code = code_of($0); if (code ~ call) print FILENAME ":" FNR ":" $0 }' "$source"
done)

if [ -n "$found" ]; then
	printf '%s\n' "$found" | while IFS= read -r hit; do
		file=${hit%%:*}
		rest=${hit#*:}
		echo "$file:${rest%%:*}: allocates around model/array.h (array_grow, array_alloc, ...):$(
		    printf '%s' "${rest#*:}" | sed 's/^[[:space:]]*/ /')" >&2
	done
	exit 1
fi
echo "  lint-memory every allocation in $folder/ goes through model/array.h"
