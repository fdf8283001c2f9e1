#!/usr/bin/perl
# The fuzz targets of test/fuzz/ (mk/fuzz.mk), each for a bounded time
# (FUZZ_TEST_SECONDS, default 10) from its checked-in seeds plus what
# earlier runs found (build/fuzz/corpus/<name>/). A crash, a sanitizer
# report, a broken invariant or a timeout ends libFuzzer with a non-zero
# status and an artifact: the test fails and names the artifact. The
# SFrame target runs in test 24.
#
# Then: fuzz_stream's oracle on a whole stream whose REC_END is longer
# than its struct (the reader accepts it: not damage); and `make fuzz`
# runs every target it is given, a failing one included, and reports each.
use strict;
use warnings;
use File::Temp qw(tempdir);
use Test::More;

use FindBin;
use lib "$FindBin::Bin/../stitch";
BEGIN { chdir "$FindBin::Bin/../.." or die }
use Stream;
my $secs = $ENV{FUZZ_TEST_SECONDS} // 10;
my $tmp = tempdir(CLEANUP => 1);

for my $t (qw(fuzz_elf fuzz_cpio fuzz_uvm fuzz_stream)) {
	my $bin = "build/fuzz/$t";
	my @seeds = glob("test/fuzz/corpus/$t/*");
	ok(-x $bin, "$t is built") or next;
	ok(@seeds >= 2, "$t has seeds (" . scalar(@seeds) . ")");
	my $corpus = "build/fuzz/corpus/$t";
	system('mkdir', '-p', $corpus);
	my $out = `$bin -artifact_prefix=$tmp/$t- -timeout=10 -rss_limit_mb=2048 -max_len=131072 -print_final_stats=1 -max_total_time=$secs $corpus test/fuzz/corpus/$t 2>&1`;
	my $status = $?;
	my @crash = glob("$tmp/$t-*");
	is($status, 0, "$t: $secs s without a crash, sanitizer report or broken invariant")
		or diag(join "\n", (grep { /ERROR|invariant|SUMMARY|panic/ } split /\n/, $out),
			map { "artifact: $_ (rerun: $bin $_)" } @crash);
	my ($runs) = $out =~ /stat::number_of_executed_units:\s*(\d+)/;
	my ($cov) = $out =~ /DONE\s+cov: (\d+)/;
	ok(($runs // 0) > 100, "$t ran " . ($runs // 0) . " inputs, coverage " . ($cov // '?'));
	for (@crash) {
		system('cp', $_, 'build/fuzz/') == 0 and diag("kept build/fuzz/" . (split m{/})[-1]);
	}
}
# A REC_END of 32 bytes (24 and 8 more): whole, the oracle must not call
# it damaged (it used to look for a 24-byte REC_END at the very end).
{
	my $end = rec_end(time => 1, records => 1) . "\0" x 8;
	substr($end, 4, 4) = pack('V', length $end);
	write_file("$tmp/long-end.bin", rec_stream() . $end);
	my $out = `build/fuzz/fuzz_stream $tmp/long-end.bin 2>&1`;
	is($?, 0, 'fuzz_stream: a whole stream with a 32-byte REC_END is not taken for damage')
		or diag(join "\n", grep { /fuzz:|ERROR/ } split /\n/, $out);
	write_file("$tmp/cut.bin", substr(rec_stream() . $end, 0, -8));
	$out = `build/fuzz/fuzz_stream $tmp/cut.bin 2>&1`;
	is($?, 0, '... nor its cut copy (damage counted: no abort)');
}

# make fuzz: a target that fails (here one that does not exist) does not
# stop the ones after it; each is reported.
{
	my $out = `make -s --no-print-directory fuzz FUZZ_SECONDS=1 FUZZ_ONLY="fuzz_cpio no_such_target fuzz_uvm" 2>&1`;
	isnt($?, 0, 'make fuzz with a failing target fails');
	like($out, qr/^fuzz: 3 targets, 1 failed$/m, '... and says how many failed');
	like($out, qr/^  fuzz_cpio: ok$/m, '... the target before it ran');
	like($out, qr/^  no_such_target: FAILED/m, '... the failing one is named');
	like($out, qr/^  fuzz_uvm: ok$/m, '... and the one after it still ran');
}
done_testing();
