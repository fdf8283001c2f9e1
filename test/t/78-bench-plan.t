#!/usr/bin/perl
# make bench-plan / bench-collect: the plan as a job file, one boot a line
# with the SHA-256 of the kernel and the initrd it needs, run by GNU
# parallel (here locally, -j2), and the streams its jobs print turned into
# the tables. The tiny configuration this way must give what bench.py's
# own run gives (wall-clock fields apart). A job on other images refuses
# to boot; streams that are cut or lack a boot are refused with an exit
# status that says so.
use strict;
use warnings;
use FindBin;
BEGIN { chdir "$FindBin::Bin/../.." or die }
use File::Temp qw(tempdir);
use JSON::PP;
use Test::More;
use lib "$FindBin::Bin/../bench";
use BenchRun qw(@DRIVER slurp spew build_id);

plan skip_all => 'GNU parallel not installed (Debian package parallel)'
	unless system('parallel --version >/dev/null 2>&1') == 0;

my $dir = tempdir('bench-plan-XXXXXX', TMPDIR => 1, CLEANUP => !$ENV{BENCH_KEEP_TMP});
my @driver = (@DRIVER, '--config', 'tiny', '--parts', 'modes');
my $before = build_id();

my $out = `@driver --out $dir/p --plan $dir/plan.jobs 2>&1`;
is($?, 0, 'the plan: exit 0') or diag($out);
my @lines = split /\n/, slurp("$dir/plan.jobs") // '';
is(scalar @lines, 2, 'one line a boot: none and sframe');
is(scalar(grep { index($_, "--sha256 $before ") >= 0 } @lines), 2,
   'each line names the kernel and the initrd by their SHA-256');
ok(!-d "$dir/p/runs/suite-none" || !-e "$dir/p/runs/suite-none/records.bin", 'the plan boots nothing');

$out = `parallel --will-cite -j2 < $dir/plan.jobs > $dir/streams.jsonl 2> $dir/parallel.err`;
is($?, 0, 'GNU parallel ran every line') or diag(slurp("$dir/parallel.err"));
my @streams = split /\n/, slurp("$dir/streams.jsonl") // '';
is(scalar @streams, 2, 'a line of output a boot');

$out = `@driver --out $dir/p --collect $dir/streams.jsonl 2>&1`;
is($?, 0, 'collect: exit 0') or diag($out);
$out = `@driver --jobs 2 --out $dir/own 2>&1`;
is($?, 0, 'bench.py\'s own run: exit 0') or diag($out);

SKIP: {
	skip 'the kernel or the initrd was rebuilt during the test: run it again', 3
		if build_id() ne $before;
	my $canon = JSON::PP->new->canonical;
	my ($a, $b) = map { my $r = decode_json(slurp("$dir/$_/results.json") // '{}');
			    delete $r->{wall}; $canon->encode($r) } 'p', 'own';
	ok(length $a > 1000 && $a eq $b, 'results.json through GNU parallel: what bench.py gives, wall-clock fields apart')
		or diag(`diff $dir/p/results.json $dir/own/results.json`);
	ok(slurp("$dir/p/tables.md") eq slurp("$dir/own/tables.md"), 'tables.md: the same');
	ok(slurp("$dir/p/runs/suite-sframe/records.bin") eq slurp("$dir/own/runs/suite-sframe/records.bin"),
	   'the stream the job sent back is the one bench.py\'s own boot wrote');
}
my $r = decode_json(slurp("$dir/p/results.json") // '{}');
my %row = map { $_->{mode} => $_ } @{$r->{modes}{rows} // []};
ok(($row{sframe}{samples} // 0) >= 10, "collected: sframe took $row{sframe}{samples} samples");

# Damaged streams: a line cut short, a boot missing, each refused.
my $cut = $streams[1];
spew("$dir/cut.jsonl", "$streams[0]\n" . substr($cut, 0, length($cut) / 2) . "\n");
$out = `@driver --out $dir/cut --collect $dir/cut.jsonl 2>&1`;
isnt($?, 0, 'a line cut short: collect exits non-zero');
like($out, qr/cut\.jsonl:2: not a boot's line/, '... naming the line');
spew("$dir/one.jsonl", "$streams[0]\n");
$out = `@driver --out $dir/one --collect $dir/one.jsonl 2>&1`;
isnt($?, 0, 'a boot missing: collect exits non-zero');
like($out, qr/1 boots of the plan are not in the streams/, '... saying how many');
my $flip = $streams[1];
$flip =~ s/"records_sha256": "(.)/'"records_sha256": "' . ($1 eq '0' ? '1' : '0')/e;
spew("$dir/flip.jsonl", "$streams[0]\n$flip\n");
$out = `@driver --out $dir/flip --collect $dir/flip.jsonl 2>&1`;
isnt($?, 0, 'a stream that is not the one its boot wrote: refused');
like($out, qr/flip\.jsonl:2: suite-\S+: its stream is not the one the boot wrote/, '... naming the line and the boot');

# A job for other images boots nothing and prints nothing.
(my $other = $lines[0]) =~ s/--sha256 (.)/'--sha256 ' . ($1 eq '0' ? '1' : '0')/e;
my $got = `$other 2>$dir/other.err`;
isnt($?, 0, 'a job for another kernel: exit non-zero');
is($got, '', '... nothing on its output');
like(slurp("$dir/other.err") // '', qr/not the one the plan was made for/, '... and it says why');

done_testing();
