#!/usr/bin/perl
# Several CPUs (tools/qemu-run --cpus N, arch/x86_64/smp.c): the kernel
# starts every CPU of the MADT through the real-mode trampoline, and the
# smp_* kernel tests check each one from the inside (its index without GS,
# its APIC id, its own GDT, TSS and GS base, an NMI on its own IST stack,
# its own LAPIC timer NMIs, irq work queued on another CPU waited for until
# it ran there). Booted --direct --icount with 2, 4 and 8 CPUs,
# through OVMF with 4, and with 1, where no AP exists and the tests skip.
use strict;
use warnings;
use FindBin;

chdir "$FindBin::Bin/../.." or die "chdir: $!";
my $n = 0;
sub tap { my ($ok, $name) = @_; $n++; print $ok ? "ok $n - $name\n" : "not ok $n - $name\n"; $ok ? 1 : 0 }

my @smp_tests = qw(smp_every_cpu_online smp_nmi_on_own_ist_stack smp_timer_nmi_every_cpu
		   smp_irq_work_wait_other_cpu);

sub boot {
	my ($cpus, @args) = @_;
	my @log = `tools/qemu-run @args --cpus $cpus --timeout 300 --cmdline 'ktest=smp' 2>&1`;
	my $status = $? >> 8;
	s/\r?\n\z// for @log;
	return ($status, @log);
}

for my $case ([2, '--direct --icount'], [4, '--direct --icount'], [8, '--direct --icount'],
	      [4, ''], [1, '--direct --icount']) {
	my ($cpus, $args) = @$case;
	my $how = $args ? "$cpus CPUs, $args" : "$cpus CPUs, OVMF";
	my ($status, @log) = boot($cpus, split ' ', $args);
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
	for (@log) { $res{$2} = $1 if /^(ok|not ok) \d+ (smp_\S+)(?: # SKIP|$)/ }
	my %skip = map { /^ok \d+ (smp_\S+) # SKIP/ ? ($1 => 1) : () } @log;
	for my $t (@smp_tests) {
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
