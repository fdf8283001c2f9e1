#!/usr/bin/perl
# The record stream of a real boot read a second time, by a program nobody
# here wrote: Debian's perf (6.1) reads the perf.data stitch writes, and
# `perf script` must show, sample by sample, what the raw records say
# (`stitch --records-json`, the stream as the reader parsed it): the
# event, pid, tid, CPU, time (TSC ticks in nanoseconds), period, the
# command's name, the kernel chain and the user chain, which for a
# deferred sample is the one of the REC_DEFERRED record with its pid, tid,
# cookie and consumer, matched here, not by stitch. perf resolves every
# user address through the MMAP2 records stitch wrote (it prints the
# offset into the file and the file's path), so the mappings are checked
# too. The boot: /bin/demo (processes, threads, a signal handler, a
# 128-deep chain) at 1000 Hz in sframe mode with write and read traced,
# direct and under -icount.
use strict;
use warnings;
no warnings 'portable';
use FindBin;
BEGIN { chdir "$FindBin::Bin/../.." or die }
use Cwd 'abs_path';
use File::Temp qw(tempdir);
use JSON::PP;
use Math::BigInt;
use Test::More;
use sort 'stable';

my ($kernel, $root) = ('build/kernel/kernel.elf', 'build/userland/root');
-x $_ or BAIL_OUT("$_ is missing: run make") for 'build/bin/stitch', 'build/bin/recextract';
-f $_ or BAIL_OUT("$_ is missing: run make") for $kernel, 'build/initrd.cpio';
`which perf` =~ /perf/ or BAIL_OUT('perf is not installed: make test installs linux-perf');

my $dir = tempdir('oracle-perf-XXXXXX', TMPDIR => 1, CLEANUP => 1);
my $cmdline = 'init=/bin/demo profile.mode=sframe profile.hz=1000 trace.syscalls=write,read';
system("tools/qemu-run --direct --icount --timeout 300 --records $dir/records.bin "
       . "--cmdline '$cmdline' >$dir/console.txt 2>&1");
is($? >> 8, 0, 'the boot shuts down with success') or diag(`tail -20 $dir/console.txt`);

system("build/bin/stitch --records-json $dir/records.json $dir/records.bin");
is($? >> 8, 0, 'stitch --records-json: the stream is whole');
system("build/bin/stitch --symfs $root --kernel $kernel -o $dir/out $dir/records.bin >$dir/stitch.txt 2>&1");
is($? >> 8, 0, 'stitch -o writes perf.data') or diag(`cat $dir/stitch.txt`);

sub slurp { my ($p) = @_; open(my $f, '<', $p) or return ''; local $/; scalar <$f> }
my $j = decode_json(slurp("$dir/records.json") || '{}');
my @recs = @{$j->{records} // []};

use constant { CTX_KERNEL => 0xffffffffffffff80, CTX_USER => 0xfffffffffffffe00,
	       CTX_DEFERRED => 0xfffffffffffffd80, EVENT_SYSCALL => 1 };

# The split of a record's ips[] at perf's context markers.
sub contexts {
	my (@ips) = map { hex } @_;
	my (%c, $ctx);
	for (my $i = 0; $i < @ips; $i++) {
		if ($ips[$i] == CTX_KERNEL) { $ctx = 'kernel' }
		elsif ($ips[$i] == CTX_USER) { $ctx = 'user' }
		elsif ($ips[$i] == CTX_DEFERRED) { $c{cookie} = $ips[++$i]; $ctx = undef }
		elsif ($ctx) { push @{$c{$ctx}}, $ips[$i] }
		else { return undef } # an address outside any context
	}
	return \%c;
}

# What perf prints for an address of pid at time t: the file offset and
# path of the mapping that holds it (the pid's own or the kernel's,
# MMAP_KERNEL, where perf keeps the address: [kernel.kallsyms]).
my (%maps, %comms, @kmaps);
for my $r (@recs) {
	if ($r->{type} eq 'mmap') {
		my $m = { start => hex $r->{start}, len => hex $r->{len}, pgoff => hex $r->{pgoff},
			  path => $r->{path}, time => $r->{time} };
		if ($r->{flags} & 1) { push @kmaps, $m } else { push @{$maps{$r->{pid}}}, $m }
	} elsif ($r->{type} eq 'comm') {
		push @{$comms{$r->{pid}}}, $r;
	}
}
sub where {
	my ($pid, $a) = @_;
	for my $m (@kmaps) {
		return sprintf('%x ([kernel.kallsyms])', $a) if $a >= $m->{start} && $a < $m->{start} + $m->{len};
	}
	for my $m (reverse @{$maps{$pid} // []}) {
		return sprintf('%x (%s)', $a - $m->{start} + $m->{pgoff}, $m->{path})
			if $a >= $m->{start} && $a < $m->{start} + $m->{len};
	}
	return sprintf('%x ([unknown])', $a);
}
# The name the pid's last REC_COMM before t gave it; without one, the
# name stitch gives (docs/STITCH.md): pid 0 "kernel", another ":pid".
sub comm_at {
	my ($pid, $t) = @_;
	my @c = grep { $_->{time} <= $t } @{$comms{$pid} // []};
	return @c ? $c[-1]{name} : $pid ? ":$pid" : 'kernel';
}

my $hz = Math::BigInt->new($j->{stream}{tsc_hz} // 0);
ok($hz > 0, "the stream's TSC rate: $hz Hz");
sub seconds {
	my ($ticks) = @_;
	my ($s, $ns) = (Math::BigInt->new($ticks) * 1_000_000_000 / $hz)->bdiv(1_000_000_000);
	return sprintf('%d.%09d', "$s", "$ns");
}

# The deferred user chains, by (pid, tid, cookie, consumer): one each here.
my (%deferred, $dups);
for my $d (grep { $_->{type} eq 'deferred' } @recs) {
	my $key = join ',', $d->{pid}, $d->{tid}, hex $d->{cookie}, $d->{consumer};
	$dups++ if $deferred{$key};
	$deferred{$key} = contexts(@{$d->{ips}})->{user} // [];
}
ok(!$dups, 'no two deferred records share pid, tid, cookie and consumer (so matching by them is exact)');

# What perf script must print for each sample.
my (@want, $bad_chain, %kinds);
for my $s (grep { $_->{type} eq 'sample' } @recs) {
	my $c = contexts(@{$s->{ips}});
	$bad_chain++, next unless $c;
	my $syscall = $s->{event} == EVENT_SYSCALL;
	my $user = $c->{user} // [];
	if (defined $c->{cookie}) {
		my $key = join ',', $s->{pid}, $s->{tid}, $c->{cookie}, $syscall ? 1 : 0;
		$user = $deferred{$key} // [];
		$kinds{$deferred{$key} ? 'deferred' : 'missing'}++;
	}
	$kinds{kernel}++ if $c->{kernel};
	$kinds{"pid $s->{pid} tid $s->{tid}"}++;
	push @want, [$s->{time}, join "\n",
		sprintf('%s %d/%d [%03d] %s: %d %s:', comm_at($s->{pid}, $s->{time}), $s->{pid}, $s->{tid},
			$s->{cpu}, seconds($s->{time}), $syscall ? 1 : $s->{period},
			$syscall ? 'syscall' : 'cpu-clock'),
		map { where($s->{pid}, $_) } @{$c->{kernel} // []}, @$user];
}
is($bad_chain, undef, 'every sample\'s chain is made of perf\'s contexts');
ok(@want >= 2000, scalar(@want) . ' samples in the stream');
ok(($kinds{deferred} // 0) >= 1000 && !$kinds{missing}, "$kinds{deferred} of them with a deferred user chain, none missing");
ok(($kinds{kernel} // 0) >= 100, "$kinds{kernel} with a kernel chain");
ok(scalar(grep { /^pid (\d+) tid (?!\1\b)/ } keys %kinds) >= 2, 'samples of threads other than the first');

# perf script: the same fields, the chain's addresses and files, nothing
# symbolized (the addresses are what is compared), every frame (--max-stack).
my $perf = "perf script -i $dir/out/perf.data --symfs $root --vmlinux " . abs_path($kernel)
	 . ' -F comm,pid,tid,cpu,time,period,event,ip,dso --ns --max-stack 65535';
my $out = `$perf 2>$dir/perf.err`;
is($?, 0, 'perf script reads perf.data');
is(slurp("$dir/perf.err"), '', '... without a warning');
my @got = map { join "\n", map { s/^\s+|\s+$//gr =~ s/\s+/ /gr } split /\n/ }
	  grep { /\S/ } split /\n\n/, $out;

# perf orders samples by time; ties (none expected on one CPU) keep the stream's order.
is(scalar @got, scalar @want, 'perf script shows as many samples as the stream has');
@want = map { $_->[1] } sort { $a->[0] <=> $b->[0] } @want;
my @diff = grep { ($got[$_] // '') ne $want[$_] } 0 .. $#want;
is(scalar @diff, 0, '... each the same: command, pid, tid, CPU, time, period, event, kernel and user chain')
	or diag(join "\n", map { "perf script:\n$got[$_]\nthe records:\n$want[$_]\n" } @diff[0 .. ($#diff < 2 ? $#diff : 2)]);

done_testing();
