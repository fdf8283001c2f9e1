#!/usr/bin/perl
# Test 12: gdb walks the kernel's stacks into user code.
#
# The kernel keeps its CFI in kernel.elf (.debug_frame, not loaded) and the
# entry paths describe their frames (arch/x86_64/include/arch/trap.h), so gdb, with the
# symbols of .gdbinit, unwinds from anywhere in the kernel through the
# entry into the program that entered. /bin/reader boots under -icount
# (the same run every time) with QEMU waiting for gdb, which
#
#  1. stops in the deferred unwind's task work (hardware breakpoint) until
#     it runs on a system call's way back, and requires the backtrace
#     unwind_deferred_task_work, task_work_run, exit_to_user_mode,
#     x86_syscall, the entry frame, then the program's read, read_file,
#     reader_rounds, main;
#  2. sets breakpoints on unwind_user and unwind_deferred_request and
#     requires gdb to place them at a line of their own files (not of an
#     inlined arch helper), then stops in unwind_user and requires the
#     backtrace to hold unwind_deferred_task_work (no tail call hides it)
#     and, past main (set backtrace past-main on), to end at the
#     program's _start, with no frame after it (crt0.S's CFI ends the
#     stack) and no "Backtrace stopped";
#  3. stops in the sampling NMI's handler and requires the backtrace to
#     reach nmi_dispatch, cross the NMI's entry frame and name the code the
#     NMI interrupted.
use strict;
use warnings;
use IO::Socket::INET;
use File::Temp qw(tempdir);
use Test::More;

plan(skip_all => 'gdb is not installed (Debian package gdb)') unless `which gdb` =~ /gdb/;

my $dir = tempdir(CLEANUP => 1);
# A free port for QEMU's gdb stub (other QEMUs may use :1234).
my $sock = IO::Socket::INET->new(Listen => 1, LocalAddr => '127.0.0.1', LocalPort => 0)
	or die "no free port: $!";
my $port = $sock->sockport;
close($sock);

my $qemu = fork() // die "fork: $!";
if ($qemu == 0) {
	open(STDOUT, '>', "$dir/console.txt");
	open(STDERR, '>&', \*STDOUT);
	exec('tools/qemu-run', '--direct', '--icount', '--gdb-port', $port, '--timeout', '300',
	     '--cmdline', 'init=/bin/reader profile.mode=sframe profile.hz=1000')
		or die "tools/qemu-run: $!";
}

open(my $f, '>', "$dir/script.gdb") or die;
print $f <<'GDB';
hbreak unwind_deferred_task_work
continue
while !$_any_caller_matches("^x86_syscall$", 8)
  continue
end
echo === syscall\n
bt 20
delete
echo === break\n
hbreak unwind_deferred_request
hbreak unwind_user
delete 2
continue
set backtrace past-main on
echo === unwind_user\n
bt 60
delete
hbreak sample_nmi
continue
echo === nmi\n
bt 20
kill
GDB
close($f);

# QEMU listens as soon as it started; give it a moment, then connect.
my $out = '';
for my $try (1 .. 30) {
	$out = `timeout 240 gdb -batch -nx -x .gdbinit -ex 'stitch-user /bin/reader' \\
		-ex 'target remote :$port' -x $dir/script.gdb 2>&1`;
	last if $out =~ /=== syscall/ || $out !~ /Connection refused|Connection timed out/;
	sleep 1;
}
waitpid($qemu, 0);

my ($sys) = $out =~ /=== syscall\n(.*?)(?:^===|\z)/ms;
my ($brk) = $out =~ /=== break\n(.*?)(?:^===|\z)/ms;
my ($uw) = $out =~ /=== unwind_user\n(.*?)(?:^===|\z)/ms;
my ($nmi) = $out =~ /=== nmi\n(.*?)(?:^Kill|\z)/ms;
ok(defined $sys, 'gdb stopped in unwind_deferred_task_work on a system call\'s way back') or diag($out);

# The function of each frame, or the marker of an entry frame.
sub frames {
	my ($bt) = @_;
	return map { /^#\d+\s+(?:0x[0-9a-f]+ in )?(<signal handler called>|\S+)/ ? $1 : () }
		split /\n/, $bt // '';
}
my @sys = frames($sys);
is_deeply([@sys[0 .. 9]],
	  [qw(unwind_deferred_task_work task_work_run exit_to_user_mode x86_syscall), '<signal handler called>',
	   qw(sys_result read read_file reader_rounds main)],
	  'syscall: from the task work through the entry into read, read_file, reader_rounds, main')
	or diag($sys);

# Where gdb puts `break FUNCTION`: the function's own file.
my @at = ($brk // '') =~ /^Hardware assisted breakpoint \d+ at 0x[0-9a-f]+: file (\S+), line \d+\.$/mg;
is_deeply(\@at, ['kern/unwind/deferred.c', 'kern/unwind/user.c'],
	  'break unwind_deferred_request, break unwind_user: at lines of their own files') or diag($brk // $out);

my @uw = frames($uw);
ok(grep({ $_ eq 'unwind_deferred_task_work' } @uw),
   'unwind_user: the backtrace holds unwind_deferred_task_work') or diag($uw // $out);
ok(@uw && $uw[-1] eq '_start' && ($uw // '') !~ /Backtrace stopped|More stack frames follow/,
   'unwind_user: the backtrace ends at _start, with no frame after it (' . ($uw[-1] // 'none') . ')')
	or diag($uw // $out);

my @nmi = frames($nmi);
my ($entry) = grep { $nmi[$_] eq '<signal handler called>' } 0 .. $#nmi;
ok(grep({ $_ eq 'nmi_dispatch' } @nmi), 'NMI: the backtrace from sample_nmi reaches nmi_dispatch')
	or diag($nmi // $out);
ok(defined $entry && $entry + 1 <= $#nmi && $nmi[$entry + 1] =~ /^[a-z_]\w*$/ && $nmi[$entry + 1] ne '??',
   '... crosses the NMI entry frame and names the code it interrupted ('
   . (defined $entry ? $nmi[$entry + 1] // 'nothing' : 'no entry frame') . ')') or diag($nmi);

done_testing();
