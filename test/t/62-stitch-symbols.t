#!/usr/bin/perl
# Symbolization with libdwfl: executables, a shared object at whatever
# address its REC_MMAP says it was loaded, the kernel (from --symfs or
# --kernel), source lines for the call sites, and honest [unknown]s.
use strict;
use warnings;
no warnings 'portable';
use FindBin;
use lib "$FindBin::Bin/../stitch";
BEGIN { chdir "$FindBin::Bin/../.." or die }
use Test::More;
use Stream;
use Scenario;
use Check;

# The function containing addr according to nm (start and size).
sub nm_table {
	my ($elf) = @_;
	[map { /^([0-9a-f]+) ([0-9a-f]+) [tTwW] (\S+)$/ ? [hex $1, hex $2, $3] : () }
	 `nm -S --defined-only $elf`];
}
# Every name nm gives the function containing addr (aliases included).
sub nm_names {
	my ($table, $addr) = @_;
	my @n = map { $_->[2] } grep { $addr >= $_->[0] && $addr < $_->[0] + $_->[1] } @$table;
	return @n ? @n : ('[unknown]');
}

my $static = nm_table(symfs() . '/bin/capture-static');
my $kernel = nm_table(kernel_elf());
my $run = build_run();
my $r = run_case($run->{bytes}, '--symfs', symfs());
is($r->{status}, 0, 'standard run symbolized');
is($r->{counters}{missing_files}, 0, '... every mapped file found under --symfs');

# Every frame of the static process and of the kernel, against nm. Return
# addresses are looked up at addr - 1: the call, not what follows it.
my ($bad, $checked) = (0, 0);
for my $s (grep { $_->{comm} ne 'capture-dyn' } @{$r->{script}}) {
	my @k = grep { $_->{addr} >= 0xffffffff80000000 } @{$s->{frames}};
	my @u = grep { $_->{addr} < 0xffffffff80000000 } @{$s->{frames}};
	for my $part ([$kernel, @k], [$static, @u]) {
		my ($table, @f) = @$part;
		for my $i (0 .. $#f) {
			my @want = nm_names($table, $f[$i]{addr} - ($i ? 1 : 0));
			$checked++;
			next if grep { $_ eq $f[$i]{name} } @want;
			$bad++;
			diag(sprintf('%#x: %s, nm says %s', $f[$i]{addr}, $f[$i]{name}, "@want"));
		}
	}
}
ok($checked > 80 && !$bad, "$checked frames of the executable and the kernel named as nm names them");
my @kmods = map { $_->{module} } grep { $_->{addr} >= 0xffffffff80000000 } map { @{$_->{frames}} } @{$r->{script}};
ok(@kmods && !grep({ $_ ne '/boot/kernel.elf' } @kmods), 'kernel frames attributed to the kernel mapping');

# Source lines: the leaf is where the snapshot was taken (the line after
# the snap() call), every caller is at its call site.
my %line;
open(my $src, '<', 'test/stitch/work.c') or die;
while (<$src>) {
	$line{snap_sort} = $. + 1 if /snap 0: sort path/;
	$line{call_compare} = $. if /compare_leaf\(v\[i\]/;
	$line{call_sort} = $. if /sink = sort_pass/;
	$line{call_checksum} = $. if /return checksum\(buf\)/;
	$line{call_parse} = $. if /sink \+= parse/;
}
my ($sortpath) = @{$r->{script}};
is_deeply([map { "$_->{name}:$_->{line}" } @{$sortpath->{frames}}[0 .. 2]],
	  ["compare_leaf:$line{snap_sort}", "sort_pass:$line{call_compare}", "run_all:$line{call_sort}"],
	  'file:line of the leaf (the sampled ip) and of the call sites of its callers');
my ($parse) = grep { $_->{name} eq 'parse' } map { @{$_->{frames}} } @{$r->{script}};
is("$parse->{file}:$parse->{line}", "test/stitch/work.c:$line{call_checksum}",
   'a call that is the last thing on its line still gets that line (addr - 1)');

# The shared object, where the dynamic program's REC_MMAP put it.
my ($dyn) = grep { $_->{comm} eq 'capture-dyn' } @{$r->{script}};
is_deeply([map { "$_->{name} $_->{module}" } @{$dyn->{frames}}[0 .. 3]],
	  ['compare_leaf /lib/libwork.so', 'sort_pass /lib/libwork.so', 'run_all /lib/libwork.so',
	   'run_on_own_stack /bin/capture-dyn'], 'shared object frames named at its load address');

# The same library mapped 1 GiB lower, with its addresses moved the same
# way: the names must follow the mapping.
my $d = load_snaps(build_dir() . '/snaps-dyn.txt');
my ($lib) = grep { $_->{path} =~ /libwork/ } @{$d->{maps}};
my $shift = 1 << 30;
my @chain = map { $_ - $shift } @{$d->{snaps}[0]{chain}}[0 .. 2];
my @kmap = (rec_mmap(pid => 0, start => $kernel->[0][0], len => 0x1000, flags => MMAP_KERNEL,
		     path => '/boot/kernel.elf'));
$r = run_case(stream(rec_stream(mode => MODE_FP), @kmap, rec_comm(pid => 3, name => 'moved'),
		     rec_mmap(pid => 3, start => $lib->{start} - $shift, len => $lib->{end} - $lib->{start},
			      pgoff => $lib->{pgoff}, path => '/lib/libwork.so'),
		     rec_sample(pid => 3, ips => [PERF_CONTEXT_USER, @chain])), '--symfs', symfs());
is_deeply([map { $_->{name} } @{$r->{script}[0]{frames}}], [qw(compare_leaf sort_pass run_all)],
	  'shared object loaded elsewhere: the load bias comes from its REC_MMAP');

# A symbol with a version in the symbol table ("run_all@@WORK_1", as a C
# library's "memcpy@@GLIBC_2.14"): named without it, as perf does.
my $v = symbols(symfs() . '/lib/libwork-v.so');
ok(defined $v->{'run_all@@WORK_1'}, 'libwork-v.so has a versioned run_all');
my $base = 0x7f0000000000;
$r = run_case(stream(rec_stream(mode => MODE_FP), @kmap, rec_comm(pid => 3, name => 'versioned'),
		     rec_mmap(pid => 3, start => $base, len => 0x10000, pgoff => 0, path => '/lib/libwork-v.so'),
		     rec_sample(pid => 3, ips => [PERF_CONTEXT_USER, $base + $v->{'run_all@@WORK_1'} + 4])),
	      '--symfs', symfs());
is($r->{script}[0]{frames}[0]{name}, 'run_all', 'symbol versions dropped (run_all, not run_all@@WORK_1)');

# The kernel: from --symfs by its mapping's path, or from --kernel.
my $ks = symbols(kernel_elf());
my @ksample = (rec_comm(pid => 2, name => 'k'),
	       rec_sample(pid => 2, ips => [PERF_CONTEXT_KERNEL, $ks->{sys_write} + 5]));
my $gone = stream(rec_stream(), rec_mmap(pid => 0, start => $ks->{nmi_handler}, len => 0x1000,
					 flags => MMAP_KERNEL, path => '/no/such/kernel'), @ksample);
$r = run_case($gone, '--symfs', symfs());
is($r->{script}[0]{frames}[0]{name}, '[unknown]', 'kernel file not under --symfs: [unknown]');
is($r->{script}[0]{frames}[0]{module}, '/no/such/kernel', '... still attributed to its mapping');
ok($r->{counters}{missing_files} >= 1, '... and the missing file counted');
$r = run_case($gone, '--symfs', symfs(), '--kernel', kernel_elf());
is($r->{script}[0]{frames}[0]{name}, 'sys_write', '--kernel names the kernel frames');
$r = run_case(stream(rec_stream(), @ksample), '--kernel', kernel_elf());
is($r->{script}[0]{frames}[0]{name}, 'sys_write', 'no kernel REC_MMAP: --kernel placed at its link address');
like($r->{summary}, qr/--vmlinux \S*kernel\.elf/, '... and the perf command printed names it');

# Build ids: the stream's must match the file's, or the file is not used.
my $st = load_snaps(build_dir() . '/snaps-static.txt');
my ($exe) = grep { $_->{path} =~ /capture-static/ } @{$st->{maps}};
my ($hex) = `readelf -n ${\ symfs()}/bin/capture-static` =~ /Build ID: ([0-9a-f]+)/;
for ([pack('H*', $hex), 'compare_leaf', 0, 'the right build id in REC_MMAP: the file is used'],
     ["\x11" x 20, '[unknown]', 1, 'a wrong build id: the file is not used, the mismatch counted']) {
	my ($id, $name, $mismatch, $what) = @$_;
	$r = run_case(stream(rec_stream(mode => MODE_FP), rec_comm(pid => 2, name => 'x'),
			     rec_mmap(pid => 2, start => $exe->{start}, len => $exe->{end} - $exe->{start},
				      pgoff => $exe->{pgoff}, path => '/bin/capture-static', build_id => $id),
			     rec_sample(pid => 2, ips => [PERF_CONTEXT_USER, $st->{snaps}[0]{chain}[0]])),
		      '--symfs', symfs());
	is("$r->{script}[0]{frames}[0]{name} $r->{counters}{build_id_mismatch}", "$name $mismatch", $what);
}

# A caller entry at a function's first byte with nothing before it (an
# interrupted ip at the entry of the first function): named by itself.
$r = run_case(stream(rec_stream(), @ksample[0], rec_mmap(pid => 0, start => $ks->{nmi_handler}, len => 0x1000,
							  flags => MMAP_KERNEL, path => '/boot/kernel.elf'),
		     rec_sample(pid => 2, ips => [PERF_CONTEXT_KERNEL, $ks->{do_nmi} + 5, $ks->{nmi_handler}])),
	      '--symfs', symfs());
is_deeply([map { $_->{name} } @{$r->{script}[0]{frames}}], ['do_nmi', 'nmi_handler'],
	  'a caller entry whose addr - 1 has no symbol is looked up at addr');

# Addresses nobody mapped, files nobody has.
$r = run_case(stream(rec_stream(mode => MODE_FP), rec_comm(pid => 2, name => 'x'),
		     rec_mmap(pid => 2, start => 0x400000, len => 0x1000, path => '/bin/nothere'),
		     rec_sample(pid => 2, ips => [PERF_CONTEXT_USER, 0x400010, 0x1234])), '--symfs', symfs());
is_deeply([map { "$_->{name} $_->{module}" } @{$r->{script}[0]{frames}}],
	  ['[unknown] /bin/nothere', '[unknown] [unknown]'], 'missing file and unmapped address: [unknown]');
is($r->{counters}{frames_unmapped}, 1, '... the unmapped address counted');
is($r->{counters}{frames_no_symbol}, 1, '... the address without a symbol counted');
is($r->{counters}{missing_files}, 1, '... the missing file counted');

done_testing();
