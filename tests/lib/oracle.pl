#!/usr/bin/perl
# The end-to-end differential oracle (issue 12): a random scenario of 3 to 5
# replicas, replayable from its seed, driven through the real CLI. After
# every step, each replica the step touched is checked: for head and every
# version, `export`, `ls -l` walked down every folder, `show --cat` of each
# file and `checkout` + the working tree must give one tree, the one the pure
# model derives from the ops that replica holds (hearth-test-tool derive),
# and replicas that hold the same ops, or name the same version, must agree.
#
#   perl tests/lib/oracle.pl [--seed N] [--count N] [--steps N] [--depth 0|1|2]
#                            [--known LIST] [--work DIR] [--keep] [--stop] [--verbose]
#
# --count runs N scenarios from seed N, N+1, ...; one that fails prints its
# transcript (every command it ran, as shell lines to replay by hand) and
# the mismatch, keeps its folder, and the run goes on (--stop: ends there)
# and exits 1. A run of several ends with a tally of what its scenarios did
# (also when stopped by SIGTERM, then exiting 2 if nothing failed).
# A seed replays the same commands; replica and node ids are random, so
# which side of a concurrent change wins may differ from run to run.
#
# --depth: at 1 (the default) a version's ls, show and checkout views are
# checked on the first replica that holds it, its export and model tree on
# every replica, head's ls and show on its top folder, and at the end
# every view of every version and of head again on r0; at 2 every view on
# every replica; at 0 (long runs) a version's ls and show of its top folder
# and its checkout wait for the end, its export is checked on the first
# replica only, and head gets export (and the plain checkout) until the
# end, where every view of head is checked.
#
# --known names defects not fixed yet whose scenarios are left out, so a
# run is about everything else (comma-separated):
#   head     views of the name `head` (export/ls/show/checkout head) are not
#            checked, only the versions by id and a plain `checkout`
#   name     names are unique to the replica and step that made them, so no
#            two files ever clash on one name
#   reid     no replica is copied and given a new id
#   resolve  only a replica whose working tree is at head resolves
# HEARTH_BIN and HEARTH_TEST_TOOL name the programs (as test-lib.sh sets).
use strict;
use warnings;
use Digest::SHA;
use File::Find;
use File::Path qw(make_path remove_tree);
use Getopt::Long;
use POSIX qw(_exit);

my %opt = (seed => 1, count => 1, steps => 14, depth => 1, known => '', keep => 0, stop => 0,
    verbose => 0);
GetOptions(\%opt, 'seed=i', 'count=i', 'steps=i', 'depth=i', 'work=s', 'known=s', 'keep', 'stop',
    'verbose')
    or die "usage: oracle.pl [--seed N] [--count N] [--steps N] [--work DIR] [--known LIST]\n";
my $hearth = $ENV{HEARTH_BIN} or die "oracle: HEARTH_BIN is not set\n";
my $tool = $ENV{HEARTH_TEST_TOOL} or die "oracle: HEARTH_TEST_TOOL is not set\n";
my %known = map { $_ => 1 } grep { length } split /,/, $opt{known};
for (keys %known) { die "oracle: unknown --known $_\n" unless /^(head|name|reid|resolve)$/ }
my $top = $opt{work} // ($ENV{TMPDIR} // '/tmp') . "/hearth-oracle.$$";

# ---- one scenario's state --------------------------------------------------------

my %calls;	# programs run, by name and first argument (--verbose prints them)
my %tally;	# what the scenarios did, for the summary of a long run
my ($work, @replicas, @transcript, %checked, %version_tree, %opset_tree, $checks, $step);
my %at_head;	# replica => its working tree is at head with nothing unrecorded
my $serial;	# makes unique names and distinct content

sub note { push @transcript, join '', @_ }

sub fail {
	my ($what) = @_;
	die "MISMATCH at step $step: $what\n";
}

sub pick { return $_[int rand @_] }

sub shuffle {
	my @items = @_;
	for (my $i = $#items; $i > 0; $i--) {
		my $j = int rand($i + 1);
		@items[$i, $j] = @items[$j, $i];
	}
	return @items;
}

sub slurp {
	my ($path) = @_;
	open my $in, '<', $path or return '';
	local $/;
	my $text = <$in>;
	return $text // '';
}

# Shell quoting for the transcript.
sub quote {
	my ($word) = @_;
	return $word if $word =~ m{^[A-Za-z0-9_./=:,+-]+$};
	$word =~ s/'/'\\''/g;
	return "'$word'";
}

# Runs a program in a folder; returns (exit status, stdout, stderr).
sub run_in {
	my ($dir, @command) = @_;
	$calls{($command[0] =~ m{([^/]+)$})[0] . " " . ($command[1] // "")}++;
	my $pid = open(my $out, '-|') // die "oracle: cannot fork: $!\n";
	if (!$pid) {
		chdir $dir or _exit(126);
		open STDERR, '>', "$work/.stderr" or _exit(126);
		exec { $command[0] } @command or _exit(127);
	}
	local $/;
	my $text = <$out> // '';
	close $out;
	my $status = $? & 127 ? 128 + ($? & 127) : $? >> 8;
	return ($status, $text, slurp("$work/.stderr"));
}

# Runs hearth in a replica and records it in the transcript; a failure is a
# finding unless the caller allows it.
sub hearth_in {
	my ($replica, @args) = @_;
	my $allow = ref $args[-1] eq 'HASH' ? pop @args : {};
	note "(cd $replica && hearth ", join(' ', map { quote($_) } @args), ")";
	my ($status, $out, $err) = run_in("$work/$replica", $hearth, @args);
	if ($status != 0 && !$allow->{$status}) {
		fail("`hearth @args` in $replica exited $status: $err");
	}
	return wantarray ? ($status, $out, $err) : $out;
}

# The same, not recorded (the checks' own reads).
sub read_in {
	my ($replica, @args) = @_;
	my ($status, $out, $err) = run_in("$work/$replica", @args);
	fail("`@args` in $replica exited $status: $err") if $status != 0;
	return $out;
}

# ---- manifests: tree_manifest of tests/lib/manifest.sh, in this process -----------------

sub escape {
	my ($bytes) = @_;
	$bytes =~ s/([^\x21-\x5b\x5d-\x7e])/sprintf("\\x%02x", ord $1)/ge;
	return $bytes;
}

# One line per path, sorted; folders without their mode (the model has none).
sub tree_manifest {
	my ($dir) = @_;
	my @lines;
	find({ no_chdir => 1, wanted => sub {
		my $path = $File::Find::name;
		return if $path eq $dir;
		my $name = substr($path, length($dir) + 1);
		if ($name =~ m{(^|/)\.hearth$} && -d $path && !-l $path) {
			$File::Find::prune = 1;
			return;
		}
		return if $name =~ m{(^|/)\.hearth-id$};
		my @st = lstat $path;
		if (-l _) { push @lines, escape($name) . " l " . escape(readlink $path) }
		elsif (-d _) { push @lines, escape($name) . " d" }
		else {
			push @lines, sprintf("%s f %o %s", escape($name), $st[2] & 07777,
			    Digest::SHA->new(256)->addfile($path)->hexdigest);
		}
	} }, $dir);
	return join '', map { "$_\n" } sort @lines;
}

sub model_tree {
	my ($replica, $version) = @_;
	return read_in($replica, $tool, 'derive', '.', $version);
}

# The model's head and the digest of the ops it derives from.
sub model_head {
	my ($replica) = @_;
	my $out = read_in($replica, $tool, 'derive', '--ops', '.');
	$out =~ s/^ops (\S+)\n// or fail("derive --ops in $replica wrote no digest");
	return ($1, $out);
}

# The tree `ls -l` and `show --cat` give for a version: ls of each folder
# (parsed by its fixed columns), the bytes of each file by show --cat. ls
# cannot show a link's target, so links are compared by name and kind.
sub listed_tree {
	my ($replica, $version, $light) = @_;
	my (@lines, @files);
	my @folders = ('');
	while (@folders) {
		my $folder = shift @folders;
		my $out = read_in($replica, $hearth, 'ls', '-l', '-z', $version,
		    length $folder ? ($folder) : ());
		for my $entry (split /\0/, $out) {
			# "K MODE       SIZE YYYY-MM-DD HH:MM ROOT     NAME" (tui/cli_ls.c)
			$entry =~ /^(.) +(\S+) +\S+ (?:\S+ \S+|-) +(\S+) /
			    or fail("ls -l of $version:$folder in $replica: cannot parse \"$entry\"");
			my ($kind, $mode, $root) = ($1, $2, $3);
			my $at = 35 + (length $root > 8 ? length $root : 8) + 1;
			my $name = substr($entry, $at);
			my $path = length $folder ? "$folder/$name" : $name;
			if ($kind eq 'd') {
				push @lines, escape($path) . " d";
				push @folders, $path unless $light;
			} elsif ($kind eq 'l') {
				push @lines, escape($path) . " l";
			} else {
				push @files, [$path, oct($mode)];
			}
		}
	}
	# Light: the bytes of the first file (by its escaped name) only.
	@files = sort { escape($a->[0]) cmp escape($b->[0]) } @files;
	for my $file (@files) {
		my ($path, $mode) = @$file;
		if ($light && $file != $files[0]) {
			push @lines, sprintf("%s f %o", escape($path), $mode);
			next;
		}
		my $bytes = read_in($replica, $hearth, 'show', '--cat', $version, $path);
		push @lines, sprintf("%s f %o %s", escape($path), $mode, Digest::SHA::sha256_hex($bytes));
	}
	return join '', map { "$_\n" } sort @lines;
}

sub without_link_targets {
	my ($manifest) = @_;
	$manifest =~ s/^(\S+ l) .*$/$1/mg;
	return $manifest;
}

sub exported_tree {
	my ($replica, $version) = @_;
	my $dir = "$work/.export";
	remove_tree($dir);
	read_in($replica, $hearth, 'export', $version, $dir);
	my $tree = tree_manifest($dir);
	remove_tree($dir);
	return $tree;
}

sub same {
	my ($what, $want, $got, $want_name) = @_;
	$want_name //= 'the model';
	$checks++;
	return if $want eq $got;
	my %want = map { $_ => 1 } split /\n/, $want;
	my %got = map { $_ => 1 } split /\n/, $got;
	my $diff = join '', (map { "  - $_\n" } grep { !$got{$_} } sort keys %want),
	    (map { "  + $_\n" } grep { !$want{$_} } sort keys %got);
	fail("$what differs from $want_name (- only in $want_name, + only in $what):\n$diff");
}

# ---- the checks ---------------------------------------------------------------------

sub versions_of {
	my ($replica) = @_;
	return read_in($replica, $hearth, 'log') =~ /^version ([0-9a-f]{64})$/mg;
}

# What ls shows of a tree when only its top folder is listed and only its
# first file read: the top's entries, files after the first without bytes.
sub top_of {
	my ($manifest) = @_;
	my ($files, @lines) = (0);
	for my $line (split /\n/, without_link_targets($manifest)) {
		next if $line =~ m{^\S*/};
		$line =~ s/^(\S+ f \S+) .*/$1/ if $line =~ /^\S+ f / && $files++;
		push @lines, $line;
	}
	return join '', map { "$_\n" } @lines;
}

# The views of one version (an id, or "head") against the model's tree:
# export, and with $listed ls -l + show --cat ("top": of the top folder
# and its first file only). Checkouts are checked apart (check_checkouts).
sub check_views {
	my ($replica, $version, $model, $listed) = @_;
	same("export $version in $replica", $model, exported_tree($replica, $version));
	return unless $listed;
	if ($listed eq 'top') {
		same("ls -l + show --cat $version (the top folder) in $replica", top_of($model),
		    listed_tree($replica, $version, 1));
		return;
	}
	same("ls -l + show --cat $version in $replica", without_link_targets($model),
	    listed_tree($replica, $version));
}

# checkout of each version named (with its model tree) in turn, then back to
# head with a plain checkout: each time the working tree is the model's.
sub check_checkouts {
	my ($replica, $head, @trees) = @_;
	return unless $at_head{$replica} && @trees;
	while (my ($version, $model) = splice @trees, 0, 2) {
		read_in($replica, $hearth, 'checkout', '--yes', $version);
		same("checkout $version in $replica (working tree)", $model,
		    tree_manifest("$work/$replica"));
	}
	read_in($replica, $hearth, 'checkout', '--yes');
	same("checkout in $replica back at head (working tree)", $head, tree_manifest("$work/$replica"));
}

# Checks head and the versions not checked yet on this replica (all of
# them, and head's every folder, when $full).
sub check_replica {
	my ($replica, $full) = @_;
	my ($ops, $head) = model_head($replica);
	my @checkouts;
	if ($at_head{$replica}) {
		same("the working tree of $replica at head", $head, tree_manifest("$work/$replica"));
		my $status = read_in($replica, $hearth, 'status', '--porcelain');
		fail("status of $replica at head lists changes:\n$status") if $status =~ /^[^#]/m;
	}
	if (!$known{head}) {
		check_views($replica, 'head', $head, $full ? 'all' : $opt{depth} ? 'top' : '');
		push @checkouts, 'head', $head if $full || $opt{depth};
	}
	for my $version (versions_of($replica)) {
		next if $checked{"$replica $version"} && !$full;
		# At depth 0 a version is derived on the first replica that holds
		# it and on r0 at the end: after the end's sync every replica holds
		# r0's ops, so their derivations cannot differ.
		next if !$opt{depth} && !$full && $version_tree{$version} && $step eq 'end';
		my $model = model_tree($replica, $version);
		my $first = !defined $version_tree{$version};
		$version_tree{$version} //= [$replica, $model];
		my ($by, $tree) = @{ $version_tree{$version} };
		same("the model's tree of $version in $replica", $tree, $model,
		    "the model's tree of it in $by");
		my $listed = $full || $opt{depth} > 1 || ($opt{depth} && $first);
		if ($listed || $first || $opt{depth}) {
			check_views($replica, $version, $model, !$listed ? '' : $opt{depth} ? 'all' : 'top');
		}
		push @checkouts, $version, $model if $listed;
		$checked{"$replica $version"} = 1;
	}
	check_checkouts($replica, $head, @checkouts);
	# log PATH of every path of head lists, from the path's scope, what each
	# version's whole trees give (backend/history/path_scope.h).
	my ($log_status, $log_out) = run_in("$work/$replica", $tool, 'log-paths', '.');
	fail("log PATH from a scope differs from whole trees in $replica:\n$log_out")
	    if $log_status != 0;
	# show of every version lists, from the scope of what it changed, what
	# its whole trees give.
	my ($show_status, $show_out) = run_in("$work/$replica", $tool, 'show-versions', '.');
	fail("show from a scope differs from whole trees in $replica:\n$show_out")
	    if $show_status != 0;
	# fsck finds every replica sound after every step (its store, head
	# against the ops, the index and what it notes of itself).
	read_in($replica, $hearth, 'fsck');
	# Replicas that hold the same ops derive the same head.
	$opset_tree{$ops} //= [$replica, $head];
	my ($by, $tree) = @{ $opset_tree{$ops} };
	same("the model's head of $replica", $tree, $head, "that of $by, which holds the same ops");
}

# ---- the working tree's random changes ---------------------------------------------------

my @FILE_NAMES = ('a.txt', 'b.txt', 'notes.md', 'sp ace.txt', "\xc3\xbcn\xc3\xaf.txt",
    "raw\xff.bin", 'c', '.hidden');
my @FOLDER_NAMES = ('docs', 'src', 'my dir', 'x');
my @MODES = (0644, 0600, 0755, 0700, 0640);

sub fresh_name {
	my ($pool, $replica) = @_;
	my $name = pick(@$pool);
	return $name unless $known{name};
	$serial++;
	return $name =~ /^(.+)(\.[^.]+)$/ ? "$1-$replica-$serial$2" : "$name-$replica-$serial";
}

sub fresh_content {
	$serial++;
	return join '', map { chr(int rand 256) } 1 .. 1 + int rand 64 if rand() < 0.1;
	return join '', map { "line $_ of $serial\n" } 1 .. 1 + int rand 8;
}

# What the working tree of a replica holds: folders (top as '') and files.
sub tree_paths {
	my ($replica) = @_;
	my $dir = "$work/$replica";
	my @folders = ('');
	my @files;
	find({ no_chdir => 1, wanted => sub {
		my $path = $File::Find::name;
		return if $path eq $dir;
		my $name = substr($path, length($dir) + 1);
		if ($name =~ m{(^|/)\.hearth(-id)?$}) {
			$File::Find::prune = 1;
			return;
		}
		if (-d $path && !-l $path) { push @folders, $name }
		else { push @files, $name }
	} }, $dir);
	return ([sort @folders], [sort @files]);
}

sub join_path { my ($folder, $name) = @_; return length $folder ? "$folder/$name" : $name }

sub write_file {
	my ($path, $content) = @_;
	open my $out, '>', $path or die "oracle: cannot write $path: $!\n";
	print $out $content;
	close $out;
}

# One random change to a replica's working tree, written to the transcript
# as the shell command that makes it.
sub change_tree {
	my ($replica) = @_;
	my ($folders, $files) = tree_paths($replica);
	my $dir = "$work/$replica";
	my $kind = pick(qw(create create edit edit edit rename move mkdir rmdir delete chmod link
	    move_folder));
	$kind = 'create' if !@$files && $kind =~ /^(edit|rename|move|delete|chmod)$/;
	$kind = 'mkdir' if @$folders < 2 && $kind =~ /^(rmdir|move_folder)$/;
	$tally{"tree changes: $kind"}++;
	if ($kind eq 'create' || $kind eq 'mkdir' || $kind eq 'link') {
		my $folder = pick(@$folders);
		my $path = join_path($folder, fresh_name($kind eq 'mkdir' ? \@FOLDER_NAMES : \@FILE_NAMES,
		    $replica));
		return if -e "$dir/$path" || -l "$dir/$path";
		if ($kind eq 'mkdir') {
			note "mkdir $replica/", quote($path);
			mkdir "$dir/$path" or die "oracle: mkdir $path: $!\n";
		} elsif ($kind eq 'link') {
			my $target = pick('a.txt', '../docs', 'nowhere', 'sp ace.txt');
			note "ln -s ", quote($target), " $replica/", quote($path);
			symlink $target, "$dir/$path" or die "oracle: symlink $path: $!\n";
		} else {
			note "printf ... > $replica/", quote($path);
			write_file("$dir/$path", fresh_content());
		}
		return;
	}
	if ($kind eq 'edit') {
		my $path = pick(@$files);
		return if -l "$dir/$path";
		my @lines = split /^/, slurp("$dir/$path");
		$serial++;
		if (@lines > 1 && rand() < 0.6) {
			$lines[int rand @lines] = "line edited at $serial\n";
		} else {
			push @lines, "line added at $serial\n";
		}
		note "edit $replica/", quote($path);
		write_file("$dir/$path", join '', @lines);
		return;
	}
	if ($kind eq 'rename' || $kind eq 'move') {
		my $path = pick(@$files);
		my $folder = $kind eq 'move' ? pick(@$folders) : ($path =~ m{^(.*)/} ? $1 : '');
		my $to = join_path($folder, fresh_name(\@FILE_NAMES, $replica));
		return if -e "$dir/$to" || -l "$dir/$to";
		note "mv $replica/", quote($path), " $replica/", quote($to);
		rename "$dir/$path", "$dir/$to" or die "oracle: mv $path: $!\n";
		return;
	}
	if ($kind eq 'move_folder') {
		my $path = pick(grep { length } @$folders);
		my $into = pick(grep { $_ ne $path && index("$_/", "$path/") != 0 } @$folders);
		my $to = join_path($into, fresh_name(\@FOLDER_NAMES, $replica));
		return if -e "$dir/$to";
		note "mv $replica/", quote($path), " $replica/", quote($to);
		rename "$dir/$path", "$dir/$to" or die "oracle: mv $path: $!\n";
		return;
	}
	if ($kind eq 'rmdir') {
		my $path = pick(grep { length } @$folders);
		note "rm -rf $replica/", quote($path);
		remove_tree("$dir/$path");
		return;
	}
	my $path = pick(@$files);
	if ($kind eq 'delete') {
		note "rm $replica/", quote($path);
		unlink "$dir/$path" or die "oracle: rm $path: $!\n";
		return;
	}
	return if -l "$dir/$path";
	my $mode = pick(@MODES);
	note sprintf("chmod %o %s/%s", $mode, $replica, quote($path));
	chmod $mode, "$dir/$path" or die "oracle: chmod $path: $!\n";
}

# ---- the steps ------------------------------------------------------------------------

sub record_in {
	my ($replica, $message) = @_;
	hearth_in($replica, 'record', '--yes', '-m', $message);
}

my @touched;

sub step_record {
	my $replica = pick(@replicas);
	change_tree($replica) for 1 .. 1 + int rand 3;
	record_in($replica, "step $step");
	@touched = ($replica);
}

# The pulling side's tree comes to head by `sync --checkout`, by a checkout
# after the sync, or stays where it was (behind head).
sub sync_pair {
	my ($from, $to) = @_;
	my $roll = rand;
	my $out = hearth_in($from, 'sync', $roll < 0.25 ? ('--checkout', '--yes') : (), "../$to");
	$at_head{$to} = 0;
	# sync --checkout checks out when it brought something.
	$at_head{$from} = $roll < 0.25 && ($at_head{$from} || $out !~ /received 0 ops/);
	if ($roll >= 0.25 && $roll < 0.8) {
		hearth_in($from, 'checkout', '--yes');
		$at_head{$from} = 1;
	}
	push @touched, $from, $to;
}

# A pair, a chain through every replica in a random order, or a star.
sub step_sync {
	my @order = shuffle(@replicas);
	my $shape = rand;
	if ($shape < 0.5) {
		sync_pair($order[0], $order[1]);
	} elsif ($shape < 0.75) {
		sync_pair($order[$_], $order[$_ + 1]) for 0 .. $#order - 1;
	} else {
		sync_pair($_, $order[0]) for @order[1 .. $#order];
	}
}

# Settles one conflict of a replica with a random choice.
sub step_resolve {
	my @with;
	for my $replica (@replicas) {
		next if $known{resolve} && !$at_head{$replica};
		my $list = read_in($replica, $hearth, 'conflicts', '--porcelain');
		push @with, [$replica, $list] if $list =~ /\S/;
	}
	return step_sync() unless @with;
	my ($replica, $list) = @{ pick(@with) };
	my @conflicts = $list =~ /^(\S+) (\S+) /mg;
	my $index = int rand(@conflicts / 2);
	my ($id, $kind) = @conflicts[2 * $index, 2 * $index + 1];
	my %seen;
	$tally{"conflicts met: $_"}++ for grep { !$seen{$_}++ } $list =~ /^\S+ (\S+) /mg;
	my @choices = ('--mine', '--theirs', '--both');
	my @versions = versions_of($replica);
	push @choices, '--take' if $kind eq 'content' && @versions;
	my $choice = pick(@choices);
	my @args = $choice eq '--take' ? ('--take', substr(pick(@versions), 0, 12)) : ($choice);
	# A choice that does not fit the kind is refused as a usage error.
	my ($status, $out, $err) = hearth_in($replica, 'resolve', @args, $id, { 2 => 1 });
	note "# refused: $err" if $status == 2;
	$tally{"resolve $kind $choice" . ($status == 2 ? ' (refused)' : '')}++;
	@touched = ($replica);
}

# Checks an old version out and records it (a restore), sometimes with a
# change on top.
sub step_restore {
	my $replica = pick(@replicas);
	my @versions = versions_of($replica);
	return step_record() if @versions < 2;
	hearth_in($replica, 'checkout', '--yes', pick(@versions[1 .. $#versions]));
	change_tree($replica) if rand() < 0.5;
	record_in($replica, "restore at step $step");
	$at_head{$replica} = 0;
	@touched = ($replica);
}

# A replica copied with cp -a: both record, then the copy takes a new id
# (sync is refused before that) and both go on.
sub step_copy {
	return step_record() if $known{reid} || @replicas >= 5;
	my $from = pick(@replicas);
	my $copy = 'r' . scalar @replicas;
	note "cp -a $from $copy";
	system('cp', '-a', "$work/$from", "$work/$copy") == 0 or die "oracle: cp -a failed\n";
	push @replicas, $copy;
	$at_head{$copy} = $at_head{$from};
	if (rand() < 0.6) {
		for my $replica ($from, $copy) {
			change_tree($replica);
			record_in($replica, "step $step in $replica");
		}
	}
	hearth_in($copy, 'reid');
	@touched = ($from, $copy);
}

# Every replica syncs with the first twice around, then all check out: all
# must hold the same ops and show the same tree.
sub converge {
	for my $round (1, 2) {
		hearth_in($_, 'sync', "../$replicas[0]") for @replicas[1 .. $#replicas];
	}
	for my $replica (@replicas) {
		hearth_in($replica, 'checkout', '--yes');
		$at_head{$replica} = 1;
	}
	my $first;
	for my $replica (@replicas) {
		my ($ops) = model_head($replica);
		$first //= $ops;
		fail("after syncing all, $replica holds other ops than $replicas[0]") if $ops ne $first;
	}
}

sub scenario {
	my ($seed) = @_;
	srand($seed);
	$work = "$top/$seed";
	remove_tree($work);
	make_path($work);
	(@replicas, @transcript, %checked, %version_tree, %opset_tree, %at_head) = ();
	($checks, $step, $serial) = (0, 0, 0);
	my $count = 3 + int rand 2;
	@replicas = ('r0');
	hearth_in('.', 'init', 'r0');
	change_tree('r0') for 1 .. 4;
	# Four changes may cancel out; the first version holds something.
	if (!@{ (tree_paths('r0'))[1] }) {
		note "printf ... > r0/first.txt";
		write_file("$work/r0/first.txt", fresh_content());
	}
	hearth_in('r0', 'record', '--yes', '-m', 'start');
	for my $index (1 .. $count - 1) {
		hearth_in('.', 'clone', 'r0', "r$index");
		push @replicas, "r$index";
	}
	$at_head{$_} = 1 for @replicas;
	check_replica($_, 0) for @replicas;
	for ($step = 1; $step <= $opt{steps}; $step++) {
		@touched = ();
		my $roll = rand;
		my $kind = $roll < 0.45 ? 'record' : $roll < 0.75 ? 'sync' : $roll < 0.87 ? 'resolve'
		    : $roll < 0.94 ? 'restore' : 'copy';
		$tally{"steps drawn: $kind"}++;
		if ($kind eq 'record') { step_record() }
		elsif ($kind eq 'sync') { step_sync() }
		elsif ($kind eq 'resolve') { step_resolve() }
		elsif ($kind eq 'restore') { step_restore() }
		else { step_copy() }
		my %seen;
		check_replica($_, 0) for grep { !$seen{$_}++ } @touched;
	}
	$step = 'end';
	converge();
	# Views that changed as more ops arrived: every version again on one.
	check_replica($_, $_ eq 'r0' || $opt{depth} > 1) for @replicas;
	my @versions = versions_of('r0');
	my %seen;
	$tally{"conflicts left at the end: $_"}++
	    for grep { !$seen{$_}++ } read_in('r0', $hearth, 'conflicts', '--porcelain') =~ /^\S+ (\S+) /mg;
	$tally{"replicas: " . scalar @replicas}++;
	$tally{'versions'} += @versions;
	$tally{'checks'} += $checks;
	$tally{'scenarios'}++;
	return scalar @versions;
}

make_path($top);
my @failed;
my $current;
# A long run stopped by SIGTERM says how far it got: the scenarios done
# (the one under way is not counted), their tally and the seeds failed.
$SIG{TERM} = sub {
	$| = 1;
	print "# stopped at seed $current: ", $tally{scenarios} // 0, " scenarios done\n";
	print map { "# tally: $_ $tally{$_}\n" } sort keys %tally;
	print "# failed seeds: @failed\n" if @failed;
	exit(@failed ? 1 : 2);
};
for my $seed ($opt{seed} .. $opt{seed} + $opt{count} - 1) {
	$current = $seed;
	my $versions = eval { scenario($seed) };
	if (!defined $versions) {
		my $why = $@;
		print "# seed $seed FAILED (--known '$opt{known}', --steps $opt{steps}, ",
		    "--depth $opt{depth}); its commands, in $work:\n";
		print "#   $_\n" for @transcript;
		print "# $_\n" for split /\n/, $why;
		push @failed, $seed;
		last if $opt{stop};
		next;
	}
	print "# seed $seed: ", scalar @replicas, " replicas, $versions versions, $checks checks\n"
	    if $opt{verbose} || $opt{count} == 1;
	remove_tree($work) unless $opt{keep};
}
print "# calls: ", join(", ", map { "$_ $calls{$_}" } sort keys %calls), "\n" if $opt{verbose};
print map { "# tally: $_ $tally{$_}\n" } sort keys %tally if $opt{verbose} || $opt{count} > 1;
print "# failed seeds: @failed\n" if @failed && $opt{count} > 1;
remove_tree($top) unless @failed || $opt{keep} || $opt{work};
exit(@failed ? 1 : 0);
