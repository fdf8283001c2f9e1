#!/usr/bin/perl
# The stack-copy unwinder (libdw, .eh_frame, memory from the copy) against
# the true callchains the capture programs took with glibc's backtrace()
# (libgcc's unwinder),
# and validate mode's comparison of the two unwinds.
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

sub user_addrs {
	my ($s) = @_;
	[map { $_->{addr} } grep { $_->{addr} && $_->{addr} < 0xffffffff80000000 } @{$s->{frames}}];
}

my $run = build_run(mode => MODE_STACK_COPY);
my $r = run_case($run->{bytes}, '--symfs', symfs());
my @got = map { user_addrs($_) } @{$r->{script}};
my @want = map { $_->{user} } @{$run->{expect}};
is(scalar @got, 31, 'stack-copy run: 31 samples');
is_deeply(\@got, \@want, 'libdw unwound every copy to exactly the true chain (static and dynamic, across the shared object)');
is($r->{counters}{stack_unwound}, 30, '... 30 copies unwound');
is($r->{counters}{stack_unwind_failed}, 0, '... none failed');

$run = build_run(mode => MODE_VALIDATE);
$r = run_case($run->{bytes}, '--symfs', symfs());
is_deeply([@{$r->{counters}}{qw(validate_samples validate_agree validate_disagree)}], [30, 30, 0],
	  'validate: the deferred chains and the libdw chains agree on all 30 samples');
like($r->{report}, qr/agree on 30 of 30 samples \(100\.00%\), differ on 0/, '... and report.txt says so');

# A kernel unwind that lost a frame: cookie 0x100000004 is the syscall entry
# of the second snapshot (two samples). Its deferred chain skips frame 2.
my $bad = 0x100000004;
$run = build_run(mode => MODE_VALIDATE, deferred => sub {
	my ($cookie, @chain) = @_;
	splice(@chain, 2, 1) if $cookie == $bad;
	return @chain;
});
$r = run_case($run->{bytes}, '--symfs', symfs());
is_deeply([@{$r->{counters}}{qw(validate_samples validate_agree validate_disagree validate_copy_short)}],
	  [30, 28, 2, 0], 'validate: a deferred chain missing a frame: its two samples disagree, '
	  . 'not for want of stack');
like($r->{report}, qr/agree on 28 of 30 samples \(93\.33%\), differ on 2/, '... the share is reported');
my @listed = $r->{report} =~ /^  capture pid 2 tid 2 time \d+ ns: first difference at frame (\d+)$/mg;
is_deeply(\@listed, [2, 2], '... both listed, with the frame where they part');
like($r->{report}, qr/^    sframe: fib <- fib <- run_all <- run_on_own_stack/m, '... with the SFrame chain symbolized');
like($r->{report}, qr/^    libdw:  fib <- fib <- fib <- run_all <- run_on_own_stack/m, '... and the libdw chain');

# Copies cut to their first 40 bytes: libdw's chains stop where the copy
# ends, a prefix of the deferred ones; counted and said as such.
$run = build_run(mode => MODE_VALIDATE, copy => sub {
	my ($c) = @_;
	return { %$c, stack => substr($c->{stack}, 0, 40) };
});
$r = run_case($run->{bytes}, '--symfs', symfs());
my ($n, $agree, $differ, $short) =
	@{$r->{counters}}{qw(validate_samples validate_agree validate_disagree validate_copy_short)};
ok($n == 30 && $differ > 0 && $agree + $differ == 30 && $short == $differ &&
   $r->{counters}{validate_copy_below} == 0,
   "validate with 40-byte copies: the $differ samples that differ all differ where the copy ended");
my @why = $r->{report} =~ /^  capture(?:-dyn)? pid \d+ tid \d+ time \d+ ns: first difference at frame \d+( \(the stack copy ended\))?$/mg;
ok(@why && !grep({ !defined } @why), '... and report.txt says so of each one it lists');
like($r->{report}, qr/differ on $differ \($short of them only where the stack copy ended, 0 for a word below sp\)/,
     '... and in its count');

# The samples in fib moved to its ret, where gcc's CFI still says rbx and
# rbp are saved in their slots, now below sp (psABI 3.2.2's red zone):
# the copy (from sp) does not hold them, and libdw goes on without them,
# its CFA rsp-based. The words below sp do not stop it: every chain
# agrees. With run_all's return address zeroed in those copies, libdw
# stops there, after run_all (a return address 0 ends a chain), a prefix
# of the deferred chain: not for a word below sp, nor for the copy's end.
use constant { REG_SP => 7, REG_IP => 8 }; # enum rec_reg, include/stitch/records.h
my ($fib, $fib_size) = map { /^([0-9a-f]+) ([0-9a-f]+) [tT] fib$/ ? (hex $1, hex $2) : () }
	`nm -S ${\ symfs()}/bin/capture-static`;
my ($fib_ret) = map { /^\s*([0-9a-f]+):\s+ret/ ? hex $1 : () }
	`objdump -d --no-show-raw-insn --start-address=$fib --stop-address=${\ ($fib + $fib_size)} ${\ symfs()}/bin/capture-static`;
my %chain_of = map { ($_->{stack} => $_->{chain}) } @{load_snaps(build_dir() . '/snaps-static.txt')->{snaps}};
my $in_fib = sub { $_[0] >= $fib && $_[0] < $fib + $fib_size };
sub at_fib_ret {
	my ($c, $zero_run_all) = @_;
	my $chain = $chain_of{$c->{stack}};
	return $c unless $chain && $in_fib->($chain->[0]);
	my $stack = $c->{stack};
	# The slot of fib's return address: sp at its ret.
	my ($at) = grep { substr($stack, $_, 8) eq pack('Q<', $chain->[1]) } map { $_ * 8 } 0 .. length($stack) / 8 - 1;
	return $c unless defined $at;
	if ($zero_run_all) {
		for (my $i = 0; $i + 8 <= length $stack; $i += 8) {
			substr($stack, $i, 8) = pack('Q<', 0) if substr($stack, $i, 8) eq pack('Q<', $chain->[-1]);
		}
	}
	my @regs = @{$c->{regs}};
	@regs[REG_IP, REG_SP] = ($fib_ret, $regs[REG_SP] + $at);
	return { regs => \@regs, stack => substr($stack, $at) };
}
my $ret_leaf = sub { my ($cookie, @chain) = @_; $chain[0] = $fib_ret if $in_fib->($chain[0]); @chain };
$r = run_case(build_run(mode => MODE_VALIDATE, deferred => $ret_leaf, copy => sub { at_fib_ret($_[0], 0) })->{bytes},
	      '--symfs', symfs());
is_deeply([@{$r->{counters}}{qw(validate_samples validate_agree)}], [30, 30],
	  "validate, fib's samples at its ret (0x" . sprintf('%x', $fib_ret // 0) . '), rbx and rbp below sp: '
	  . 'libdw goes on without them, all 30 agree');
$r = run_case(build_run(mode => MODE_VALIDATE, deferred => $ret_leaf, copy => sub { at_fib_ret($_[0], 1) })->{bytes},
	      '--symfs', symfs());
is_deeply([@{$r->{counters}}{qw(validate_samples validate_agree validate_disagree validate_copy_short validate_copy_below)}],
	  [30, 21, 9, 0, 0], '... with run_all\'s return address 0 there, its 9 samples differ, '
	  . 'not for the words below sp that did not stop libdw');

# Copies that cannot be unwound far.
my $d = load_snaps(build_dir() . '/snaps-static.txt');
my $s = $d->{snaps}[0];
my $m = $d->{maps}[0];
my @head = (rec_stream(mode => MODE_STACK_COPY), rec_comm(pid => 2, name => 'capture'),
	    rec_mmap(pid => 2, start => $m->{start}, len => $m->{end} - $m->{start},
		     pgoff => $m->{pgoff}, path => guest_path($m->{path})));
sub copy_sample {
	my ($stack) = @_;
	rec_sample(pid => 2, ips => [PERF_CONTEXT_USER, $s->{chain}[0]],
		   copy => { regs => $s->{regs}, stack => $stack });
}
$r = run_case(stream(@head, copy_sample(substr($s->{stack}, 0, 40)), copy_sample(''),
		     copy_sample(join '', map { chr(($_ * 37) & 255) } 0 .. 511)), '--symfs', symfs());
my @short = @{user_addrs($r->{script}[0])};
ok(@short >= 1 && @short < @{$s->{chain}}, 'a 40-byte copy: a shorter chain');
is_deeply(\@short, [@{$s->{chain}}[0 .. $#short]], '... and a true prefix of the real one');
is_deeply(user_addrs($r->{script}[1]), [$s->{chain}[0]], 'an empty copy: only the sampled ip');
is(user_addrs($r->{script}[2])->[0], $s->{chain}[0], 'a copy of garbage: the ip, and no crash');
is($r->{counters}{stack_unwind_failed} >= 1, 1, 'copies unwound no further than the ip are counted');

done_testing();
