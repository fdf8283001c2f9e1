#!/usr/bin/perl
# make bench-check: boot a part again (or a seeded sample of a results
# file's boots) and compare every guest number with the file's. Against
# a results file this test makes (tiny configuration, modes none and
# sframe): every number equal, exit 0. Against tampered copies: one
# number changed (exit 1, the number named with both values), the file
# claiming another kernel (it says the page describes another build and
# by how much the numbers moved), one boot's stream hash changed (the
# sample check catches it), a file that is no results file (refused).
use strict;
use warnings;
use FindBin;
BEGIN { chdir "$FindBin::Bin/../.." or die }
use File::Temp qw(tempdir);
use JSON::PP;
use Test::More;
use lib "$FindBin::Bin/../bench";
use BenchRun qw(@DRIVER slurp spew);

my $dir = tempdir('bench-check-XXXXXX', TMPDIR => 1, CLEANUP => !$ENV{BENCH_KEEP_TMP});
my @driver = (@DRIVER, '--jobs', '2');
my $json = JSON::PP->new->canonical->pretty;

my $out = `@driver --config tiny --parts modes --out $dir/c 2>&1`;
is($?, 0, 'the results to check against: exit 0') or diag($out);
my $committed = "$dir/c/results.json";
my $r = decode_json(slurp($committed) // '{}');

# The same part booted again, in its own directory: every number equal.
$out = `@driver --check $committed --parts modes --out $dir/again 2>&1`;
is($?, 0, 'the same build: exit 0') or diag($out);
like($out, qr/bench-check: modes: 2 boots against 2 of the committed file's/, 'both boots compared');
my ($n) = $out =~ /all (\d+) numbers equal/;
ok(($n // 0) > 50, "... all of their numbers equal (" . ($n // 0) . ")") or diag($out);
ok(-e "$dir/again/runs/suite-sframe/records.bin", 'it booted: the stream is there');

# One number of the table changed: named, with both values; exit 1.
my %t = %$r;
my ($sf) = grep { $_->{mode} eq 'sframe' } @{$t{modes}{rows}};
my $was = $sf->{nmi_cycles_per_sample};
$sf->{nmi_cycles_per_sample} = $was + 1;
spew("$dir/one.json", $json->encode(\%t));
$out = `@driver --check $dir/one.json --parts modes --reuse --out $dir/again 2>&1`;
is($? >> 8, 1, 'one number changed: exit 1');
like($out, qr/1 of \d+ numbers differ although the kernel and the initrd are the committed ones/,
     '... one number, on the same build');
like($out, qr/modes\.rows\[1\]\.nmi_cycles_per_sample: \Q${\($was + 1)}\E(?:\.0)? committed, \Q$was\E(?:\.0)? here/,
     '... named, with both values');

# The file describes another kernel, and its numbers are not these.
$t{sha256} = {%{$r->{sha256}}, kernel => '0' x 64};
spew("$dir/other.json", $json->encode(\%t));
$out = `@driver --check $dir/other.json --parts modes --reuse --out $dir/again 2>&1`;
is($? >> 8, 1, 'another build whose numbers differ: exit 1');
like($out, qr/the committed results describe another build: kernel 000000000000 there, [0-9a-f]{12} here/,
     '... it says the page describes another build');
like($out, qr/moved by [\d.]+ % on average \(of 1 numbers\), at most -[\d.]+ % \(modes\.rows\[1\]\.nmi_cycles_per_sample\)/,
     '... and by how much the numbers moved');

# A checkout elsewhere: another kernel (its build ids and paths), so
# other streams, but the same numbers: the hashes are set aside, exit 0.
my $e = decode_json(slurp($committed));
$e->{sha256}{kernel} = '0' x 64;
$_->{records_sha256} = 'e' x 64 for values %{$e->{boots}};
spew("$dir/elsewhere.json", $json->encode($e));
$out = `@driver --check $dir/elsewhere.json --parts modes --reuse --out $dir/again 2>&1`;
is($?, 0, 'another build, the same numbers, other streams: exit 0') or diag($out);
like($out, qr/2 SHA-256 of streams and plugin output differ, as another build's do; the numbers are compared\n.*all \d+ numbers equal/,
     '... the streams\' hashes set aside, every number equal');

# The sample check: boots chosen by the seed, each compared by its own
# numbers (its stream's SHA-256 among them).
$out = `@driver --check $committed --sample 1 --seed 7 --out $dir/s 2>&1`;
is($?, 0, 'a sample of one boot: exit 0') or diag($out);
my ($chosen) = $out =~ /1 of 2 boots \(seed 7\): (\S+)/;
ok(defined $chosen && -e "$dir/s/runs/$chosen/records.bin", 'it booted the one it chose: ' . ($chosen // '?'));
my %u = %$r;
$u{boots} = {map { $_ => {%{$r->{boots}{$_}}} } keys %{$r->{boots}}};
$u{boots}{$_}{records_sha256} = 'f' x 64 for keys %{$u{boots}};
spew("$dir/stream.json", $json->encode(\%u));
$out = `@driver --check $dir/stream.json --sample 1 --seed 7 --reuse --out $dir/s 2>&1`;
is($? >> 8, 1, 'a boot whose stream is not the committed one: exit 1');
like($out, qr/\Q$chosen\E\.records_sha256: f{64} committed, [0-9a-f]{64} here/, '... named');

spew("$dir/junk.json", "{\"config\": \"tiny\"\n");
$out = `@driver --check $dir/junk.json --parts modes --out $dir/j 2>&1`;
isnt($?, 0, 'a damaged results file: exit non-zero');
like($out, qr/not a results file/, '... saying so');

done_testing();
