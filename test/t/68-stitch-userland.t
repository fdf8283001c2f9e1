#!/usr/bin/perl
# Stitch's own ring-3 programs (build/userland/root: static newlib ELFs
# with DWARF, SFrame and a build id): a deferred stack made of /bin/fib's
# real call sites, symbolized with file:line and read back by perf.
use strict;
use warnings;
no warnings 'portable';
use FindBin;
use lib "$FindBin::Bin/../stitch";
BEGIN { chdir "$FindBin::Bin/../.." or die }
use Test::More;
use Cwd 'abs_path';
use Stream;
use Scenario;
use Check;

my $root = 'build/userland/root';
my $fib = "$root/bin/fib";
plan skip_all => "$fib not built (mk/userland.mk)" unless -f $fib;

# Return addresses of real calls: the instruction after each call site.
my (%ret, %line, $prev, $func);
for (`objdump -d --no-show-raw-insn $fib`) {
	$func = $1 if /^[0-9a-f]+ <(\S+)>:$/;
	if (/^\s+([0-9a-f]+):/) {
		my $at = hex $1;
		$ret{$prev->[0]}{$prev->[1]} //= $at if $prev;
		$prev = /\bcall\s+[0-9a-f]+ <(\S+)>/ ? [$func, $1] : undef;
	}
}
my @chain = ($ret{fib_recursive}{fib_recursive} - 1,    # a pc inside fib_recursive
	     $ret{fib_recursive}{fib_recursive}, $ret{fib_rounds}{fib_recursive},
	     $ret{main}{fib_rounds}, $ret{stitch_start}{main});
ok(!grep({ !defined } @chain), 'call sites found in /bin/fib: fib_recursive, fib_rounds, main, stitch_start')
	or BAIL_OUT('objdump of /bin/fib did not show the expected calls');

my ($text) = grep { /\sR E\s/ } `readelf -lW $fib`;
my (undef, $off, $vaddr, undef, $filesz) = split " ", $text;
my $ks = symbols(kernel_elf());
my $bytes = stream(rec_stream(),
	rec_mmap(pid => 0, start => $ks->{nmi_handler}, len => 0x100, flags => MMAP_KERNEL,
		 path => '/boot/kernel.elf'),
	rec_comm(time => 1, pid => 7, name => 'fib'),
	rec_mmap(time => 2, pid => 7, start => hex $vaddr, len => hex $filesz, pgoff => hex $off,
		 path => '/bin/fib'),
	rec_sample(time => 3, pid => 7, ips => [PERF_CONTEXT_KERNEL, $ks->{nmi_handler} + 4,
						PERF_CONTEXT_USER_DEFERRED, 0x100000001]),
	rec_deferred(time => 4, pid => 7, cookie => 0x100000001, ips => [PERF_CONTEXT_USER, @chain]));

# Two symfs trees: the userland's for /bin/fib, the tests' for the kernel.
my $r = run_case($bytes, '--symfs', $root, '--kernel', kernel_elf());
my @f = @{$r->{script}[0]{frames}};
is_deeply([map { $_->{name} } @f],
	  [qw(nmi_handler fib_recursive fib_recursive fib_rounds main stitch_start)],
	  '/bin/fib frames named from its symbols');
my %src;
open(my $fh, '<', 'userland/workloads/fib.c') or die;
while (<$fh>) {
	$src{rec} = $. if /return fib_recursive\(n - 1\)/;
	$src{rounds} = $. if /sum \+= fib_recursive\(n\)/;
	$src{main} = $. if /sum = fib_rounds\(n, rounds\)/;
}
is_deeply([map { "$_->{file}:$_->{line}" } @f[2 .. 4]],
	  ["userland/workloads/fib.c:$src{rec}", "userland/workloads/fib.c:$src{rounds}",
	   "userland/workloads/fib.c:$src{main}"],
	  '... with the source lines of the calls (newlib program, DWARF in the symfs copy)');
is($r->{counters}{missing_files}, 0, '... every file found');

my ($id) = `readelf -n $fib` =~ /Build ID: ([0-9a-f]+)/;
my %ids = map { /^([0-9a-f]+) (\S+)$/ ? ($2 => $1) : () } `perf buildid-list -i $r->{dir}/out/perf.data 2>/dev/null`;
is($ids{'/bin/fib'}, $id, 'perf.data carries /bin/fib\'s build id');
my $out = `perf script -i $r->{dir}/out/perf.data --symfs $root --vmlinux ${\ abs_path(kernel_elf())} 2>&1`;
is(join(';', map { stack_names($_) } @{parse_perf_script($out)}),
   'nmi_handler;fib_recursive;fib_recursive;fib_rounds;main;stitch_start',
   'perf script reads the same stack from perf.data');

done_testing();
