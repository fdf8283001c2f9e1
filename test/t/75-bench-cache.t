#!/usr/bin/perl
# make bench's cache part (BENCH_PARTS=cache): the deferred SFrame unwind
# with the rule cache on and off (unwind.rule_cache=0) and the
# frame-pointer walk of the frame-pointer build, on the driver's tiny
# configuration (/bin/chain 8 300, five boots). The rows must come from the
# boots they name: the cache hit with it on and never with it off (what
# the kernel counted in each stream), fp-deferred on /bin/chain-fp, every
# unwind whole, and the numbers in cache.csv those of results.json.
use strict;
use warnings;
use FindBin;
BEGIN { chdir "$FindBin::Bin/../.." or die }
use File::Temp qw(tempdir);
use JSON::PP;
use Test::More;

my $dir = tempdir('bench-cache-XXXXXX', TMPDIR => 1, CLEANUP => !$ENV{BENCH_KEEP_TMP});
my @driver = ('python3', 'tools/bench/bench.py', '--config', 'tiny', '--parts', 'cache',
	      '--qemu-run', 'tools/qemu-run', '--stitch', 'build/bin/stitch',
	      '--symfs', 'build/userland/root', '--kernel', 'build/kernel/kernel.elf',
	      '--initrd', 'build/initrd.cpio', '--out', $dir);

sub slurp { my ($p) = @_; open(my $f, '<', $p) or return undef; local $/; scalar <$f> }
sub kernel_stats { decode_json(slurp("$dir/runs/$_[0]/stats.json") // '{}')->{kernel} // {} }

my $out = `@driver 2>&1`;
is($?, 0, 'the driver exits 0') or diag($out);

my $r = decode_json(slurp("$dir/results.json") // '{}');
my @rows = @{$r->{cache} // []};
is_deeply([map { $_->{run} } @rows],
	  ['sframe, rule cache on', 'sframe, rule cache off', 'fp-deferred, frame-pointer build',
	   'eh-frame, rule cache on', 'eh-frame, rule cache off'],
	  'five rows: SFrame with the cache on, off, the frame-pointer walk, .eh_frame on, off');
my ($on, $off, $fp, $ehon, $ehoff) = @rows;
is($_->{status}, 'ok', "$_->{run}: the mode works") for @rows;

# Each row against the kernel's counters of its own boot.
my %boot = ('sframe, rule cache on' => 'cache-sframe', 'sframe, rule cache off' => 'cache-sframe-nocache',
	    'fp-deferred, frame-pointer build' => 'cache-fp-deferred',
	    'eh-frame, rule cache on' => 'cache-eh-frame', 'eh-frame, rule cache off' => 'cache-eh-frame-nocache');
for my $row (@rows) {
	my $k = kernel_stats($boot{$row->{run}});
	ok(($k->{unwinds_run} // 0) >= 10, "$row->{run}: $k->{unwinds_run} unwinds");
	# The frame-pointer walk ends at main, whose caller keeps no frame
	# pointer (stop bad-frame, docs/BENCHMARKS.md); SFrame's at _start.
	my $whole = $k->{unwind_stop_end} + ($row->{mode} eq 'fp-deferred' ? $k->{unwind_stop_bad_frame} : 0);
	is($whole, $k->{unwinds_run}, "$row->{run}: every unwind walked the whole stack");
	is($row->{rule_cache_hits}, $k->{rule_cache_hits}, "$row->{run}: cache hits as the kernel counted");
	is(sprintf('%.6f', $row->{unwind_cycles_per_frame}),
	   sprintf('%.6f', $k->{unwind_cycles_total} / $k->{frames_unwound}),
	   "$row->{run}: cycles per frame = unwind_cycles_total / frames_unwound");
	is(sprintf('%.6f', $row->{unwind_cycles_per_frame_steady}),
	   sprintf('%.6f', ($k->{unwind_cycles_total} - $k->{unwind_cycles_max}) / ($k->{unwinds_run} - 1)
		    / ($k->{frames_unwound} / $k->{unwinds_run})),
	   "$row->{run}: without the costliest unwind, over the mean frames of an unwind");
}
ok($on->{rule_cache_hits} > 0, "cache on: $on->{rule_cache_hits} hits");
is($off->{rule_cache_hits}, 0, 'cache off: no hit');
ok($ehon->{rule_cache_hits} > 0, "eh-frame, cache on: $ehon->{rule_cache_hits} hits");
is($ehoff->{rule_cache_hits}, 0, 'eh-frame, cache off: no hit (unwind.rule_cache=0 applies to both formats)');
ok(kernel_stats('cache-eh-frame-nocache')->{ehframe_lookups} >= kernel_stats('cache-eh-frame-nocache')->{frames_unwound} - kernel_stats('cache-eh-frame-nocache')->{unwinds_run},
   'eh-frame, cache off: every step but the last of each unwind looked up in .eh_frame');
like(slurp("$dir/runs/cache-sframe-nocache/console.txt") // '', qr/^command line: .* unwind\.rule_cache=0\s*$/m,
   'the cache-off boot had unwind.rule_cache=0 on its command line');
unlike(slurp("$dir/runs/cache-sframe/console.txt") // '', qr/rule_cache=0/, 'the cache-on boot did not');
is($fp->{program}, '/bin/chain-fp 8 300', 'fp-deferred walks the frame-pointer build');
# chain 8: 11 frames of its own, 13 with the start code (SFrame), 11 by frame pointers.
ok($on->{frames_per_unwind} >= 12 && $off->{frames_per_unwind} >= 12,
   "SFrame unwinds of $on->{frames_per_unwind} and $off->{frames_per_unwind} frames");
ok($fp->{frames_per_unwind} >= 10, "frame-pointer unwinds of $fp->{frames_per_unwind} frames");

my @csv = split /\n/, slurp("$dir/cache.csv") // '';
is(scalar @csv, 6, 'cache.csv: a header and five rows');
like($csv[2], qr/^"sframe, rule cache off",\/bin\/chain 8 300,/, 'cache.csv: the cache-off row');
like(slurp("$dir/tables.md") // '', qr/\| sframe, rule cache on \| \/bin\/chain 8 300 \|/, 'tables.md has the table');

done_testing();
