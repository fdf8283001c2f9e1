#!/usr/bin/perl
# Test 5: the libFuzzer target (test/sframe/fuzz_sframe.c: decode,
# validate, lookup, step, re-encode, under ASan and UBSan) runs for a
# bounded time (SFRAME_FUZZ_SECONDS, default 30) from the seed corpus in
# test/sframe/corpus plus what earlier runs found, without a crash, a
# sanitizer report or a broken invariant. `make fuzz` runs it longer.
use strict;
use warnings;
require './test/sframe/lib.pl';

our ($tests, $failed);
my $p = paths();
my $dir = "$p->{SFRAME_DIR}/fuzz";
my $secs = $ENV{SFRAME_FUZZ_SECONDS} // 30;
mkdir "$dir/corpus";

my @cmd = ("$dir/fuzz_sframe", "-max_total_time=$secs", '-timeout=10',
	   '-rss_limit_mb=1024', '-print_final_stats=1', "-artifact_prefix=$dir/",
	   "$dir/corpus", 'test/sframe/corpus');
my $pid = open(my $out, '-|') // die "fork: $!\n";
if ($pid == 0) {
	open(STDERR, '>&', \*STDOUT);
	exec(@cmd) or die "$cmd[0]: $!\n";
}
my @log = <$out>;
close($out);
my $status = $? >> 8;

my ($seeds) = map { /INITED.* corp: (\d+)/ ? $1 : () } @log;
my ($runs) = map { /number_of_executed_units:\s+(\d+)/ ? $1 : () } @log;
my ($cov) = map { /#\d+\s+DONE\s+cov: (\d+)/ ? $1 : () } @log;
ok(defined $seeds && $seeds >= 40, 'fuzzer loaded the seed corpus (' . ($seeds // 0) . ' inputs)');
ok($status == 0 && defined $runs && $runs > 1000,
   "fuzzed ${secs}s: " . ($runs // 0) . ' inputs, no crash or sanitizer report')
	or diag(grep { /ERROR|SUMMARY|crash-|Test unit written|==\d+==/ } @log);
diag('coverage: ' . ($cov // '?') . " edges; corpus kept in $dir/corpus");

done();
