#!/usr/bin/perl
# Several CPUs (tools/qemu-run --cpus N, arch/x86_64/smp/smp.c): the kernel
# starts every CPU of the MADT through the real-mode trampoline, and the
# smp_* kernel tests check each one from the inside (its index without GS,
# its APIC id, its own GDT, TSS and GS base, an NMI on its own IST stack,
# its own LAPIC timer NMIs, irq work queued on another CPU waited for until
# it ran there). Booted --direct --icount with 2, 4 and 8 CPUs,
# through OVMF with 4, and with 1, where no AP exists and the tests skip.
# The boots with 4 CPUs run every kernel test (`ktest`), which must all
# pass, the deferred unwinder's across two CPUs included (an NMI's request
# on CPU 1 unwound on CPU 0; a task exiting on CPU 0 while its irq work is
# queued on CPU 1); the others run the smp_* tests. Then /bin/t-smp: a
# kill of a ring-3 spinner on an AP lands through the kill's IPI (3 CPUs,
# -icount), and two CPUs writing lines at once do not mix them (the
# console lock; 2 CPUs, wall clock).
use strict;
use warnings;
use FindBin;

chdir "$FindBin::Bin/../.." or die "chdir: $!";
my $n = 0;
sub tap { my ($ok, $name) = @_; $n++; print $ok ? "ok $n - $name\n" : "not ok $n - $name\n"; $ok ? 1 : 0 }

my @smp_tests = qw(smp_every_cpu_online smp_nmi_on_own_ist_stack smp_timer_nmi_every_cpu
		   smp_irq_work_wait_other_cpu);
my @cross_tests = qw(unwind_deferred_nmi_on_other_cpu unwind_deferred_exit_with_work_on_other_cpu);

sub boot {
	my ($cpus, $cmdline, @args) = @_;
	my @log = `tools/qemu-run @args --cpus $cpus --timeout 300 --cmdline '$cmdline' 2>&1`;
	my $status = $? >> 8;
	s/\r?\n\z// for @log;
	return ($status, @log);
}

for my $case ([2, '--direct --icount', 'ktest=smp'], [4, '--direct --icount', 'ktest'],
	      [8, '--direct --icount', 'ktest=smp'], [4, '', 'ktest ktest.timing=off'],
	      [1, '--direct --icount', 'ktest=smp']) {
	my ($cpus, $args, $cmdline) = @$case;
	my $how = ($args ? "$cpus CPUs, $args" : "$cpus CPUs, OVMF") . ", $cmdline";
	my ($status, @log) = boot($cpus, $cmdline, split ' ', $args);
	my $good = tap($status == 0, "$how: shuts down with success (qemu-run exit $status)");

	my %apic;
	for (@log) { $apic{$1} = $2 if /^smp: cpu (\d+) online, APIC id (\d+)$/ }
	my @want = 1 .. $cpus - 1;
	$good &= tap(join(' ', sort { $a <=> $b } keys %apic) eq "@want",
		     "$how: every AP reports online with its index (" . join(',', sort keys %apic) . ')');
	my %ids = map { $_ => 1 } values %apic;
	$good &= tap(keys %ids == keys %apic && !exists $ids{0},
		     "$how: each AP has its own APIC id, none the boot CPU's (0)");
	my $total = grep { /^smp: $cpus CPUs online$/ } @log;
	$good &= tap($cpus == 1 ? !grep(/^smp:/, @log) : $total == 1,
		     $cpus == 1 ? "$how: no AP, nothing said" : "$how: the boot CPU counts $cpus online");

	my %res;
	for (@log) { $res{$2} = $1 if /^(ok|not ok) \d+ (\S+)(?: # SKIP|$)/ }
	my %skip = map { /^ok \d+ (\S+) # SKIP/ ? ($1 => 1) : () } @log;
	my $all = $cmdline =~ /^ktest(?: |$)/;
	if ($all) {
		my @failed = grep { $res{$_} ne 'ok' } sort keys %res;
		$good &= tap(keys %res > 50 && !@failed, "$how: all " . keys(%res) .
			     " kernel tests pass (@failed)");
	}
	for my $t (@smp_tests, $all ? @cross_tests : ()) {
		my $want_skip = $cpus == 1;
		$good &= tap(($res{$t} // '') eq 'ok' && !!$skip{$t} == !!$want_skip,
			     "$how: kernel test $t " . ($want_skip ? 'skips' : 'passes'));
	}
	show_tail(@log) unless $good;
}
sub show_tail {
	my @log = @_;
	my $from = @log > 40 ? @log - 40 : 0;
	print "# the console's last lines:\n", map { "#   $_\n" } @log[$from .. $#log];
}

# A kill of a task spinning in ring 3 on another CPU (3 CPUs, -icount, no
# sampling, so nothing else enters the kernel there): the kill's IPI brings
# it to its return path. /bin/t-smp's victims sit on the two CPUs init is
# not on, one of them an AP, which has no tick: without the IPI that kill
# never lands (the boot times out); with it, each lands within 5*10^8
# cycles (0.5 s of guest time: QEMU's round-robin, not the kernel, takes
# most of it, docs/SMP.md), which t-smp checks too.
{
	my ($status, @log) = boot(3, 'init=/bin/t-smp init.args=kill profile.mode=none',
				  '--direct', '--icount');
	my @kills = map { /^t-smp: kill of pid \d+ on cpu (\d+) landed in (\d+) cycles$/ ? [$1, $2] : () } @log;
	my $good = tap($status == 0 && !grep(/^# /, @log), "kill: t-smp's checks pass (qemu-run exit $status)");
	$good &= tap(@kills == 2 && grep({ $_->[0] != 0 } @kills) && !grep({ $_->[1] >= 500000000 } @kills),
		     'kill: both victims killed within 5*10^8 cycles, one on an AP (' .
		     join(', ', map { "cpu $_->[0]: $_->[1] cycles" } @kills) . ')');
	show_tail(@log) unless $good;
}

# The console lock: two processes on two CPUs each write 200 lines, one
# write() per line. On the wall clock, where QEMU runs the two CPUs in
# parallel threads: under -icount a CPU keeps its turn for a whole line
# (interrupts are off while it prints), so only real parallelism can mix
# lines. Without the lock about one line in 40 arrives mixed with the
# other writer's.
{
	my ($status, @log) = boot(2, 'init=/bin/t-smp init.args=print', '--direct');
	my $line = qr/^t-smp line ([AB]) (\d{3}) abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 end$/;
	my %whole;
	for (@log) { $whole{"$1$2"}++ if /$line/ }
	my @mixed = grep { /t-smp line|end$/ && !/$line/ } @log;
	my $good = tap($status == 0, "print: t-smp's checks pass (qemu-run exit $status)");
	$good &= tap(keys %whole == 400 && !grep({ $_ != 1 } values %whole) && !@mixed,
		     'print: each of the 2 x 200 lines arrived whole, once (' . keys(%whole) .
		     ' whole, ' . @mixed . ' mixed)');
	print map { "#   mixed: $_\n" } @mixed[0 .. ($#mixed < 4 ? $#mixed : 4)];
	show_tail(@log) unless $good;
}
print "1..$n\n";
