#!/usr/bin/perl
# Test 80: hostile programs (userland/hostile/, docs/SECURITY.md) in one
# boot with the profiler on, next to normal workloads.
#
#  1. /bin/hostile's TAP: every case ended as expected (exit 0, or killed
#     with its signal), none hung, the workloads exited 0; the kernel never
#     panicked and shut down with success; no page leaked.
#  2. The kernel reported each kill with its reason and status 128 + sig;
#     no failed write printed the caller's memory.
#  3. The record stream: complete; no user callchain holds a kernel
#     address; the unwinds of each case's attacking code stopped for the
#     reason the case must produce, with no frame read from kernel memory;
#     every unwind is counted by its stop reason in REC_STATS, every
#     refused or dropped SFrame section in sframe_dropped and by reason in
#     sframe_refused_* / sframe_dropped_*, every lying signal frame in
#     sigreturn_refused / signal_frame_refused, every lost record in
#     records_lost; no NMI found SMAP open outside the access helpers.
#  4. The workloads' profiles (stitch over the same stream) are right:
#     every stack is whole and in the workloads' call order (or starts in
#     a function without SFrame, newlib's assembly).
#  5. docs/SECURITY-cases.md is the table this run produced: the test
#     fails if the checked-in file differs (HOSTILE_UPDATE=1 rewrites it).
use strict;
use warnings;
no warnings 'portable';
use FindBin;
BEGIN { chdir "$FindBin::Bin/../.." or die }
use File::Temp qw(tempdir);
use Test::More;
use JSON::XS;

my $ROOT = 'build/userland/root';
my $TABLE = 'docs/SECURITY-cases.md';
my $HZ = 2000;
use constant USER_TOP => 0x00007ffffffff000; # USER_END, kern/mm/uvm.h
my $dir = tempdir(CLEANUP => 1);

plan(skip_all => "$ROOT/bin/hostile is not built") unless -x "$ROOT/bin/hostile";

# ---- the boot ----

my $cmdline = "init=/bin/hostile profile.mode=sframe profile.hz=$HZ";
my $pid = fork() // die "fork: $!";
if ($pid == 0) {
	open(STDOUT, '>', '/dev/null');
	exec('tools/qemu-run', '--direct', '--cmdline', $cmdline, '--timeout', 1200,
	     '--serial', "$dir/console.txt", '--records', "$dir/records.bin")
		or die "tools/qemu-run: $!";
}
waitpid($pid, 0);
my $status = $? >> 8;
my $console = do { local (@ARGV, $/) = "$dir/console.txt"; <> // '' };
$console =~ s/\r//g;
my @lines = split /\n/, $console;

# ---- 1. the runner's verdicts ----

my ($plan) = map { /^1\.\.(\d+)$/ ? $1 : () } @lines;
ok(defined $plan && $plan >= 26, "the runner announced its cases (" . ($plan // 'none') . ')')
	or diag(join("\n", @lines[-30 .. -1]));
my (%case, @order, %what);
for (@lines) {
	$what{$1} = { expect => $2, text => $3 } if /^# case (\S+): expect (exit 0|signal \d+): (.*)$/;
	next unless /^(not )?ok \d+ - (.*)$/;
	my ($bad, $text) = ($1, $2);
	ok(!$bad, "guest: $text");
	next unless $text =~ /^(\S+) \(pid (\d+)\): (.*)$/;
	$case{$1} = { pid => $2, outcome => $3 };
	push @order, $1;
}
is(scalar(grep { /^(not )?ok \d+ - / } @lines), $plan // -1, 'every case reported');
is($status, 0, 'the machine shut down with success (init exited 0)');
unlike($console, qr/panic|kernel fault|Double fault|#DF/i, 'no kernel panic or kernel fault');
my ($before, $after) = $console =~ /free pages before init (\d+), after init (\d+)/;
ok(defined $after && $before == $after, 'no page leaked: ' . ($before // '?') . ' free before, '
   . ($after // '?') . ' after');

# ---- 2. kill reports ----

my %signame = (4 => 'SIGILL', 5 => 'SIGTRAP', 8 => 'SIGFPE', 9 => 'SIGKILL', 11 => 'SIGSEGV');
for my $c (@order) {
	my $e = $case{$c};
	next unless $e->{outcome} =~ /^killed by signal (\d+)$/;
	my $sig = $1;
	my $st = 128 + $sig;
	my ($reason) = $console =~ /^stitch: pid $e->{pid} \(\S+\) killed: (.*?) rip=\S+ addr=\S+ status $st$/m;
	ok(defined $reason, "$c: the kernel reports pid $e->{pid} killed, status $st");
	$e->{kill} = ($reason // '?') . " ($signame{$sig})";
}
unlike($console, qr/HOSTILE-LEAK-MARKER/, 'no failed write printed the caller\'s memory');

# ---- 3. the record stream ----

# Read by tools/recstream.py (summary: every record, addresses as hex).
my $r = eval { decode_json(`tools/recstream.py summary $dir/records.bin`) }
	// { records => [], count => 0, error => 'tools/recstream.py read nothing' };
ok(!$r->{error} && defined $r->{end} && $r->{end} == $r->{count} - 1,
   "the record stream is whole ($r->{count} records)") or diag($r->{error} // 'no REC_END');
my $st = $r->{stats} // {};
my @STOP_NAMES = @{$r->{stop_names} // []};
my @deferred = map { { %$_, ips => [map { hex } @{$_->{ips}}] } }
	grep { $_->{type} eq 'deferred' && $_->{consumer} == 0 } @{$r->{records}};
my %ppid = map { $_->{pid} => $_->{ppid} } grep { $_->{type} eq 'comm' } @{$r->{records}};

my @kernel_in_user = grep { my @i = @{$_->{ips}}; grep { $_ >= USER_TOP } @i[1 .. $#i] } @deferred;
is(scalar @kernel_in_user, 0, 'no user callchain holds a kernel address ('
   . scalar(@deferred) . ' deferred callchains)');

for my $i (0 .. $#STOP_NAMES) {
	my $name = $STOP_NAMES[$i] =~ s/-/_/gr;
	my $n = grep { $_->{stop} == $i } @deferred;
	is($st->{"unwind_stop_$name"} // -1, $n, "unwind_stop_$name counts the $n unwinds that stopped so");
}
is($st->{records_lost} // -1, $r->{lost}, "records_lost equals the REC_LOST total ($r->{lost})");
# Every NMI checks that SMAP is on outside the user-access helpers (in the
# code it interrupted and in its own flags); ac-flag sets RFLAGS.AC in
# ring 3 under a stream of NMIs.
is($st->{smap_open} // -1, 0, "no NMI found SMAP open outside the user-access helpers ("
   . ($st->{nmi_count} // 0) . ' NMIs)');

# Where each case's attacking code runs: [lo, hi) per case.
sub syms {
	my ($prog) = @_;
	my %s;
	for (`nm $ROOT/bin/$prog`) { $s{$2} = hex $1 if /^([0-9a-f]+) \S (\S+)$/ }
	return \%s;
}
my $hs = syms('h-stack');
my $sp_loop = [$hs->{spin_with_sp_loop}, $hs->{spin_with_sp_loop_end}];
my $fp_loop = [$hs->{spin_with_frame_loop}, $hs->{spin_with_frame_loop_end}];
my $plain = syms('h-sframe');
my $plain_size = $plain->{spin_plain_end} - $plain->{spin_plain};

# The stop reasons the attacking code's unwinds must give (in any mix).
my %expect = (
	'sp-kernel' => 'fault', 'sp-direct-map' => 'fault', 'sp-unmapped' => 'fault',
	'sp-noncanonical' => 'fault', 'sp-null' => 'fault', 'sp-top' => 'bad-frame',
	'sp-misaligned' => 'bad-frame', 'fp-self' => 'bad-frame', 'fp-cycle' => 'bad-frame',
	'fp-upward' => 'max-frames', 'fp-kernel' => 'fault', 'fp-misaligned' => 'bad-frame',
	'ret-kernel' => 'bad-frame', 'ret-noncanonical' => 'bad-frame', 'deep' => 'max-frames',
	'sig-rsp-below' => 'bad-frame', 'sig-rip-kernel' => 'bad-frame', 'sig-loop' => 'bad-frame',
	'sframe-good' => 'end', 'sframe-unsorted' => 'bad-sframe end',
	'sframe-fre-outside' => 'bad-sframe end', 'sframe-huge-count' => 'bad-sframe end',
	'sframe-unmapped' => 'end fault', 'sframe-rewritten' => 'end',
);
# The rewritten section: the rule cache serves the pcs it saw before the
# rewrite; a pc it had not seen reads the rewritten section: through the
# FDE index, which keeps each FDE as a lookup first read it (its old size),
# the rewritten row's CFA offset of 127 is misaligned and the step stops
# (bad-frame); past the index, the function outside its text drops the
# section (bad-sframe, sframe_dropped_invalid). Which happens depends on
# where the samples land, so each is right, as long as the drop is
# counted exactly when an unwind stopped bad-sframe (below).
# The unsorted section: the lazily filled FDE index checks a block's order
# when a lookup first lands in it, so the section is dropped (bad-sframe,
# sframe_dropped_invalid) only if a sample's lookup reaches the block out
# of order; lookups in sorted blocks answer right (end).
my %also = ('sframe-rewritten' => ['bad-sframe end', 'bad-frame end', 'bad-frame bad-sframe end'],
	    'sframe-unsorted' => ['end']);
my %stopped;
# Cases whose stack pointer or frame pointer points into the kernel: their
# unwinds may hold the interrupted ip and nothing read through that pointer.
my %ip_only = map { $_ => 1 } qw(sp-kernel sp-direct-map sp-noncanonical sp-null fp-kernel);

sub region {
	my ($c) = @_;
	return $sp_loop if $c =~ /^sp-/;
	return $fp_loop if $c =~ /^(fp|ret|sig)-/;
	return [$hs->{deep_bottom}, $hs->{deep_bottom} + 64] if $c eq 'deep';
	if ($c =~ /^sframe-/ && $console =~ /^# \Q$c\E: spinning \d+ ms in the copy at (0x[0-9a-f]+)$/m) {
		return [hex $1, hex($1) + $plain_size];
	}
	return undef;
}

for my $c (sort keys %expect) {
	my $e = $case{$c} or next;
	my $reg = region($c);
	my @mine = grep { $_->{pid} == $e->{pid} && $reg && $_->{ips}[1] >= $reg->[0]
			  && $_->{ips}[1] < $reg->[1] } @deferred;
	my %why = map { $STOP_NAMES[$_->{stop}] => 1 } @mine;
	my $seen = join(' ', sort keys %why);
	my $frames = 0;
	for (@mine) { $frames = @{$_->{ips}} - 1 if @{$_->{ips}} - 1 > $frames }
	my $want = (grep { $_ eq $seen } @{$also{$c} // []}) ? $seen : $expect{$c};
	is($seen, $want, "$c: " . scalar(@mine) . " unwinds of the attacking code stopped with: $want");
	$stopped{$c} = $seen;
	ok($frames <= 1, "$c: no frame beyond the interrupted ip (none read through the pointer)")
		if $ip_only{$c};
	$e->{unwinds} = @mine ? "$seen; at most $frames frame" . ($frames == 1 ? '' : 's') : 'no sample';
	# Either outcome of such a case gives the same line in the table.
	$e->{unwinds} = join(', or ', $expect{$c}, @{$also{$c}}) if $also{$c} && @mine;
}

# Children of die-pending: some died with their unwind still owed. The
# kernel finishes it in task_exit while the stack is there: every unwind
# of theirs has the user pc at least, none ended task-exited.
if (my $e = $case{'die-pending'}) {
	my @kids = grep { ($ppid{$_} // 0) == $e->{pid} } keys %ppid;
	my %kid = map { $_ => 1 } @kids;
	my @theirs = grep { $kid{$_->{pid}} } @deferred;
	my $exited = grep { $STOP_NAMES[$_->{stop}] eq 'task-exited' } @theirs;
	my $empty = grep { @{$_->{ips}} < 2 } @theirs;
	ok(@theirs && !$exited && !$empty, "die-pending: all " . scalar(@theirs) . " unwinds of its "
	   . scalar(@kids) . " children have a user stack ($exited task-exited, $empty empty)");
	$e->{unwinds} = $exited || $empty ? "children: $exited task-exited" : 'children: every one with its stack';
}

# Every SFrame section the cases had refused or dropped is counted, by
# reason: what each case does (the comments in h-sframe.c, t-badptr.c).
my %dropped = (
	'badptr' => { refused_range => 12 },
	'sframe-registration' => { refused_range => 6, refused_length => 2, refused_header => 4,
				   refused_overlap => 3, refused_full => 1 },
	'sframe-unsorted' => { dropped_invalid => ($stopped{'sframe-unsorted'} // '') =~ /bad-sframe/ ? 1 : 0 },
	'sframe-fre-outside' => { dropped_invalid => 1 },
	'sframe-huge-count' => { dropped_invalid => 1 }, 'sframe-unmapped' => { dropped_fault => 1 },
	'sframe-rewritten' => { dropped_invalid => ($stopped{'sframe-rewritten'} // '') =~ /bad-sframe/ ? 1 : 0 },
);
my (%want, $total);
for my $c (grep { $case{$_} } keys %dropped) {
	$want{$_} += $dropped{$c}{$_}, $total += $dropped{$c}{$_} for keys %{$dropped{$c}};
}
for my $why (qw(refused_range refused_length refused_header refused_overlap refused_full
		dropped_invalid dropped_fault)) {
	is($st->{"sframe_$why"} // -1, $want{$why} // 0, "sframe_$why counts " . ($want{$why} // 0));
}
is($st->{sframe_dropped} // -1, $total, "sframe_dropped counts the $total sections refused or dropped");

# Every lying signal frame is counted: the frames sigreturn would not take
# back (sigreturn-iopl's is taken, its IOPL left out), and the stacks
# that could not take a frame for a caught signal (h-signal.c).
my %sigcounted = (
	sigreturn_refused => [qw(sigreturn-rip-kernel sigreturn-rip-noncanonical sigreturn-rsp-kernel
				 sigreturn-unmapped sigreturn-in-kernel sigreturn-mxcsr
				 handler-corrupts-frame)],
	signal_frame_refused => [qw(signal-stack-unmapped signal-stack-kernel signal-stack-wraps)],
);
for my $c (sort keys %sigcounted) {
	my $n = grep { $case{$_} } @{$sigcounted{$c}};
	is($st->{$c} // -1, $n, "$c counts the $n cases");
}

# ---- 4. the workloads' profiles ----

my $out = "$dir/stitch";
system("build/bin/stitch --symfs $ROOT --kernel build/kernel/kernel.elf -o $out $dir/records.bin >/dev/null");
my $folded = do { local (@ARGV, $/) = "$out/profile.folded"; <> // '' };
my %wl = (fib => 0, chain => 0, sort => 0);
my (%bad, %leaf);
# The functions of a program that have no SFrame FDE (newlib's assembly:
# memset, memcpy, ...; docs/USERLAND.md): an unwind that starts in one of
# them cannot go on, so a stack may stop there.
sub no_fde {
	my ($prog) = @_;
	my %at;
	for (`nm --defined-only $ROOT/bin/$prog`) { $at{hex $1} = $2 if /^([0-9a-f]+) [tT] (\S+)$/ }
	my %none;
	for (`build/bin/sframe lookup $ROOT/bin/$prog @{[map { sprintf '0x%x', $_ } sort keys %at]} 2>&1`) {
		$none{$at{hex $1}} = 1 if /^0x([0-9a-f]+): no FDE/ && $at{hex $1};
	}
	return \%none;
}
my %nofde = map { $_ => no_fde($_) } keys %wl;
for (split /\n/, $folded) {
	my ($stack, $n) = /^(.*) (\d+)$/ or next;
	my ($comm, @frames) = split /;/, $stack;
	next unless exists $wl{$comm};
	@frames = grep { !/_\[k\]$/ } @frames;
	$wl{$comm} += $n;
	next unless @frames;
	my $user = join ';', @frames;
	my $ok = ($user =~ /^_start(;stitch_start(;(main|exit)(;.*)?)?)?$/ || $nofde{$comm}{$frames[0]})
		 && $user !~ /\[unknown\]|missing/;
	$ok &&= $user =~ /^_start;stitch_start;main;fib_rounds(;fib_recursive)+$/ if $user =~ /fib_recursive/;
	$ok &&= $user =~ /^_start;stitch_start;main;sort_rounds;qsort(;.*)?$/ if $user =~ /compare_keys/;
	if ($user =~ /chain_\d/) {
		my @k = $user =~ /chain_(\d+)/g;
		$ok &&= $user =~ /^_start;stitch_start;main;chain_run;chain_1(;|$)/
			&& !grep { $k[$_] != $_ + 1 } 0 .. $#k;
	}
	$bad{$comm} .= "  $stack $n\n" unless $ok;
	$leaf{$comm} += $n if $frames[-1] =~ /^(fib_recursive|chain_\d+|chain_leaf|compare_keys|qsort)$/;
}
for my $w (sort keys %wl) {
	ok($wl{$w} > 50 && !$bad{$w}, "$w: $wl{$w} samples, every user stack whole and in call order")
		or diag($bad{$w} // 'too few samples');
	ok(($leaf{$w} // 0) * 2 > $wl{$w}, "$w: most samples in its hot functions ("
	   . ($leaf{$w} // 0) . " of $wl{$w})");
}
my ($missing) = do { local (@ARGV, $/) = "$out/report.txt"; <> // '' } =~ /samples_missing\s+(\d+)/;
is($missing // -1, 0, 'no sample is missing its user stack');

# ---- 5. the table ----

sub expected_text {
	my ($c) = @_;
	my $x = $what{$c}{expect} // '?';
	return $x =~ /^signal (\d+)$/ ? "killed ($signame{$1})" : $x;
}
my $table = <<'EOF';
<!-- Generated by test/t/80-hostile.t from the boot it runs; do not edit.
     After an intended change: HOSTILE_UPDATE=1 prove test/t/80-hostile.t -->
# Hostile programs: what each case did and what happened

One boot of `init=/bin/hostile profile.mode=sframe profile.hz=2000`
(docs/SECURITY.md): the cases run one after the other, each under a
watchdog, while `/bin/fib`, `/bin/chain` and `/bin/sort` run next to them.
"Outcome" is how the process ended (with the kernel's kill report);
"unwinds" are the stop reasons of the deferred unwinds of samples taken in
the attacking code, and the longest user chain among them.

| # | case | what the program does | expected | outcome | unwinds |
| --- | --- | --- | --- | --- | --- |
EOF
my $k = 0;
for my $c (@order) {
	my $e = $case{$c};
	my $outcome = $e->{kill} ? "killed: $e->{kill}" : $e->{outcome};
	$table .= sprintf "| %d | `%s` | %s | %s | %s | %s |\n", ++$k, $c, $what{$c}{text} // '',
		expected_text($c), $outcome, $e->{unwinds} // '-';
}
$table .= "\nThe workloads next to them exited 0, their stacks whole and in call order: "
	. join(', ', map { "`/bin/$_`" } sort keys %wl) . ".\n";
if ($ENV{HOSTILE_UPDATE}) {
	open(my $f, '>', $TABLE) or die "$TABLE: $!";
	print $f $table;
	close $f;
}
my $checked = do { local (@ARGV, $/) = $TABLE; <> // '' };
is($checked, $table, "$TABLE is the table this run produced") or do {
	open(my $f, '>', "$dir/table.md");
	print $f $table;
	close $f;
	diag(`diff $TABLE $dir/table.md`);
};

diag("counters: " . join(' ', map { "$_=$st->{$_}" } grep { /unwind_stop|sframe_|records_lost|samples/ } sort keys %$st));
done_testing();
