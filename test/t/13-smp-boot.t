#!/usr/bin/perl
# Several CPUs (tools/qemu-run --cpus N, arch/x86_64/smp.c): the kernel
# starts every CPU of the MADT through the real-mode trampoline, and the
# smp_* kernel tests check each one from the inside (its index without GS,
# its APIC id, its own GDT, TSS and GS base, an NMI on its own IST stack,
# its own LAPIC timer NMIs, irq work queued on another CPU waited for until
# it ran there). Booted --direct --icount with 2, 4 and 8 CPUs,
# through OVMF with 4, and with 1, where no AP exists and the tests skip.
# The boots with 4 CPUs run every kernel test (`ktest`), which must all
# pass, the deferred unwinder's across two CPUs included (an NMI's request
# on CPU 1 unwound on CPU 0; a task exiting on CPU 0 while its irq work is
# queued on CPU 1); the others run the smp_* tests.
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
	unless ($good) {
		my $from = @log > 40 ? @log - 40 : 0;
		print "# the console's last lines:\n", map { "#   $_\n" } @log[$from .. $#log];
	}
}
print "1..$n\n";
