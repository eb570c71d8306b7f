#!/bin/sh
# `make lint-layers`, errors: below hearth.h every room reports a failure in
# the one error type, a struct hearth_error (backend/io/fail.h), so no
# function of backend/ takes a (char *error, size_t size) pair. The files
# still to move are listed in PENDING; the list may only shrink: a listed
# file with no pair left fails too, so that its entry goes. A perl pass
# over each C file with comments taken out; each pair names file and line.
#
#   sh tests/lib/lint-errors.sh [FOLDER]      (default: backend)
set -u
folder=${1:-backend}
# Files whose pairs are not yet moved to struct hearth_error.
PENDING='disk/home.c store/store.c store/store.h store/store_chain.c'

pending() {	# FILE (relative to FOLDER) -> true when listed
	for file in $PENDING; do
		[ "$file" = "$1" ] && return 0
	done
	return 1
}

bad=0
for source in "$folder"/*.c "$folder"/*.h "$folder"/*/*.c "$folder"/*/*.h; do
	[ -e "$source" ] || continue
	relative=${source#"$folder"/}
	pairs=$(perl -0777 -ne '
		my $text = $_;
		# Comments out, newlines kept so that line numbers hold.
		$text =~ s{/\*.*?\*/}{ (my $c = $&) =~ s/[^\n]//g; $c }gse;
		$text =~ s{//[^\n]*}{}g;
		while ($text =~ /char\s*\*\s*(err\w*)\s*,\s*size_t\s+\w+/g) {
			my $line = 1 + (substr($text, 0, $-[0]) =~ tr/\n//);
			print "$line\n";
		}' "$source")
	if pending "$relative"; then
		[ -n "$pairs" ] && continue
		echo "$source: listed in PENDING of tests/lib/lint-errors.sh but has no (char *error, size_t) pair left; take it off the list" >&2
		bad=1
		continue
	fi
	for line in $pairs; do
		echo "$source:$line: takes a (char *error, size_t) pair; take a struct hearth_error (backend/io/fail.h)" >&2
		bad=1
	done
done
[ $bad = 0 ] || exit 1
echo "  lint-errors every function in $folder/ reports in struct hearth_error, but in the files still to move"
