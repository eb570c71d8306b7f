#!/bin/sh
# `make lint-layers`, errors: below hearth.h every room reports a failure in
# the one error type, a struct hearth_error (backend/io/fail.h), so no
# function of backend/ takes a (char *error, size_t size) pair. A perl pass
# over each C file with comments taken out; each pair names file and line.
#
#   sh tests/lib/lint-errors.sh [FOLDER]      (default: backend)
set -u
folder=${1:-backend}

bad=0
for source in "$folder"/*.c "$folder"/*.h "$folder"/*/*.c "$folder"/*/*.h; do
	[ -e "$source" ] || continue
	pairs=$(perl -0777 -ne '
		my $text = $_;
		# Comments out, newlines kept so that line numbers hold.
		$text =~ s{/\*.*?\*/}{ (my $c = $&) =~ s/[^\n]//g; $c }gse;
		$text =~ s{//[^\n]*}{}g;
		while ($text =~ /char\s*\*\s*(err\w*)\s*,\s*size_t\s+\w+/g) {
			my $line = 1 + (substr($text, 0, $-[0]) =~ tr/\n//);
			print "$line\n";
		}' "$source")
	for line in $pairs; do
		echo "$source:$line: takes a (char *error, size_t) pair; take a struct hearth_error (backend/io/fail.h)" >&2
		bad=1
	done
done
[ $bad = 0 ] || exit 1
echo "  lint-errors every function in $folder/ reports in struct hearth_error"
