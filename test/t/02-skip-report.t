#!/usr/bin/perl
# tools/test-skips, which `make test` runs the suite through: on small
# test files of its own (a temporary directory, run in parallel as the
# suite is), it passes prove's options and status through, lists every
# skip with its reason, and fails the run when the skips are not those
# its list expects: an unlisted one, one with no reason, a listed one
# that did not happen, a count that differs, a skipped file. And the
# suite's own list (test/skips) parses and names only test files that
# exist.
use strict;
use warnings;
use FindBin;
use File::Temp 'tempdir';
BEGIN { chdir "$FindBin::Bin/../.." or die }
use Test::More;

my $dir = tempdir(CLEANUP => 1);
mkdir "$dir/t" or die;
sub tfile { my ($name, $tap) = @_; open my $fh, '>', "$dir/t/$name" or die; print $fh "print <<'E';\n${tap}E\n"; }
tfile('a.t', "1..3\nok 1 - runs\nok 2 # SKIP no frob here\nok 3 # SKIP no frob here\n");
tfile('b.t', "1..0 # SKIP nothing to do here\n");
tfile('c.t', "1..1\nok 1 - runs\n");

# Runs tools/test-skips on t/ with this list; its exit status and output.
sub run {
	my ($list, @opts) = @_;
	open my $fh, '>', "$dir/skips" or die;
	print $fh "# a comment\n\n$list";
	close $fh;
	my $out = `tools/test-skips --skips=$dir/skips -j2 @opts $dir/t 2>&1`;
	return ($? >> 8, $out);
}

my $both = "a.t 2 always no frob here\nb.t all always nothing to do here\n";
my ($st, $out) = run($both);
is($st, 0, 'the skips the list names: exit 0');
like($out, qr/^  a\.t\s+2 tests\s+no frob here  \[expected\]$/m, '... a test file\'s skips listed with their count and reason');
like($out, qr/^  b\.t\s+the whole file\s+nothing to do here  \[expected\]$/m, '... a skipped file listed');
like($out, qr/^Skips: as expected$/m, '... and said to be as expected');
like($out, qr/^Result: PASS$/m, '... after prove\'s own summary');

($st, $out) = run("a.t 2 always no frob here\n");
is($st, 1, 'a skipped file the list does not name: exit 1');
like($out, qr/^  b\.t .*nothing to do here  \[NOT EXPECTED\]$/m, '... named as not expected');
like($out, qr/^Skips: NOT as expected \(1 line/m, '... and counted');

($st, $out) = run("a.t 1 always no frob here\nb.t all always nothing to do here\n");
is($st, 1, 'two skips where the list says one: exit 1');
like($out, qr/^  a\.t .*\[NOT EXPECTED: 1 expected\]$/m, '... the count named');

($st, $out) = run("$both" . "c.t 1 always frob missing\n");
is($st, 1, 'a listed skip that did not happen: exit 1');
like($out, qr/^  c\.t: expected to skip \(1\), but did not: frob missing$/m, '... named');

($st, $out) = run("$both" . "z.t 1 always frob missing\n");
is($st, 0, 'a listed skip of a file not run is no failure');

{
	local $ENV{STITCH_CPUS} = 2;
	($st, $out) = run("$both" . "c.t 1 one-cpu frob missing\n");
	is($st, 0, 'a skip listed for one CPU does not have to happen with two');
	($st, $out) = run("a.t 2 one-cpu no frob here\nb.t all always nothing to do here\n");
	is($st, 1, '... and is not expected there');
}

tfile('d.t', "1..1\nok 1 # SKIP\n");
($st, $out) = run($both);
is($st, 1, 'a skip without a reason: exit 1');
like($out, qr/^  d\.t\s+1 test\s+-  \[NO REASON GIVEN\]$/m, '... named');
unlink "$dir/t/d.t";
tfile('d.t', "1..0\n");
($st, $out) = run($both);
is($st, 1, 'a file that plans no tests and says nothing: exit 1');
like($out, qr/^  d\.t\s+the whole file\s+-  \[NO REASON GIVEN\]$/m, '... named');
unlink "$dir/t/d.t";

tfile('e.t', "1..2\nok 1 - runs\nnot ok 2 - fails\n");
($st, $out) = run($both);
is($st, 1, 'a failing test with the expected skips: exit 1, prove\'s status kept');
like($out, qr/^Result: FAIL$/m, '... prove\'s summary');
unlink "$dir/t/e.t";

($st, $out) = run("a.t two always no frob here\n");
isnt($st, 0, 'a list line not FILE COUNT WHEN REASON: an error');
like($out, qr/skips:3: not FILE COUNT WHEN REASON/, '... naming the line');

# The suite's own list.
open my $fh, '<', 'test/skips' or die "test/skips: $!";
my @bad;
while (<$fh>) {
	next if /^\s*(#|$)/;
	my ($file) = /^(\S+)\s+(?:\d+|all)\s+(?:always|nonroot|one-cpu)\s+\S/ or push(@bad, "line $.: $_"), next;
	push @bad, "line $.: no test/t/$file" unless -f "test/t/$file";
}
ok(!@bad, 'test/skips: every line FILE COUNT WHEN REASON, of a test file that exists') or diag(@bad);

done_testing();
