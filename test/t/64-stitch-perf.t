#!/usr/bin/perl
# The perf.data stitch writes, read by this machine's perf (Debian's 6.1):
# no warnings, the guest binaries found through --symfs and the build ids,
# and for every sample the same symbolized stack as stitch's own.
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
use Cwd 'abs_path';

plan skip_all => 'perf is not installed' unless `which perf` =~ /perf/;

sub perf {
	my ($dir, @args) = @_;
	my $out = `perf @args 2>$dir/perf.err`;
	return ($?, $out, read_file("$dir/perf.err"));
}

# perf shows what stitch shows, minus the frame perf cannot express.
sub stitch_view {
	my ($s) = @_;
	return "$s->{comm} $s->{pid}: " . join(';', map { $_->{name} }
		grep { !exists $_->{missing} } @{$s->{frames}});
}
sub perf_view { my ($s) = @_; "$s->{comm} $s->{pid}: " . stack_names($s) }

for my $mode (MODE_SFRAME, MODE_VALIDATE) {
	my $r = run_case(build_run(mode => $mode)->{bytes}, '--symfs', symfs());
	my $dir = $r->{dir};
	my ($cmd) = $r->{summary} =~ /^(perf report .*)$/m;
	ok($cmd, "mode $mode: stitch prints the perf command") or next;
	my ($st, $out, $err) = perf($dir, $cmd =~ s/^perf //r);
	is($st, 0, "mode $mode: that exact command works");
	is($err, '', '... without a single warning') or diag($err);
	like($out, qr/^# Samples: 31\s+of event 'cpu-clock'$/m, '... reading all 31 samples');

	my @opts = ($cmd =~ /(--symfs \S+ --vmlinux \S+)/);
	($st, $out, $err) = perf($dir, "script -i $dir/out/perf.data @opts");
	is($err, '', 'perf script: no warnings') or diag($err);
	my @p = map { perf_view($_) } @{parse_perf_script($out)};
	my @s = map { stitch_view($_) } @{$r->{script}};
	is(scalar @p, scalar @s, "perf script shows all ${\ scalar @s} samples");
	is_deeply(\@p, \@s, '... each with the same command, pid and symbolized stack as stitch')
		or diag(join "\n", map { "perf:   $p[$_]\nstitch: $s[$_]" } grep { $p[$_] ne $s[$_] } 0 .. $#s);
	ok(!grep({ /\[unknown\]/ } @p), '... no [unknown] frame');
}

# Build ids: perf matches the guest files by them.
my $r = run_case(build_run()->{bytes}, '--symfs', symfs());
my %ids = map { /^([0-9a-f]+) (\S+)$/ ? ($2 => $1) : () } `perf buildid-list -i $r->{dir}/out/perf.data 2>/dev/null`;
for ([symfs() . '/bin/capture-static', '/bin/capture-static'],
     [symfs() . '/lib/libwork.so', '/lib/libwork.so'],
     [kernel_elf(), '[kernel.kallsyms]']) {
	my ($file, $name) = @$_;
	my ($want) = `readelf -n $file` =~ /Build ID: ([0-9a-f]+)/;
	is($ids{$name}, $want, "build id of $name in perf.data is the file's");
}

# perf report's self overheads are stitch's leaf counts.
my ($st, $out) = perf($r->{dir}, "report -i $r->{dir}/out/perf.data --stdio --no-children -q -g none "
		      . "-s comm,sym --symfs " . symfs() . " --vmlinux " . abs_path(kernel_elf()));
my %perf = map { /^\s*([\d.]+)%\s+(\S+)\s+\[.\] (\S+)/ ? ("$2 $3" => sprintf('%.0f', $1 * 31 / 100)) : () }
	   split /\n/, $out;
my %leaf;
$leaf{"$_->{comm} $_->{frames}[0]{name}"}++ for @{$r->{script}};
is_deeply(\%perf, \%leaf, 'perf report self overhead per command and symbol = stitch\'s leaf counts');

# Missing user stacks and traced system calls.
my $d = load_snaps(build_dir() . '/snaps-static.txt');
my ($s, $m) = ($d->{snaps}[0], $d->{maps}[0]);
my $ks = symbols(kernel_elf());
$r = run_case(stream(rec_stream(),
	rec_mmap(pid => 0, start => $ks->{nmi_handler}, len => 0x100, flags => MMAP_KERNEL,
		 path => '/boot/kernel.elf'),
	rec_comm(time => 1, pid => 2, name => 'capture'),
	rec_mmap(time => 2, pid => 2, start => $m->{start}, len => $m->{end} - $m->{start},
		 pgoff => $m->{pgoff}, path => guest_path($m->{path})),
	rec_sample(time => 3, pid => 2, ips => [PERF_CONTEXT_KERNEL, $ks->{sys_write} + 5,
						PERF_CONTEXT_USER_DEFERRED, 7]),
	rec_sample(time => 4, pid => 2, flags => SAMPLE_USER, ip => $s->{chain}[0],
		   ips => [PERF_CONTEXT_USER_DEFERRED, 8]),
	rec_sample(time => 5, pid => 2, event => 1, aux => 2, period => 0,
		   ips => [PERF_CONTEXT_KERNEL, $ks->{syscall_entry} + 5, PERF_CONTEXT_USER_DEFERRED, 9]),
	rec_deferred(time => 6, pid => 2, cookie => 9, ips => [PERF_CONTEXT_USER, @{$s->{chain}}])),
	'--symfs', symfs());
# (--vmlinux must be absolute: perf puts a relative one under --symfs)
my @opts = ('--symfs', symfs(), '--vmlinux', abs_path(kernel_elf()));
($st, $out, my $err) = perf($r->{dir}, "script -i $r->{dir}/out/perf.data @opts");
is($err, '', 'missing user stacks and a syscall event: perf script without warnings');
my @p = map { "$_->{event} " . stack_names($_) } @{parse_perf_script($out)};
is_deeply(\@p, ['cpu-clock sys_write', 'cpu-clock compare_leaf',
		'syscall syscall_entry;compare_leaf;sort_pass;run_all;run_on_own_stack'],
	  '... kernel part kept, user ip kept, the syscall sample its own event');
($st, $out) = perf($r->{dir}, "report -i $r->{dir}/out/perf.data --stdio @opts");
like($out, qr/^# Samples: 1\s+of event 'syscall'$/m, '... perf report shows it as the event "syscall"');
like($out, qr/^# Samples: 2\s+of event 'cpu-clock'$/m, '... apart from the 2 cpu-clock samples');
like($r->{report}, qr/^== system calls traced: 1 ==\n  capture\s+pid 2\s+syscall 2\s+1$/m,
     'report.txt counts traced system calls by process and number');
unlike($r->{folded}, qr/syscall_entry/, '... and keeps them out of the cpu-clock profile (folded)');

done_testing();
