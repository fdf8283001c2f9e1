#!/usr/bin/perl
# An unhandled exception in kernel mode: boots with ktest.fault=pf, gp and
# ud (a kernel test that raises it) and checks the register dump (vector
# name, error code, RIP inside the raising function, CR2 for #PF), the
# frame-pointer backtrace (symbolized with addr2line: the raising function,
# the test, kmain), the panic line and the failure exit status.
# STITCH_ESP=IMG boots another ESP image (default build/esp.img).
use strict;
use warnings;
no warnings 'portable'; # 64-bit kernel addresses
use FindBin;

chdir "$FindBin::Bin/../.." or die "chdir: $!";
my $elf = 'build/kernel/kernel.elf';
my @esp = $ENV{STITCH_ESP} ? ('--esp', $ENV{STITCH_ESP}) : ();

my %faults = (
	pf => { vector => 14, name => '#PF page fault', error => '0x2', cr2 => '000000000dead000' },
	gp => { vector => 13, name => '#GP general protection', error => '0x0' },
	ud => { vector => 6, name => '#UD invalid opcode', error => '0x0' },
);

my $n = 0;
sub tap { my ($ok, $name) = @_; $n++; print $ok ? "ok $n - $name\n" : "not ok $n - $name\n"; $ok ? 1 : 0 }

# Function containing each address (addr2line -f, first line of each pair).
sub functions {
	return () unless @_;
	my @out = `addr2line -f -e $elf @{[map { sprintf '0x%x', $_ } @_]}`;
	return map { $out[2 * $_] =~ s/\s+\z//r } 0 .. $#_;
}

for my $kind (qw(pf gp ud)) {
	my $f = $faults{$kind};
	my $log = `tools/qemu-run @esp --timeout 120 --cmdline ktest.fault=$kind 2>&1`;
	my $status = $? >> 8;
	$log =~ s/\r//g;
	my $good = 1;
	$good &= tap($status == 1, "$kind: the VM shut down with failure (qemu-run exit $status)");
	$good &= tap($log =~ /^trap: \Q$f->{name}\E \(vector $f->{vector}\) in kernel mode, error code \Q$f->{error}\E$/m,
		     "$kind: the dump names the exception, its vector and error code");
	my ($rip) = $log =~ /^  RIP ([0-9a-f]{16})  CS 0008  RFLAGS [0-9a-f]{16}$/m;
	$good &= tap(defined $rip, "$kind: the dump has RIP, CS and RFLAGS");
	$good &= tap($log =~ /^  RAX [0-9a-f]{16}  RBX [0-9a-f]{16}  RCX [0-9a-f]{16}$/m &&
		     $log =~ /^  R13 [0-9a-f]{16}  R14 [0-9a-f]{16}  R15 [0-9a-f]{16}$/m,
		     "$kind: the dump has the general registers");
	my ($cr2) = $log =~ /^  CR0 [0-9a-f]{16}  CR2 ([0-9a-f]{16})  CR3/m;
	if ($f->{cr2}) {
		$good &= tap(defined $cr2 && $cr2 eq $f->{cr2}, "$kind: CR2 is the faulting address " .
			     "(" . ($cr2 // 'none') . ")");
	}
	$good &= tap($log =~ /^panic: unhandled \Q$f->{name}\E$/m, "$kind: the kernel panics");

	my @frames = map { hex } $log =~ /^  #\d+ 0x([0-9a-f]{16})$/mg;
	# Return addresses (frames 1..) point after the call: look up addr - 1.
	my @fn = functions($frames[0] // (), map { $_ - 1 } @frames[1 .. $#frames]);
	print "# backtrace: @fn\n";
	$good &= tap(@frames && defined $rip && $frames[0] == hex($rip),
		     "$kind: the backtrace starts at RIP");
	$good &= tap(@fn && $fn[0] eq "fault_$kind", "$kind: RIP is in fault_$kind");
	$good &= tap(scalar(grep { $_ eq 'ktest_fn_trap_fault_injection' } @fn) &&
		     scalar(grep { $_ eq 'kmain' } @fn),
		     "$kind: the backtrace walks through the test up to kmain");
	$good &= tap($log =~ /^stitch: shutdown \(failure\)$/m, "$kind: the kernel says it shuts down with failure");
	print map { "#   $_\n" } split /\n/, $log unless $good;
}
print "1..$n\n";
