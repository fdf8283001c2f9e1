#!/usr/bin/perl
# build/bin/insnprof.so, the QEMU plugin behind make bench's breakdown, and
# the frame-pointer builds behind its fair fp baseline. The driver's tiny
# configuration boots /bin/chain 8 300 in sframe mode and /bin/chain-fp
# 8 300 in fp-deferred mode under -icount with the plugin (two boots);
# then, for each boot, from the plugin's counts and the kernel's own
# counters in the stream (stitch --stats):
#  - the unwind window is entered once per unwind the kernel ran, the NMI
#    window once per NMI, and every window closes;
#  - the plugin's instruction totals agree with the kernel's TSC counts
#    (one TSC cycle = one instruction under -icount) within 100 per entry
#    plus 0.1 % (tools/bench/breakdown.py says what each side leaves out);
#  - the functions named are the kernel's: unwind_user and the SFrame
#    library (sframe/) inside the sframe unwind, memset in the page fault;
#  - the per-function counts add up to the window's total;
#  - fp-deferred on the frame-pointer build walks chain 8's 11 frames of
#    its own (main, chain_run, chain_1..8, chain_leaf).
# The plugin's pcs=FILE (each kernel instruction's count inside the
# windows) adds up, function by function, to the window's counts, and
# tools/insnprof/annotate prints a function's share of it by instruction.
# And the plugin refuses a window function the kernel does not have.
use strict;
use warnings;
no warnings 'portable'; # kernel addresses are 64-bit hex
use FindBin;
BEGIN { chdir "$FindBin::Bin/../.." or die }
use File::Temp qw(tempdir);
use JSON::PP;
use Test::More;

my $dir = tempdir('bench-insnprof-XXXXXX', TMPDIR => 1, CLEANUP => !$ENV{BENCH_KEEP_TMP});
my @driver = ('python3', 'tools/bench/bench.py', '--config', 'tiny', '--parts', 'breakdown',
	      '--qemu-run', 'tools/qemu-run', '--stitch', 'build/bin/stitch',
	      '--symfs', 'build/userland/root', '--kernel', 'build/kernel/kernel.elf',
	      '--initrd', 'build/initrd.cpio', '--insnprof', 'build/bin/insnprof.so');
my $out = `@driver --out $dir 2>&1`;
is($?, 0, 'the driver ran the breakdown part') or diag($out);

sub slurp { my ($p) = @_; open(my $f, '<', $p) or return ''; local $/; scalar <$f> }

# The plugin's output: {window => {entries, insns, nested, open, unbalanced, funcs => {name => n}}}.
sub profile {
	my ($path) = @_;
	my %w;
	for (split /\n/, slurp($path)) {
		my @c = split /\t/;
		if ($c[0] eq 'window') { $w{$c[1]} = { @c[2 .. $#c], funcs => {} } }
		elsif ($c[0] eq 'func') { $w{$c[1]}{funcs}{$c[2]} += $c[3] } # static twins add up
	}
	return \%w;
}

# The SFrame library's functions, as the kernel links them.
my %sframe_fn = map { /^\S+ [Tt] (\S+)$/ ? ($1 => 1) : () }
	split /\n/, `nm --defined-only build/kernel/sframe/*.o`;
ok(keys %sframe_fn > 5, scalar(keys %sframe_fn) . ' functions in the kernel\'s sframe/ objects');

sub agree {
	my ($what, $plugin, $kernel, $entries) = @_;
	my $slack = 100 * $entries + 0.001 * $kernel;
	ok(abs($plugin - $kernel) <= $slack,
	   "$what: plugin $plugin instructions, kernel $kernel, within $slack");
}

for my $mode ('sframe', 'fp-deferred') {
	my $p = profile("$dir/runs/breakdown-$mode/insnprof.txt");
	my $k = decode_json(slurp("$dir/runs/breakdown-$mode/stats.json") || '{}')->{kernel} // {};
	my ($u, $n, $f) = @{$p}{qw(unwind_user nmi_dispatch demand_page)};
	ok($u && $n && $f, "$mode: the three windows are in the output") or next;
	ok($k->{unwinds_run} > 0 && $k->{nmi_count} > 0,
	   "$mode: the kernel ran $k->{unwinds_run} unwinds, took $k->{nmi_count} NMIs");
	is($u->{entries}, $k->{unwinds_run}, "$mode: one unwind window per unwind");
	is($n->{entries}, $k->{nmi_count}, "$mode: one NMI window per NMI");
	ok($f->{entries} > 0, "$mode: $f->{entries} page faults");
	for my $w ($u, $n, $f) {
		my $sum = 0;
		$sum += $_ for values %{$w->{funcs}};
		is($sum + $w->{nested}, $w->{insns}, "$mode: the functions add up to the window's total");
		is($w->{open} + $w->{unbalanced}, 0, "$mode: every window closed, in order");
	}
	agree("$mode unwind", $u->{insns}, $k->{unwind_cycles_total}, $u->{entries});
	agree("$mode NMI", $n->{insns}, $k->{nmi_cycles_total}, $n->{entries});
	ok($u->{funcs}{unwind_user}, "$mode: unwind_user in its own window");
	ok($n->{funcs}{nmi_dispatch}, "$mode: nmi_dispatch in its own window");
	ok($f->{funcs}{memset}, "$mode: memset in the page fault (demand-zero pages)");
	if ($mode eq 'sframe') {
		my @lib = grep { $sframe_fn{s/\..*//r} } keys %{$u->{funcs}};
		ok(@lib >= 3, "sframe: the SFrame library in the unwind (@{[sort @lib]})");
	} else {
		my @lib = grep { $sframe_fn{s/\..*//r} } keys %{$u->{funcs}};
		is(scalar @lib, 0, 'fp-deferred: no SFrame library in the unwind');
		ok($k->{frames_unwound} >= 11 * $k->{unwinds_run},
		   "fp-deferred on chain-fp: $k->{frames_unwound} frames in $k->{unwinds_run} unwinds (11 each at least)");
	}
}

# The whole run (window=*): every kernel instruction by function, so a
# function that only ever runs inside the NMI counts the same in both.
my $none = profile("$dir/runs/breakdown-none/insnprof.txt");
my $sf = profile("$dir/runs/breakdown-sframe/insnprof.txt");
my $snone = decode_json(slurp("$dir/runs/breakdown-none/stats.json") || '{}');
my $ssf = decode_json(slurp("$dir/runs/breakdown-sframe/stats.json") || '{}');
is_deeply([sort keys %$none], ['*'], 'the boot without sampling: the whole run only');
for my $p ($none, $sf) {
	my $w = $p->{'*'} or next;
	my $sum = 0;
	$sum += $_ for values %{$w->{funcs}};
	is($sum, $w->{insns}, "the whole run's functions add up to its total ($w->{insns})");
}
for my $fn ('sample_nmi', 'sampling_nmi') {
	my ($all, $in) = ($sf->{'*'}{funcs}{$fn} // 0, $sf->{nmi_dispatch}{funcs}{$fn} // -1);
	is($all, $in, "$fn: $all instructions in the whole run, all of them in the NMI window");
}
is($snone->{stitch}{samples}, 0, 'mode none: no samples');
my $samples = $ssf->{stitch}{samples} // 0;
my ($total) = grep { /^sframe,sample \(whole run minus mode none\),total,/ } split /\n/, slurp("$dir/breakdown.csv");
my @c = split /,/, $total // '';
ok(@c && $c[3] == $sf->{'*'}{insns} - $none->{'*'}{insns} && $c[7] == $samples && $samples > 0,
   "breakdown.csv: a sample costs $c[3] / $samples instructions in all, the two whole runs' difference")
	or diag($total);
ok(@c && $c[3] > $sf->{nmi_dispatch}{insns} + $sf->{unwind_user}{insns},
   'a sample costs more in all than its NMI and its unwind');

# pcs=FILE: one more boot, the unwind window only.
my $pcboot = `tools/qemu-run --direct --icount --timeout 120 --records $dir/pcs.bin --plugin build/bin/insnprof.so,kernel=build/kernel/kernel.elf,window=unwind_user,out=$dir/pcs.prof,pcs=$dir/pcs.txt --cmdline "init=/bin/bsuite init.args=/bin/chain:8:300 profile.mode=sframe profile.hz=1000" 2>&1`;
is($?, 0, 'a boot with pcs=FILE') or diag($pcboot);
my $pw = profile("$dir/pcs.prof")->{unwind_user} // { funcs => {} };
# The kernel's functions by address, [start, end, name], as the plugin
# names them: a symbol without a size runs to the next one.
my @fns = sort { $a->[0] <=> $b->[0] }
	map { /^([0-9a-f]+) (?:([0-9a-f]+) )?[Tt] (\S+)$/ ? [hex($1), defined $2 ? hex($1) + hex($2) : undef, $3] : () }
	split /\n/, `nm -S --defined-only build/kernel/kernel.elf`;
for my $i (0 .. $#fns) {
	$fns[$i][1] //= $i < $#fns ? $fns[$i + 1][0] : $fns[$i][0];
}
my (%by_fn, $pcs_total, $outside);
for (split /\n/, slurp("$dir/pcs.txt")) {
	my ($a, $n) = split / /;
	$a = hex($a);
	$pcs_total += $n;
	my ($f) = grep { $a >= $_->[0] && $a < $_->[1] } @fns;
	if ($f) { $by_fn{$f->[2]} += $n } else { $outside += $n }
}
my @kernel_fns = grep { $_ ne '[user]' && $_ ne '[unknown]' } keys %{$pw->{funcs}};
my @differ = grep { ($by_fn{$_} // 0) != $pw->{funcs}{$_} } @kernel_fns;
ok($pw->{entries} > 0 && @kernel_fns > 3 && !@differ,
   "pcs=FILE: the counts of $pw->{entries} unwinds add up to each of the window's " .
   scalar(@kernel_fns) . ' functions') or diag("differ: @differ");
is($pcs_total, $pw->{insns} - ($pw->{funcs}{'[user]'} // 0),
   "pcs=FILE: every kernel instruction of the window, $pw->{insns} in all");
# tools/insnprof/annotate: the function's instructions with their counts.
my @ann = split /\n/, `tools/insnprof/annotate $dir/pcs.txt unwind_user`;
my ($ann_total) = ($ann[-1] // '') =~ /^\s*([0-9.]+)\s+total$/;
my $ann_sum = 0;
$ann_sum += $_ for map { /^\s*([0-9.]+)\s+[0-9a-f]+\s/ ? $1 : () } @ann[0 .. $#ann - 1];
ok(@ann > 10 && defined $ann_total && $ann_total == $pw->{funcs}{unwind_user} && $ann_sum == $ann_total,
   "annotate: unwind_user's " . (@ann - 1) . " instructions that ran add up to its count") or diag(join "\n", @ann[-3 .. -1]);
`tools/insnprof/annotate $dir/pcs.txt no_such_function 2>/dev/null`;
isnt($?, 0, 'annotate: a function the kernel lacks is an error');

my $bad = `tools/qemu-run --direct --icount --timeout 60 --plugin build/bin/insnprof.so,kernel=build/kernel/kernel.elf,window=no_such_function,out=$dir/x.txt 2>&1`;
isnt($? >> 8, 0, 'a window the kernel lacks: QEMU does not start');
like($bad, qr/no such function in the kernel: no_such_function/, 'and the plugin says why');

done_testing();
