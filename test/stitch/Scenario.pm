# The standard test run: two processes sampled the way the kernel would in
# each mode, built from the capture programs' snapshots. `capture` is the
# static program, `capture-dyn` the dynamic one whose workload lives in
# /lib/libwork.so; pid 0 takes one idle sample in the kernel (in sched_idle_loop,
# the function by which stitch tells idle samples).
#
# For every snapshot, three samples: one NMI that hit user mode, and two
# NMIs during one system call (they share one cookie: one kernel entry).
# build() returns the stream and, per sample, the stack stitch must give.
package Scenario;

use strict;
use warnings;
no warnings 'portable';
use Cwd 'abs_path';
use Exporter 'import';
use Stream;

our @EXPORT = qw(build_run symfs kernel_elf guest_path);

sub symfs { build_dir() . '/symfs' }
sub kernel_elf { symfs() . '/boot/kernel.elf' }

# The path a mapping has in the guest: under the symfs, or as on the host
# (the host libraries are linked into the symfs at the same path).
sub guest_path {
	my ($p) = @_;
	my $root = abs_path(symfs());
	$p =~ s/^\Q$root\E//;
	return $p;
}

my $ksym;
sub kaddr {
	my ($name, $off) = @_;
	$ksym //= symbols(kernel_elf());
	die "no kernel symbol $name" unless defined $ksym->{$name};
	return $ksym->{$name} + $off;
}

# Kernel callchains, leaf first (return addresses a few bytes into callers).
sub nmi_chain { [kaddr('nmi_handler', 4), kaddr('do_nmi', 5)] }
sub syscall_chain {
	[kaddr('copy_to_user', 4), kaddr('sys_write', 5), kaddr('syscall_dispatch', 5),
	 kaddr('syscall_entry', 5)]
}
sub idle_chain { [kaddr('sched_idle_loop', 2), kaddr('kernel_main', 9)] }

# The user part of a sample, as the kernel writes it in each mode.
sub user_part {
	my ($mode, $snap, $cookie) = @_;
	my @chain = @{$snap->{chain}};
	return (PERF_CONTEXT_USER, @chain) if $mode == MODE_FP;
	return (PERF_CONTEXT_USER, $chain[0]) if $mode == MODE_STACK_COPY;
	return (PERF_CONTEXT_USER_DEFERRED, $cookie);
}

sub deferred_mode { my ($mode) = @_; $mode != MODE_FP && $mode != MODE_STACK_COPY }
sub copy_mode { my ($mode) = @_; $mode == MODE_STACK_COPY || $mode == MODE_VALIDATE }

# One process: COMM, MMAPs, 3 samples per snapshot, their deferred records, EXIT.
sub process {
	my ($run, $pid, $name, $snapfile, $t) = @_;
	my $mode = $run->{mode};
	my $d = load_snaps($snapfile);
	my @r = (rec_comm(time => $t++, pid => $pid, ppid => 1, name => $name));
	for my $m (@{$d->{maps}}) {
		push @r, rec_mmap(time => $t++, pid => $pid, start => $m->{start},
				  len => $m->{end} - $m->{start}, pgoff => $m->{pgoff},
				  path => guest_path($m->{path}));
	}
	for my $s (@{$d->{snaps}}) {
		my @copy = copy_mode($mode) ? (copy => $run->{copy}->(snap_copy($s))) : ();
		my ($c1, $c2) = ($run->{cookie}++, $run->{cookie}++);
		# an NMI in user mode: its own kernel entry, its own cookie
		push @r, rec_sample(time => $t++, pid => $pid, flags => SAMPLE_USER,
				    ips => [user_part($mode, $s, $c1)], @copy);
		push @{$run->{expect}}, { pid => $pid, comm => $name, kernel => [],
					  user => $s->{chain} };
		push @r, rec_deferred(time => $t++, pid => $pid, cookie => $c1,
				      stop => $run->{stop}, ips => [PERF_CONTEXT_USER, $run->{deferred}->($c1, @{$s->{chain}})])
			if deferred_mode($mode);
		# two NMIs in one system call: one cookie, one deferred record
		for my $k (syscall_chain(), nmi_chain()) {
			push @r, rec_sample(time => $t++, pid => $pid,
					    ips => [PERF_CONTEXT_KERNEL, @$k, user_part($mode, $s, $c2)],
					    @copy);
			push @{$run->{expect}}, { pid => $pid, comm => $name, kernel => $k,
						  user => $s->{chain} };
		}
		push @r, rec_deferred(time => $t++, pid => $pid, cookie => $c2,
				      stop => $run->{stop}, ips => [PERF_CONTEXT_USER, $run->{deferred}->($c2, @{$s->{chain}})])
			if deferred_mode($mode);
	}
	push @r, rec_exit(time => $t++, pid => $pid);
	return ($t, @r);
}

# build_run(mode => MODE_*) -> { bytes => stream, expect => [per sample] }
# deferred => sub { my ($cookie, @chain) = @_; ... } may rewrite what the
# deferred records carry (to make the kernel's unwind disagree); stop =>
# UNWIND_STOP_* is the stop reason they carry (default 0, the end); copy =>
# sub { my ($copy) = @_; ... } may rewrite each stack copy ({regs, stack}).
sub build_run {
	my %a = (mode => MODE_SFRAME, deferred => sub { shift; @_ }, stop => 0,
		 copy => sub { $_[0] }, @_);
	my $run = { mode => $a{mode}, cookie => (1 << 32) + 1, expect => [],
		    deferred => $a{deferred}, stop => $a{stop}, copy => $a{copy} };
	my $k = kernel_elf();
	my $text = kaddr('nmi_handler', 0);
	my @r = (rec_stream(mode => $a{mode}, ncpus => 2, max_frames => 64),
		 rec_mmap(pid => 0, start => $text, len => kaddr('kernel_main', 0x40) - $text,
			  flags => MMAP_KERNEL, path => '/boot/kernel.elf'),
		 rec_comm(pid => 0, name => 'idle'));
	my $t = 1000;
	(my $t2, my @p1) = process($run, 2, 'capture', build_dir() . '/snaps-static.txt', $t);
	(my $t3, my @p2) = process($run, 3, 'capture-dyn', build_dir() . '/snaps-dyn.txt', $t2);
	push @r, @p1, @p2;
	push @r, rec_sample(time => $t3, cpu => 1, pid => 0, ips => [PERF_CONTEXT_KERNEL, @{idle_chain()}]);
	push @{$run->{expect}}, { pid => 0, comm => 'idle', kernel => idle_chain(), user => [] };
	push @r, rec_stats(['nmi_count', 31], ['deferred_unwinds', 20], ['lost_records', 0]);
	return { bytes => stream(@r), expect => $run->{expect} };
}

1;
