#!/bin/sh
# Turns standard input into a C file defining NAME (bytes, NUL-terminated)
# and NAME_length, so a file such as config/default.yaml is compiled in.
name=$1
printf '/* generated from a source file by tests/lib/embed.sh; do not edit */\n'
printf '#include <stddef.h>\n'
printf 'const char %s[] = {\n' "$name"
od -An -v -tx1 | sed -e 's/  */ /g' -e 's/^ //' -e '/^$/d' -e 's/\([0-9a-f][0-9a-f]\)/0x\1,/g'
printf '0x00 };\nconst size_t %s_length = sizeof %s - 1;\n' "$name" "$name"
