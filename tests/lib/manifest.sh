# tree_manifest DIR: one line per path under DIR (hearth's own .hearth
# folders and .hearth-id markers left out), sorted by bytes: the path with
# every byte outside printable ASCII (and the backslash) as \xNN, its type
# (f file, d folder, l link), its permission bits, and a file's SHA-256 or
# a link's target. Equal manifests: the same names, kinds, modes and bytes.
tree_manifest() {
	perl -MFile::Find -MDigest::SHA -e '
		my $top = shift;
		sub esc { my $s = shift; $s =~ s/([^\x21-\x5b\x5d-\x7e])/sprintf("\\x%02x", ord $1)/ge; $s }
		my @lines;
		find({ no_chdir => 1, wanted => sub {
			my $path = $File::Find::name;
			return if $path eq $top;
			my $name = substr($path, length($top) + 1);
			if (-d $path && !-l $path && $_ =~ m{(^|/)\.hearth$}) { $File::Find::prune = 1; return; }
			return if $name =~ m{(^|/)\.hearth-id$};
			my @st = lstat $path;
			my $mode = sprintf "%o", $st[2] & 07777;
			if (-l $path) { push @lines, esc($name) . " l " . esc(readlink $path) }
			elsif (-d _) { push @lines, esc($name) . " d $mode" }
			else { push @lines, esc($name) . " f $mode " . Digest::SHA->new(256)->addfile($path)->hexdigest }
		} }, $top);
		print "$_\n" for sort @lines;
	' "$1"
}

# model_is_tree HOME: head as the pure model derives it from HOME's ops
# (hearth-test-tool derive) is HOME's working tree, and status lists
# nothing (the tests of what a record or checkout leaves).
model_is_tree() {
	"$HEARTH_TEST_TOOL" derive "$1" >"$1.model" &&
	tree_manifest "$1" | sed "s/ d [0-7]*\$/ d/" >"$1.tree" &&
	test_cmp "$1.model" "$1.tree" &&
	(cd "$1" && "$HEARTH_BIN" status --porcelain) | sed "/^#/d" >"$1.status" &&
	test_cmp /dev/null "$1.status"
}
