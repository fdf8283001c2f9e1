#!/usr/bin/perl
# The fuzz targets of test/fuzz/ (mk/fuzz.mk), each for a bounded time
# (FUZZ_TEST_SECONDS, default 10) from its checked-in seeds plus what
# earlier runs found (build/fuzz/corpus/<name>/). A crash, a sanitizer
# report, a broken invariant or a timeout ends libFuzzer with a non-zero
# status and an artifact: the test fails and names the artifact. The
# SFrame target runs in test 24.
use strict;
use warnings;
use File::Temp qw(tempdir);
use Test::More;

use FindBin;
BEGIN { chdir "$FindBin::Bin/../.." or die }
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
done_testing();
