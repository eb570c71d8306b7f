#!/usr/bin/perl
# `make lint-layers`, the store's tables: each table of store.db has one
# owner file that holds its SQL (statements prepared once, errors
# translated once); the rest of the backend calls the owner's functions.
# Every string literal of backend/'s C files (adjacent literals joined, so
# a statement split over lines reads whole) is searched for a table named
# after FROM, JOIN, INTO, UPDATE or TABLE; a table named outside its owner
# is an error naming file, line and owner. There is no allow-list: every
# table's SQL is with its owner.
# A join (docs/DESIGN.md §5, "The database") lives with the owner of the
# table whose rows it returns and may read the other tables it names: a
# statement naming a table its file owns may name others of any owner, so
# long as it writes (INSERT INTO, UPDATE, DELETE FROM) only its own.
#
#   perl tests/lib/lint-sql.pl [FOLDER]      (default: backend)
use strict;
use warnings;

my $folder = shift // 'backend';

# The owner of each table, as a path under FOLDER.
my %owner = (
	meta => 'store/store.c', replica => 'store/store.c', op => 'store/store.c',
	version => 'history/history.c', version_alias => 'history/history.c',
	node => 'history/head.c',
	conflict => 'history/conflicts.c', peer => 'sync/peer.c',
	entry => 'disk/scan.c', pack => 'store/pack_index.c', chunk => 'store/pack_index.c',
	blob => 'history/blob.c', folder => 'disk/reconcile.c', dirty => 'disk/reconcile.c',
	watch => 'disk/watch.c',
);
# The schema and its migrations name every table: store.c and its chain
# migration may.
my %schema = map { $_ => 1 } ('store/store.c', 'store/store_chain.c');

my $status = 0;
for my $path (sort(glob("$folder/*.[ch]")), sort(glob("$folder/*/*.[ch]"))) {
	(my $file = $path) =~ s{^\Q$folder\E/}{};
	open my $in, '<', $path or die "$path: $!\n";
	my $text = do { local $/; <$in> };
	close $in;
	$text =~ s{/\*.*?\*/}{ my $c = $&; $c =~ tr/\n//cd; $c }gse;	# comments, lines kept
	$text =~ s{//[^\n]*}{}g;
	# Runs of adjacent literals: "..." (blank, newline or a macro's
	# continued line) "..." ...
	while ($text =~ /((?:"(?:[^"\\\n]|\\.)*"(?:\s|\\\n)*)+)/g) {
		my ($run, $at) = ($1, $-[1]);
		my $line = 1 + (substr($text, 0, $at) =~ tr/\n//);
		my $sql = join ' ', $run =~ /"((?:[^"\\\n]|\\.)*)"/g;
		next if $schema{$file};
		my (@named, %written);
		while ($sql =~ /\b(DELETE\s+FROM|FROM|JOIN|INTO|UPDATE|TABLE)\s+(\w+)/g) {
			my ($how, $table) = (uc $1, lc $2);
			next unless exists $owner{$table};
			push @named, $table;
			$written{$table} = 1 if $how =~ /^(?:DELETE|INTO|UPDATE|TABLE)/;
		}
		# A join in an owner: the tables it only reads are let be.
		my $joins_in_owner = grep { $owner{$_} eq $file } @named;
		for my $table (@named) {
			next if $owner{$table} eq $file;
			next if $joins_in_owner && !$written{$table};
			print STDERR "$folder/$file:$line: SQL of table $table outside its owner"
			    . " ($folder/$owner{$table}): call a function of the owner"
			    . ($joins_in_owner ? " (a join reads another owner's table, never writes it)" : "")
			    . "\n";
			$status = 1;
		}
	}
}
print "  lint-sql no table's SQL in $folder/ outside its owner\n" unless $status;
exit $status;
