#!/usr/bin/perl
# Unwinding 32-bit (compat, i386) processes, end to end: boots under
# -icount (--direct), build/bin/stitch, and Debian's perf.
#   1. validate-eh, /bin/chain32 (no frame pointers, the i386 default at
#      -O2): every sample's deferred .eh_frame chain, walked by the kernel
#      through i386 CFI (main's realigned stack included), equals libdw's
#      unwind of the same NMI's 32-bit stack copy (its i386 backend), and
#      every one reaches _start.
#   2. fp, /bin/chain32: the frame-pointer walk visibly fails: no stack
#      reaches _start (ebp is any register there).
#   3. fp, /bin/chain32-fp: with frame pointers the 4-byte frame walk
#      reaches main (through stitch_start) on every sample, the chain
#      whole below it wherever the sample fell. (Not _start:
#      the 32-bit glue's stitch_start is built without a frame pointer,
#      its ebp is any register, and the walk past it reads whatever that
#      points at.)
#   guess, /bin/chain32: the scan reads 4-byte words and finds the chain
#      (and, as ever, stale return addresses too).
#   4. eh-frame, /bin/chain32 and /bin/fib (64-bit) in one run: both
#      processes' stacks reach _start, symbolised; report.txt, speedscope
#      and the flame graph show both, and Debian's perf script reads both
#      from stitch's perf.data.
use strict;
use warnings;
use File::Temp qw(tempdir);
use JSON::PP qw(decode_json);

my ($n, $bad) = (0, 0);
sub ok { my ($c, $m) = @_; $n++; $bad++ unless $c; print(($c ? '' : 'not ') . "ok $n - $m\n"); $c }
sub diag { print map { "# $_\n" } map { split /\n/ } @_ }
sub slurp { my ($p) = @_; open(my $f, '<', $p) or return ''; local $/; scalar <$f> }

my $root = 'build/userland/root';
-x "$root/bin/chain32" && -x "$root/bin/chain32-fp" && -x 'build/bin/stitch'
	or do { print "1..0 # SKIP no 32-bit SDK programs built\n"; exit 0 };
my $tmp = tempdir('compat-unwind-XXXXXX', TMPDIR => 1, CLEANUP => 1);

# A boot of bsuite running the programs of $args in $mode, then stitch:
# (console, stitch's output, its --stats JSON, the folded stacks by comm).
sub run {
	my ($name, $mode, $args) = @_;
	my $cmd = "init=/bin/bsuite init.args=$args profile.mode=$mode profile.hz=1000";
	system("tools/qemu-run --direct --icount --timeout 300 --records $tmp/$name.bin "
	       . "--cmdline '$cmd' >$tmp/$name.console 2>&1");
	my $console = slurp("$tmp/$name.console");
	my $out = `build/bin/stitch --symfs $root -o $tmp/$name --stats $tmp/$name.json $tmp/$name.bin 2>&1`;
	my $js = $? == 0 ? decode_json(slurp("$tmp/$name.json"))->{stitch} : {};
	my %stacks;
	for (split /\n/, slurp("$tmp/$name/profile.folded")) {
		my ($stack, $count) = /^(.*) (\d+)$/ or next;
		my ($comm, @frames) = split /;/, $stack;
		push @{$stacks{$comm}}, [$count, @frames];
	}
	return ($console, $out, $js, \%stacks);
}

# Of comm's samples, how many there are and how many reach _start
# (root first in profile.folded: _start stitch_start main ...).
# Of comm's samples with a user stack (a sample in the kernel once the
# program has left user mode for good, at its exit, has none), how many
# there are and how many reach _start through main.
sub reach {
	my ($stacks, $comm) = @_;
	my ($all, $start) = (0, 0);
	for (@{$stacks->{$comm} // []}) {
		my ($count, @frames) = @$_;
		next unless grep { !/_\[k\]$/ } @frames;
		$all += $count;
		$start += $count if "@frames" =~ /^_start stitch_start main /;
	}
	return ($all, $start);
}

# --- 1. validate-eh: the kernel's i386 .eh_frame walk against libdw ----------
my ($con, $out, $js, $st) = run('eh', 'validate-eh', '/bin/chain32:48:300');
my ($all, $start) = reach($st, 'chain32');
my ($v, $agree) = ($js->{validate_samples} // 0, $js->{validate_agree} // -1);
ok($con =~ /bsuite: 1 of 1 programs ok/ && $v >= 20 && $agree == $v && $all == $v && $start == $all,
   "validate-eh, chain32 (no frame pointers): $agree of $v samples' deferred .eh_frame chains " .
   "equal libdw's i386 unwind of the stack copy; $start of $all reach _start")
	or diag($out, $con =~ /(bsuite.*)/g);
my ($deep) = grep { "@$_" =~ /chain_run chain_1 chain_2 .* chain_48 chain_leaf$/ } @{$st->{chain32} // []};
ok($deep, '... through all 48 chain_ frames and the leaf');
ok($con =~ /\bstack_copy_truncated=0\b/,
   '... and no stack copy was cut short: each ends at the compat stack\'s top, below 4 GiB');

# --- 2. fp: no frame pointers, no stacks ----------------------------------------
($con, $out, $js, $st) = run('fp', 'fp', '/bin/chain32:48:300');
my ($fall, $fstart) = reach($st, 'chain32');
ok($con =~ /bsuite: 1 of 1 programs ok/ && $fall >= 20 && $fstart == 0,
   "fp, chain32: $fstart of $fall samples reach _start (eh-frame: $start of $all)") or diag($out);

# --- 3. fp with frame pointers: the 4-byte frame walk ---------------------------
($con, $out, $js, $st) = run('fpfp', 'fp', '/bin/chain32-fp:48:300');
my ($pall, $pmain) = (0, 0);
for (@{$st->{'chain32-fp'} // []}) {
	my ($count, @frames) = @$_;
	$pall += $count;
	# The sample may fall in any chain_K on the way down or up: the
	# chain runs main chain_run chain_1 .. chain_K [chain_leaf], each K
	# the one before it plus 1.
	my ($chain) = "@frames" =~ / stitch_start main chain_run ((?:chain_\d+ ?)+)(?: chain_leaf)?$/;
	my @k = map { /(\d+)/ } split ' ', $chain // '';
	$pmain += $count if @k && !grep { $k[$_] != $_ + 1 } 0 .. $#k;
}
ok($con =~ /bsuite: 1 of 1 programs ok/ && $pall >= 20 && $pmain == $pall,
   "fp, chain32-fp: $pmain of $pall samples' 4-byte frame chains run from the leaf through main " .
   "into stitch_start") or diag($out);

# --- guess: the stack scanned by 4-byte words ------------------------------------
($con, $out, $js, $st) = run('guess', 'guess', '/bin/chain32:48:300');
my ($gall, $gfound) = (0, 0);
for (@{$st->{chain32} // []}) {
	my ($count, @frames) = @$_;
	$gall += $count;
	$gfound += $count if "@frames" =~ /^_start .* main chain_run chain_1 chain_2 /;
}
ok($con =~ /bsuite: 1 of 1 programs ok/ && $gall >= 20 && $gfound == $gall,
   "guess, chain32: $gfound of $gall samples' scans of 4-byte words find _start, main and the chain " .
   "(text by the process's .eh_frame)") or diag($out);

# --- 4. a 32-bit and a 64-bit process in one run ---------------------------------
($con, $out, $js, $st) = run('mix', 'eh-frame', '/bin/chain32:48:300,/bin/fib:30');
my ($c32, $s32) = reach($st, 'chain32');
my ($c64, $s64) = reach($st, 'fib');
ok($con =~ /bsuite: 2 of 2 programs ok/ && $out =~ / 0 missing their user stack/ &&
   $c32 >= 20 && $s32 == $c32 && $c64 >= 20 && $s64 == $c64,
   "eh-frame, chain32 beside fib: $s32 of $c32 and $s64 of $c64 samples reach _start") or diag($out);
my $report = slurp("$tmp/mix/report.txt");
my $speed = eval { decode_json(slurp("$tmp/mix/profile.speedscope.json")) } // {};
my @profiles = map { $_->{name} } @{$speed->{profiles} // []};
my $svg = slurp("$tmp/mix/flame.svg");
ok($report =~ /^== chain32 \(pid \d+\)/m && $report =~ /^== fib \(pid \d+\)/m &&
   $report =~ /chain_leaf\s+\/bin\/chain32\s+workload\.h/ &&
   (grep { /^chain32 / } @profiles) && (grep { /^fib / } @profiles) &&
   $svg =~ /chain32 \(\d+ samples/ && $svg =~ /fib \(\d+ samples/,
   'report.txt (chain32\'s functions with their source files), speedscope (' .
   join(', ', @profiles) . ') and the flame graph show both processes') or diag(substr($report, 0, 800));
my $perf = `perf script -i $tmp/mix/perf.data --symfs $root -F comm,ip,sym 2>$tmp/perf.err`;
my %syms;
for my $s (split /\n\n/, $perf) {
	my ($comm) = $s =~ /^\s*(\S+)/ or next;
	$syms{$comm}{$_} = 1 for $s =~ /^\s+[0-9a-f]+ (\w+)/mg;
}
ok($? == 0 && $syms{chain32}{chain_leaf} && $syms{chain32}{_start} &&
   $syms{fib}{fib_recursive} && $syms{fib}{_start},
   'perf script reads both from perf.data, symbolised: chain32\'s chain_leaf .. _start, fib\'s fib_recursive .. _start')
	or diag(substr($perf, 0, 1500), slurp("$tmp/perf.err"));

print "1..$n\n";
exit($bad ? 1 : 0);
