#!/usr/bin/perl
# The cost model that charges memory (docs/BENCHMARKS.md, "A cost model
# that charges memory"):
#  - build/bin/cachesim-test: the plugin's cache simulator
#    (tools/insnprof/cachesim.c) on the host against access patterns whose
#    misses are known (sequential reads in a cold cache miss once a line; a
#    working set between L1 and L2 misses L1 every pass and L2 only the
#    first; LRU order in one set);
#  - make bench's memory part on the driver's tiny configuration
#    (/bin/chain 64 1000 without sampling, in sframe and in stack-copy
#    mode: three boots under the plugin): the plugin's memory counts are
#    consistent (loads and stores in every window, at least a byte each, the
#    whole run's functions add up to its totals, misses fewer at each level
#    down, every kernel instruction where the ELF says it is in physical
#    memory), rep strings are charged by bytes (each demand-zero memset one
#    4 KiB rep execution; stack-copy's memcpy in the NMI moves at least the
#    stack bytes the stream carries), the modelled cycles follow the
#    formula from the columns, and memory.csv has the rows;
#  - the model repeats: the sframe boot booted once more under the plugin
#    (a fourth boot, about 6 s) gives the same plugin output byte for byte
#    (modelled cycles, misses at each level, loads, stores, per window and
#    function) and the same stream.
use strict;
use warnings;
use FindBin;
BEGIN { chdir "$FindBin::Bin/../.." or die }
use Digest::SHA;
use File::Temp qw(tempdir);
use JSON::PP;
use Test::More;

# The simulator on the host, its TAP lines as ours.
my @sim = `build/bin/cachesim-test`;
is($?, 0, 'cachesim-test exits 0') or diag(@sim);
for (@sim) {
	next unless /^(not )?ok \d+ - (.*)$/;
	ok(!$1, "cachesim: $2");
}

# What the guest boots: a rebuild during the test (another make in the same
# tree) would change the second boot, not the model's determinism.
sub build_id { join ' ', map { Digest::SHA->new(256)->addfile($_)->hexdigest } @_ }
my @boot = ('build/kernel/kernel.elf', 'build/initrd.cpio');
my $before = build_id(@boot);

my $dir = tempdir('bench-memory-XXXXXX', TMPDIR => 1, CLEANUP => !$ENV{BENCH_KEEP_TMP});
my @driver = ('python3', 'tools/bench/bench.py', '--config', 'tiny', '--parts', 'memory',
	      '--qemu-run', 'tools/qemu-run', '--stitch', 'build/bin/stitch',
	      '--symfs', 'build/userland/root', '--kernel', 'build/kernel/kernel.elf',
	      '--initrd', 'build/initrd.cpio', '--insnprof', 'build/bin/insnprof.so', '--out', $dir);
my $out = `@driver 2>&1`;
is($?, 0, 'the driver ran the memory part') or diag($out);

sub slurp { my ($p) = @_; open(my $f, '<', $p) or return ''; local $/; scalar <$f> }

# {window => {key => n, funcs => {name => {insns, cycles, loads, ...}}}, line => {key => n}}
sub profile {
	my ($path) = @_;
	my %w;
	for (split /\n/, slurp($path)) {
		my @c = split /\t/;
		if ($c[0] eq 'window') { $w{$c[1]} = { @c[2 .. $#c], funcs => {} } }
		elsif ($c[0] eq 'func') {
			my $f = $w{$c[1]}{funcs}{$c[2]} //= {};
			my %kv = (insns => $c[3], @c[4 .. $#c]);
			$f->{$_} += $kv{$_} for keys %kv;
		} elsif (@c == 2) { $w{line}{$c[0]} = $c[1] }
	}
	return \%w;
}

# cachesim.h's table, as the plugin's header line prints it.
my $sf = profile("$dir/runs/memory-64-sframe/insnprof.txt");
my $sc = profile("$dir/runs/memory-64-stack-copy/insnprof.txt");
my $none = profile("$dir/runs/memory-64-none/insnprof.txt");
my ($hdr) = slurp("$dir/runs/memory-64-sframe/insnprof.txt") =~ /^# cost model \(mem=on\): (.*)$/m;
my ($pl2, $pllc, $pmem, $rstart, $rbpc) = ($hdr // '') =~
	/served by L2 (\d+), LLC (\d+), memory (\d+); rep strings (\d+) \+ bytes \/ (\d+)/;
ok(defined $rbpc, "the output names the model: $hdr") or diag($hdr);

# The modelled cycles of a set of counts, from its columns.
sub model {
	my ($c) = @_;
	return $c->{insns} - $c->{rep_steps} + $rstart * $c->{rep_execs} + $c->{rep_bytes} / $rbpc +
		($c->{l1i_miss} + $c->{l1d_miss}) * $pl2 + $c->{l2_miss} * ($pllc - $pl2) +
		$c->{llc_miss} * ($pmem - $pllc);
}

for ([sframe => $sf], ['stack-copy' => $sc], [none => $none]) {
	my ($mode, $p) = @$_;
	is($p->{line}{code_phys_mismatch}, 0, "$mode: every kernel instruction where the ELF puts it");
	is($p->{line}{other_vcpu}, 0, "$mode: one vCPU");
	my $w = $p->{'*'} or next;
	ok($w->{loads} > 0 && $w->{stores} > 0 && $w->{bytes} >= $w->{loads} + $w->{stores},
	   "$mode whole run: $w->{loads} loads, $w->{stores} stores, $w->{bytes} bytes");
	ok($w->{l1i_miss} > 0 && $w->{l1d_miss} > 0, "$mode whole run: L1I and L1D misses");
	ok($w->{llc_miss} <= $w->{l2_miss} && $w->{l2_miss} <= $w->{l1i_miss} + $w->{l1d_miss},
	   "$mode whole run: misses fewer at each level down ($w->{l1i_miss} + $w->{l1d_miss}, $w->{l2_miss}, $w->{llc_miss})");
	for my $k (qw(insns loads stores bytes l1d_miss llc_miss rep_bytes)) {
		my $sum = 0;
		$sum += $_->{$k} for values %{$w->{funcs}};
		is($sum, $w->{$k}, "$mode whole run: the functions' $k add up to the total");
	}
	ok(abs(model($w) - $w->{cycles}) <= 0.5, "$mode whole run: modelled cycles $w->{cycles} by the formula");
	ok($w->{funcs}{'[user]'}{loads} > 0 && $w->{funcs}{'[user]'}{l1i_miss} > 0,
	   "$mode: user code goes through the caches too");
	next if $mode eq 'none';
	for my $name ('nmi_dispatch', 'unwind_user', 'demand_page') {
		my $x = $p->{$name};
		next if !$x->{entries} && $name eq 'unwind_user' && $mode eq 'stack-copy';
		ok($x->{loads} + $x->{stores} > 0 && $x->{bytes} >= $x->{loads} + $x->{stores},
		   "$mode $name: $x->{loads} loads, $x->{stores} stores, $x->{bytes} bytes in $x->{entries} entries");
		ok(abs(model($x) - $x->{cycles}) <= 0.5, "$mode $name: modelled cycles by the formula");
	}
	# A demand-zero page: memset's rep stosq of 4096 bytes, 512 steps of 8
	# bytes, in one execution, or two when an NMI lands inside it (the rep
	# resumes where it stopped: the plugin sees the instruction again).
	my $ms = $p->{demand_page}{funcs}{memset} // {};
	my $pages = ($ms->{rep_bytes} // 0) / 4096;
	ok($pages >= 1 && $pages == int($pages) && $ms->{rep_steps} == 512 * $pages &&
	   $ms->{rep_execs} >= $pages && $ms->{rep_execs} <= 2 * $pages,
	   "$mode: memset in the page fault clears $pages pages of 4096 bytes in 512 steps each, " .
	   "in $ms->{rep_execs} rep executions")
		or diag("rep_bytes $ms->{rep_bytes}, rep_steps $ms->{rep_steps}, rep_execs $ms->{rep_execs}");
	ok($ms->{cycles} < $ms->{insns} / 1.5,
	   "$mode: charged by bytes, memset models $ms->{cycles} cycles for $ms->{insns} instructions");
}

# stack-copy: the NMI's memcpy copies the stack (the bytes the stream
# carries) and the record into the ring.
my $st = decode_json(slurp("$dir/runs/memory-64-stack-copy/stats.json") || '{}');
my $mc = $sc->{nmi_dispatch}{funcs}{memcpy} // {};
my $copied = $st->{bytes_stack_copy} // 0;
my $recs = $st->{records}{sample}{bytes} // 0;
ok($copied > 0 && $mc->{rep_bytes} >= $copied && $mc->{rep_bytes} <= $copied + $recs + 64 * $st->{stitch}{samples},
   "stack-copy: the NMI's memcpy moved $mc->{rep_bytes} bytes: the $copied stack bytes and the $recs bytes of sample records");

my @csv = split /\n/, slurp("$dir/memory.csv");
is(scalar @csv, 3, 'memory.csv: a header and two rows');
like($csv[1], qr/^chain,64,sframe,,\d+,/, 'memory.csv: the sframe row (no copy size)');
like($csv[2], qr/^chain,64,stack-copy,8192,\d+,/, 'memory.csv: the stack-copy row, 8 KiB copies');
my $r = decode_json(slurp("$dir/results.json") || '{}');
my @rows = @{$r->{memory}{rows} // []};
ok(@rows == 2 && !grep({ !($_->{sample_cycles} > 0 && $_->{sample_insns} > 0) } @rows),
   'results.json: what a sample costs, in instructions and modelled cycles, for both');
like(slurp("$dir/tables.md"), qr/## memory: .*\n\n\| program \| depth \| mode \|/, 'tables.md has the table');

# The same sframe boot once more, as the driver boots it (its config, its
# command line, the plugin's arguments), into another directory: the
# model's numbers must not depend on the host (timing, addresses, hash
# order) but only on the guest's instructions and accesses.
my $again = "$dir/again";
mkdir $again or die "$again: $!";
my $py = <<'PY';
import sys
sys.dont_write_bytecode = True
sys.path.insert(0, "tools/bench")
import bench, guest, job
out, so, kernel = sys.argv[1:4]
cfg = bench.CONFIGS["tiny"]
d, rounds = cfg["memory"]["depths"][0], cfg["memory"]["rounds"]
name = f"memory-{d}-sframe"
tools = guest.Tools("tools/qemu-run", "build/bin/stitch", "build/userland/root", kernel)
s = job.spec(name, guest.cmdline([["/bin/chain", str(d), str(rounds)]], "sframe", cfg["hz"], bench.FRAMES),
             1, "windows")
job.boot(tools, s, f"{out}/{name}", job.images(kernel), so)
PY
my $rerun = do {
	open(my $p, '-|', 'python3', '-c', $py, $again, 'build/bin/insnprof.so',
	     'build/kernel/kernel.elf') or die "python3: $!";
	local $/; my $o = <$p>; close $p; $o // '';
};
is($?, 0, 'the sframe boot under the plugin, a second time') or diag($rerun);
SKIP: {
	skip 'the kernel or the initrd was rebuilt during the test: run it again', 4
		if build_id(@boot) ne $before;
	my $n = 'memory-64-sframe';
	my ($a, $b) = (slurp("$dir/runs/$n/insnprof.txt"), slurp("$again/$n/insnprof.txt"));
	ok(length $a && $a eq $b, "$n: the plugin's output is the same both times")
		or diag(`diff $dir/runs/$n/insnprof.txt $again/$n/insnprof.txt | head -20`);
	my $sf2 = profile("$again/$n/insnprof.txt");
	my @keys = qw(insns cycles cycles_stores loads stores bytes l1i_miss l1d_miss l2_miss
		      llc_miss st_l1d_miss st_l2_miss st_llc_miss rep_execs rep_bytes);
	for my $w ('*', 'nmi_dispatch') {
		is(join(' ', map { "$_=" . ($sf2->{$w}{$_} // '-') } @keys),
		   join(' ', map { "$_=" . ($sf->{$w}{$_} // '-') } @keys),
		   "$n window $w: the same modelled cycles, misses at each level, loads and stores");
	}
	ok(slurp("$dir/runs/$n/records.bin") eq slurp("$again/$n/records.bin"),
	   "$n: the guest wrote the same stream both times");
}

done_testing();
