#!/usr/bin/perl
# The labs cannot rot (docs/labs/): for every lab, tools/lab/lab-start
# writes its starting tree from the current code (a function its spec
# names but the code no longer has fails here), the starting tree builds
# and grades below full, and the finished tree grades full. The lab
# measure-depth has no code: its answer sheet, filled in from the
# committed docs/bench/depth.csv by this test's own arithmetic, grades
# full, and one answer a depth step off grades below. Last, a spec naming
# a function the code does not have stops lab-start with its name.
use strict;
use warnings;
use File::Temp qw(tempdir);
use FindBin;
use Test::More;

chdir "$FindBin::Bin/../.." or die "chdir: $!";
my @labs = map { m{docs/labs/([^/]+)/lab$} ? $1 : () } sort glob('docs/labs/*/lab');
ok(@labs >= 7, "at least seven labs (@labs)");
my $tmp = tempdir('labs-XXXXXX', TMPDIR => 1, CLEANUP => 1);

# Grades the tree in dir (lab: its .lab, or this one); logs under tag.
sub grade {
	my ($dir, $lab, $tag, %env) = @_;
	local @ENV{keys %env} = values %env;
	local $ENV{LAB_LOGS} = "$tmp/logs-$tag";
	my $out = `cd '$dir' && tools/lab/grade $lab 2>&1`;
	my ($got, $total) = $out =~ /^Score: (\d+)\/(\d+)$/m;
	return ($? >> 8, $got // -1, $total // -1, $out);
}

for my $lab (@labs) {
	my $dir = "$tmp/$lab";
	my $start = `tools/lab/lab-start $lab $dir 2>&1`;
	ok($? == 0, "$lab: lab-start writes the starting tree") or diag($start), next;
	my %env = $lab eq 'measure-depth' ? (LAB_DEPTH_CSV => 'docs/bench/depth.csv') : ();
	my ($st, $got, $total, $out) = grade($dir, '', "$lab-start", %env);
	ok($out !~ /^grade: the build failed/m, "$lab: the starting tree builds") or diag($out);
	ok($st == 1 && $got >= 0 && $got < $total, "$lab: the starting tree grades below full ($got/$total)")
		or diag($out);
	if ($lab eq 'measure-depth') {
		measure($dir);
		next;
	}
	($st, $got, $total, $out) = grade('.', $lab, "$lab-done");
	ok($st == 0 && $got == $total && $total > 0, "$lab: the finished tree grades full ($got/$total)")
		or diag($out);
}

# A function a spec names but the code does not have (renamed, say):
# lab-start stops, names it, and writes nothing. In a lab's copy of the
# tree, whose spec is changed to name one.
if (-d "$tmp/fp-backtrace") {
	my $spec = "$tmp/fp-backtrace/docs/labs/fp-backtrace/lab";
	open my $in, '<', $spec or die "$spec: $!";
	my $text = join '', <$in>;
	close $in;
	$text =~ s/^stub kern\/unwind\/user.c fp_step /stub kern\/unwind\/user.c fp_step_renamed /m or die;
	open my $out, '>', $spec or die;
	print $out $text;
	close $out;
	my $err = `$tmp/fp-backtrace/tools/lab/lab-start fp-backtrace $tmp/renamed 2>&1`;
	ok($? >> 8 == 1 && $err =~ /function fp_step_renamed not found/ && !-e "$tmp/renamed",
	   'a function the code does not have stops lab-start, named, nothing written') or diag($err);
}

# The answers from docs/bench/depth.csv, worked out here.
sub measure {
	my ($dir) = @_;
	my %c;
	open my $f, '<', 'docs/bench/depth.csv' or die "depth.csv: $!";
	chomp(my @keys = split /,/, <$f>);
	while (<$f>) {
		chomp;
		my %r;
		@r{@keys} = split /,/, $_, -1;
		$c{$r{mode}}{$r{x}} = \%r if $r{curve} eq 'depth';
	}
	my @d = sort { $a <=> $b } keys %{$c{sframe}};
	my $per = ($c{sframe}{$d[-1]}{unwind_modelled_per_sample} - $c{sframe}{1}{unwind_modelled_per_sample}) /
		  ($d[-1] - 1);
	my ($twice) = grep { $c{fp}{$_}{profiler_modelled_per_sample} > 2 * $c{sframe}{$_}{profiler_modelled_per_sample} } @d;
	my ($next) = grep { $_ > $twice } @d;
	for ([$twice, 0], [$next, 1]) {
		my ($depth, $wrong) = @$_;
		open my $a, '>', "$dir/answers.txt" or die;
		printf $a "sframe_cycles_per_frame: %.2f\nfp_twice_sframe_depth: %d\n", $per, $depth;
		close $a;
		my ($st, $got, $total, $out) = grade($dir, '', "measure-$wrong", LAB_DEPTH_CSV => 'docs/bench/depth.csv');
		ok($wrong ? $st == 1 && $got < $total : $st == 0 && $got == $total,
		   "measure-depth: " . ($wrong ? "a depth step off grades below full" : "right answers grade full") .
		   " ($got/$total)") or diag($out);
	}
}

done_testing();
