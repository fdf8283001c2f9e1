#!/usr/bin/perl
# The files of `stitch -o`: profile.folded (the line patterns flamegraph.pl
# and speedscope parse), report.txt (top functions per process, counters)
# and records.bin (the raw stream, enough to redo the run).
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

my $run = build_run();
my $r = run_case($run->{bytes}, '--symfs', symfs());
my $dir = "$r->{dir}/out";
ok(-s "$dir/$_", "$_ written") for qw(report.txt profile.folded flame.svg perf.data records.bin
				       profile.speedscope.json);
# stitch --help's -o line names every file -o wrote, and nothing else.
opendir(my $dh, $dir) or die "$dir: $!";
my @written = sort grep { !/^\./ } readdir $dh;
my ($o_help) = `${\ stitch()} --help 2>&1` =~ /^  -o DIR +(.*?)\n  -/ms;
my @named = sort(($o_help // '') =~ /([\w.]+\.(?:txt|folded|svg|json|data|bin))\b/g);
is_deeply(\@named, \@written, "stitch --help's -o line names the files -o writes (@written)");

# Folded: both parsers' patterns, and exactly stitch's stacks.
my @lines = split /\n/, $r->{folded};
is(scalar(grep { !/^(.*)\s+?(\d+(?:\.\d*)?)$/ } @lines), 0, 'every folded line matches flamegraph.pl\'s pattern');
is(scalar(grep { !/^(.*) (\d+)$/ } @lines), 0, '... and speedscope\'s');
# The listing has every sample; the folded stacks leave out the idle one
# (pid 0 with sched_idle_loop on its kernel chain), as the flame graph and
# speedscope do without --idle.
sub is_idle_sample {
	my ($s) = @_;
	return $s->{pid} == 0 && grep { $_->{name} eq 'sched_idle_loop' } @{$s->{frames}};
}
is(scalar(grep { is_idle_sample($_) } @{$r->{script}}), 1, 'the listing shows the idle sample');
my %want;
for my $s (grep { !is_idle_sample($_) } @{$r->{script}}) {
	my @f = map { $_->{name} . ($_->{addr} && $_->{addr} >= 0xffffffff80000000 ? '_[k]' : '') }
		reverse @{$s->{frames}};
	$want{join ';', $s->{comm}, @f}++;
}
is_deeply(folded_of($r->{folded}), \%want,
	  'one line per distinct stack: comm;root;...;leaf with _[k] on kernel frames, counts summed');
my $sum = 0;
$sum += $_ for values %{folded_of($r->{folded})};
is($sum, 30, '... the counts add up to the 31 samples less the idle one');

# profile.speedscope.json: valid against speedscope's published schema,
# and holding the same stacks.
SKIP: {
	skip 'python3-jsonschema is not installed', 3 unless !system('python3 -c "import jsonschema" 2>/dev/null');
	my $py = <<'PY';
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
doc = json.load(open(sys.argv[2]))
jsonschema.validate(doc, schema)
print("valid")
frames = doc["shared"]["frames"]
for p in doc["profiles"]:
    comm = p["name"].rsplit(" (pid ", 1)[0]
    assert len(p["samples"]) == len(p["weights"])
    for stack in p["samples"]:
        print(";".join([comm] + [frames[i]["name"] for i in stack]))
PY
	my $json = "$dir/profile.speedscope.json";
	my @out = `python3 -c '$py' test/stitch/speedscope-schema.json $json 2>&1`;
	is(shift(@out), "valid\n", 'profile.speedscope.json validates against speedscope\'s schema') or diag(@out);
	my %stacks;
	chomp, $stacks{$_}++ for @out;
	is_deeply(\%stacks, folded_of($r->{folded}), '... and holds the same stacks as profile.folded');
	(my $bad = read_file($json)) =~ s/"unit":"nanoseconds"/"unit":"parsecs"/;
	write_file("$dir/bad.json", $bad);
	isnt(system("python3 -c '$py' test/stitch/speedscope-schema.json $dir/bad.json >/dev/null 2>&1"), 0,
	     '... (the check rejects a unit the schema does not know)');
}

# report.txt
my $rep = $r->{report};
like($rep, qr/^# 31 samples: 30 with a deferred user stack, 30 stitched, 0 missing it; 20 deferred records/m,
     'report: summary line with the stitching counts');
like($rep, qr/^# 1 idle samples \(pid 0 in the kernel's idle loop\) left out of the processes below; stitch --idle keeps them$/m,
     'report: one line counts the idle samples left out');
like($rep, qr/^== capture \(pid 2\): 15 samples, 50\.00% of all/m, 'report: a section per process, shares of the samples shown');
unlike($rep, qr/^== idle \(pid 0\)/m, '... none for the idle task');
my ($cap) = $rep =~ /^== capture \(pid 2\)(.*?)^== capture-dyn/ms;
my ($self) = $cap =~ /By self:\n.*?\n(.*?)\n\n/s;
my @self = map { [split ' '] } split /\n/, $self;
is_deeply([map { "$_->[0] $_->[2] $_->[3]" } @self[0 .. 4]],
	  ['33.33% [k] copy_to_user', '33.33% [k] nmi_handler', '20.00% [.] fib',
	   '6.67% [.] checksum', '6.67% [.] compare_leaf'],
	  'report: top functions by self, kernel [k] and user [.], shares of the process');
my ($total) = $cap =~ /By total.*?\n.*?\n(.*?)\n\n/s;
my %total = map { my @f = split ' '; ($f[3] => $f[0]) } split /\n/, $total;
is_deeply([@total{qw(run_on_own_stack run_all fib do_nmi parse)}], ['100.00%', '100.00%', '60.00%', '33.33%', '20.00%'],
	  'report: by total, each function counted once per sample (fib recursion included)');
like($rep, qr/\[\.\]\s+fib\s+\/bin\/capture-static\s+work\.c/, 'report: object and source file of a function');
is($r->{counters}{nmi_count}, 31, 'report: the run\'s REC_STATS counters at the end');
is($r->{counters}{samples_stitched}, 30, 'report: and stitch\'s own counters');

# perf report's --max-stack in the printed command: at least the longest
# chain stitch shows (frames and the two context markers), so that perf
# does not stop at its default of 127; here with user stacks of 300 frames.
{
	my $deep = run_case(build_run(deferred => sub { shift; (@_) x (300 / @_ + 1) })->{bytes},
			    '--symfs', symfs());
	my ($maxstack) = $deep->{summary} =~ /^perf report .* --max-stack (\d+)/m;
	my $deepest = 0;
	for my $s (@{$deep->{script}}) {
		my $n = @{$s->{frames}} + 2;
		$deepest = $n if $n > $deepest;
	}
	cmp_ok($deepest, '>', 300, "deep stacks: the deepest chain has $deepest entries");
	ok(defined $maxstack && $maxstack >= $deepest,
	   "... the perf command passes --max-stack " . ($maxstack // 'none') . " (at least that)");
}

# User parts cut at the frame bound (REC_DEFERRED stop max-frames): the
# outermost frame shown is not the program's, and the folded stacks (so the
# flame graph) say so with a frame of their own right after the command.
{
	my $cut = run_case(build_run(stop => 1, deferred => sub { shift; @_[0 .. 1] })->{bytes},
			   '--symfs', symfs());
	my $folded = folded_of($cut->{folded});
	my ($marked, $unmarked) = (0, 0);
	for my $stack (keys %$folded) {
		my @f = split /;/, $stack;
		if (@f > 1 && $f[1] eq '[cut at the frame bound]') {
			$marked += $folded->{$stack};
		} elsif ($f[0] ne 'idle') {
			$unmarked += $folded->{$stack};
		}
	}
	is($marked, 30, 'cut user stacks: all 30 deferred samples sit under "[cut at the frame bound]"');
	is($unmarked, 0, '... and no user stack without it');
	my $whole = folded_of($r->{folded});
	ok(!grep({ /\[cut at the frame bound\]/ } keys %$whole), '... which whole stacks never carry');
}

# --records-json: every record as the stream carried it, for programs (the
# kernel-boot tests read their streams this way).
{
	use JSON::PP;
	my ($st, $json) = run_stitch('--records-json', '-', "$r->{dir}/records.bin");
	my $d = eval { decode_json($json) } // {};
	is($st, 0, '--records-json: exit status 0');
	is_deeply($d->{stream}, { version => 1, ncpus => 2, tsc_hz => $d->{stream}{tsc_hz}, mode => 1,
				  mode_name => 'sframe', sample_hz => 1000, max_frames => 64 },
		  '... the stream parameters');
	my %n;
	$n{$_->{type}}++ for @{$d->{records} // []};
	is_deeply([@n{qw(comm sample deferred exit stats end)}], [3, 31, 20, 2, 1, 1],
		  '... every record: 3 comm, 31 sample, 20 deferred, 2 exit, stats, end');
	my @s = grep { $_->{type} eq 'sample' } @{$d->{records}};
	is_deeply([map { $_->{pid} } @s], [map { $_->{pid} } @{$run->{expect}}], '... samples in order, by pid');
	# The kernel part: after PERF_CONTEXT_KERNEL, up to the next context marker.
	sub kernel_part {
		my @k;
		my $in = 0;
		for my $v (map { hex } @_) {
			last if $in && $v >= 0xfffffffffffff000;
			push @k, $v if $in;
			$in ||= $v == 0xffffffffffffff80;
		}
		return \@k;
	}
	my @kernel = map { kernel_part(@{$_->{ips}}) } @s;
	is_deeply(\@kernel, [map { $_->{kernel} } @{$run->{expect}}],
		  '... each with its kernel chain (addresses as hex strings, all 64 bits)');
	my %user = map { join(',', @{$_->{user}}) => 1 } grep { @{$_->{user}} } @{$run->{expect}};
	my @d = grep { $_->{type} eq 'deferred' } @{$d->{records}};
	ok(!grep({ my @i = map { hex } @{$_->{ips}}; shift(@i) != 0xfffffffffffffe00
		   || !$user{join(',', @i)} || $_->{stop_name} ne 'end' } @d),
	   '... deferred records: PERF_CONTEXT_USER, then one of the user chains, stop "end"');
	is_deeply($d->{stop_names}, [qw(end max-frames fault no-info bad-sframe bad-frame task-exited signal-frame
					   budget killed)],
		  '... and the stop reasons by number');
	write_file("$r->{dir}/cut.bin", substr($run->{bytes}, 0, length($run->{bytes}) - 12));
	($st, $json) = run_stitch('--records-json', '-', "$r->{dir}/cut.bin");
	my $cut = eval { decode_json($json) } // {};
	ok(!$cut->{ended} && $cut->{stitch}{truncated} == 1 && $cut->{stitch}{missing_end} == 1,
	   '... a cut stream: not ended, one truncated record, REC_END missing');
}

# Idle samples: pid 0 with sched_idle_loop on the kernel chain (the NMI in
# the idle loop itself, or in an interrupt it took) are left out of
# report.txt's processes, the folded stacks, the flame graph and
# speedscope, and counted on one line; --idle keeps them; perf.data always
# has them. A pid 0 sample elsewhere in the kernel (the boot thread's
# work) and a process's sample are never idle, whatever their chain.
{
	my $ks = symbols(kernel_elf());
	my @idle = (PERF_CONTEXT_KERNEL, $ks->{sched_idle_loop} + 2, $ks->{kernel_main} + 9);
	my @irq = (PERF_CONTEXT_KERNEL, $ks->{nmi_handler} + 1, $ks->{do_nmi} + 5,
		   $ks->{sched_idle_loop} + 2, $ks->{kernel_main} + 9);
	my @boot = (PERF_CONTEXT_KERNEL, $ks->{copy_to_user} + 1, $ks->{kernel_main} + 9);
	my $bytes = stream(rec_stream(ncpus => 4),
		rec_mmap(pid => 0, start => $ks->{nmi_handler}, len => $ks->{kernel_main} + 0x40 - $ks->{nmi_handler},
			 flags => MMAP_KERNEL, path => '/boot/kernel.elf'),
		rec_comm(time => 1, pid => 5, name => 'busy'),
		(map { rec_sample(time => 10 + $_, cpu => 1 + $_ % 3, pid => 0, ips => [@idle]) } 0 .. 5),
		rec_sample(time => 20, cpu => 2, pid => 0, ips => [@irq]),
		rec_sample(time => 21, cpu => 0, pid => 0, ips => [@boot]),
		rec_sample(time => 22, cpu => 0, pid => 5, ips => [@idle]),
		rec_sample(time => 23, cpu => 0, pid => 5, ips => [@boot]));
	my $i = run_case($bytes, '--symfs', symfs());
	my $f = folded_of($i->{folded});
	is($i->{counters}{samples_idle}, 7, 'idle: 7 of 10 samples are idle (6 halted, 1 in an interrupt taken in the idle loop)');
	is_deeply($f, { 'kernel;kernel_main_[k];copy_to_user_[k]' => 1,
			'busy;kernel_main_[k];sched_idle_loop_[k]' => 1,
			'busy;kernel_main_[k];copy_to_user_[k]' => 1 },
		  '... the folded stacks leave them out; pid 0 elsewhere and a process in that function stay');
	like($i->{summary}, qr/^stitch: 7 idle samples \(pid 0 in the kernel's idle loop\) left out of report\.txt's processes, profile\.folded, flame\.svg and speedscope; --idle keeps them/m,
	     '... stitch -o says on one line how many it left out');
	like($i->{report}, qr/^# 7 idle samples .* left out/m, '... and so does report.txt');
	like($i->{report}, qr/^== busy \(pid 5\): 2 samples, 66\.67% of all/m, '... whose shares are of the 3 samples shown');
	like($i->{report}, qr/^== kernel \(pid 0\): 1 samples, 33\.33% of all/m, '... pid 0 keeps its one sample outside the idle loop');
	my $svg = read_file("$i->{dir}/out/flame.svg");
	like($svg, qr/Stitch profile: 3 samples \(7 idle left out\)/, '... the flame graph has 3 samples and says 7 were left out');
	my @titles = $svg =~ /<title>([^<]*)<\/title>/g;
	is_deeply([grep { /^(kernel|busy|all) / } @titles],
		  ['all (3 samples, 100.00%)', 'busy (2 samples, 66.67%)', 'kernel (1 samples, 33.33%)'],
		  '... in which pid 0 has a third of the width');
	my $ss = read_file("$i->{dir}/out/profile.speedscope.json");
	my @weights = $ss =~ /"name":"kernel \(pid 0\)".*?"weights":\[([\d,]*)\]/s;
	is(scalar(split /,/, $weights[0] // ''), 1, '... speedscope: pid 0 has its one sample');
	is_deeply([run_stitch('--symfs', symfs(), '--stats', '-', "$i->{dir}/records.bin")]->[0], 0, '... (--stats runs)');
	# perf.data: the raw data, every sample.
	SKIP: {
		skip 'perf is not installed', 1 unless `which perf 2>/dev/null`;
		my $n = () = `perf script -i $i->{dir}/out/perf.data -F pid 2>/dev/null` =~ /^\s*\d+\s*$/mg;
		is($n, 10, '... perf.data holds all 10 samples');
	}

	my $k = run_case($bytes, '--symfs', symfs(), '--idle');
	my $kf = folded_of($k->{folded});
	is($kf->{'kernel;kernel_main_[k];sched_idle_loop_[k]'}, 6, '--idle: the idle samples are back in the folded stacks');
	is($kf->{'kernel;kernel_main_[k];sched_idle_loop_[k];do_nmi_[k];nmi_handler_[k]'}, 1, '... with the interrupt taken while idle');
	like($k->{report}, qr/^== kernel \(pid 0\): 8 samples, 80\.00% of all/m, '... and in report.txt');
	ok($k->{summary} !~ /idle samples/ && $k->{report} !~ /^# \d+ idle samples/m, '... with no line about idle samples left out');
	like(read_file("$k->{dir}/out/flame.svg"), qr/Stitch profile: 10 samples</, '... the flame graph has all 10');
	is($k->{counters}{samples_idle}, 7, '... the counter still counts them');

	# Without the kernel's symbols no frame is named sched_idle_loop:
	# nothing is taken for idle.
	my $n = run_case($bytes);
	is($n->{counters}{samples_idle}, 0, 'no kernel symbols: no sample is idle');
	my $sum = 0;
	$sum += $_ for values %{folded_of($n->{folded})};
	is($sum, 10, '... and all 10 are in the folded stacks');
}

# records.bin: a copy that redoes the run.
is(read_file("$dir/records.bin"), $run->{bytes}, 'records.bin is the input stream, byte for byte');
my (undef, $again) = run_stitch('--symfs', symfs(), "$dir/records.bin");
is($again, $r->{text}, 'stitch on records.bin gives the same stitched samples');
my ($st, $out) = run_stitch('--symfs', symfs(), '-o', $dir, "$dir/records.bin");
is($st, 0, 'stitch -o into the directory its input lives in');
is(read_file("$dir/records.bin"), $run->{bytes}, '... leaves records.bin intact');

done_testing();
