#!/usr/bin/perl
# The stack map (profile.consumer=, kern/profile/stackmap.c) against the
# record stream of the same run: with both consumers on, every sample
# goes to each, and stitch's aggregation of the streamed samples (stitch
# --from stream) must equal the map's counts (stitch --from map), folded
# stack by folded stack, idle samples included:
#
#   one      /bin/demo on 1 CPU at 4 kHz, under -icount;
#   four     /bin/demo on 4 CPUs at 2 kHz with forced migrations and a
#            read-out every 20 ms (many REC_MAP_COUNTS, summed by stitch;
#            not under -icount, whose one thread would run the 4 CPUs in
#            turn: the two consumers see the same samples either way);
#   small    /bin/demo with tables of 6 stacks and 40 keys: every folded
#            stack counts at most what the stream has, and the stream's
#            total less the map's is exactly what the map counted dropped;
#   hostile  /bin/hostile (test 80's suite), its cases that attack the
#            unwinder or end tasks (bad stacks and frames, signal frames,
#            bad SFrame sections, 90 children dying with unwinds owed,
#            thread and spawn storms): no panic, no page leaked, it shuts
#            down, and the map agrees with the stream.
#
# In each, the map accounts for every sample: map_samples (= the stream's
# samples) is the sum of map_whole, map_user_*, map_kernel_only and
# map_dropped_*, and the counts in its records add up to all but the
# dropped. A bad profile.consumer= value, or the map in a mode without
# deferred unwinds, is a console line and the stream alone.
use strict;
use warnings;
no warnings 'portable';
use FindBin;
BEGIN { chdir "$FindBin::Bin/../.." or die }
use File::Temp qw(tempdir);
use JSON::PP;
use Test::More;

-x $_ or BAIL_OUT("$_ is missing: run make") for 'build/bin/stitch', 'tools/qemu-run';
-f $_ or BAIL_OUT("$_ is missing: run make") for 'build/kernel/kernel.elf', 'build/initrd.cpio';

my $dir = tempdir('stackmap-XXXXXX', TMPDIR => 1, CLEANUP => 1);
my $DEMO = 'init=/bin/demo profile.mode=sframe profile.consumer=both';
# test 80's cases that attack the unwinder or end tasks with unwinds
# owed (41 of them: the whole suite takes four times as long).
my @HOSTILE = qw(sp- fp- ret- deep sig sframe- stack-overflow die-pending thread-fault
		 thread-exit-storm spawn-storm);
my %boot = (
	one => { cpus => 1, icount => 1, cmdline => "$DEMO profile.hz=4000" },
	four => { cpus => 4, icount => 0, cmdline => "$DEMO profile.hz=2000 sched.migrate profile.map_period=20" },
	small => { cpus => 1, icount => 1, cmdline => "$DEMO profile.hz=1000 profile.map_stacks=6 profile.map_keys=40" },
	hostile => { cpus => 1, icount => 0,
		     cmdline => 'init=/bin/hostile init.args=' . join(',', @HOSTILE)
				. ' profile.mode=sframe profile.hz=2000 profile.consumer=both' },
	bogus => { cpus => 1, icount => 1,
		   cmdline => 'init=/bin/fib init.args=30,1 profile.hz=2000 profile.consumer=bogus' },
	fp => { cpus => 1, icount => 1,
		cmdline => 'init=/bin/fib init.args=30,1 profile.mode=fp profile.hz=2000 profile.consumer=map' },
);

# All boots at once: each has its own directory, and the longest one
# (hostile) sets the test's time.
for my $name (sort keys %boot) {
	my $b = $boot{$name};
	$b->{dir} = "$dir/$name";
	mkdir $b->{dir} or die;
	my @icount = $b->{icount} ? ('--icount') : ();
	$b->{pid} = fork() // die "fork: $!";
	if (!$b->{pid}) {
		open(STDOUT, '>', "$b->{dir}/console.txt");
		open(STDERR, '>&', \*STDOUT);
		exec('tools/qemu-run', '--direct', @icount, '--cpus', $b->{cpus}, '--timeout', 600,
		     '--records', "$b->{dir}/records.bin", '--cmdline', $b->{cmdline})
			or die "tools/qemu-run: $!";
	}
}
for my $b (values %boot) {
	waitpid($b->{pid}, 0);
	$b->{status} = $? >> 8;
}

sub slurp { my ($p) = @_; open(my $f, '<:raw', $p) or return ''; local $/; scalar <$f> }

# stitch's folded stacks of one boot from one source: { stack => count },
# and its summary line.
sub folded {
	my ($b, $from) = @_;
	my $out = "$b->{dir}/$from";
	my $summary = `build/bin/stitch --symfs build/userland/root --kernel build/kernel/kernel.elf --idle --from $from -o $out $b->{dir}/records.bin 2>&1`;
	my $status = $? >> 8;
	my %f;
	for (split /\n/, slurp("$out/profile.folded")) {
		/^(.*) (\d+)$/ or next;
		$f{$1} += $2;
	}
	return (\%f, $status, $summary);
}

sub records {
	my ($b) = @_;
	system("build/bin/stitch --records-json $b->{dir}/records.json $b->{dir}/records.bin");
	my $j = decode_json(slurp("$b->{dir}/records.json") || '{"records":[]}');
	my ($stats) = map { $_->{stats} } grep { $_->{type} eq 'stats' } @{$j->{records}};
	return ($j->{records}, $stats // {});
}

my @WHERE = qw(map_whole map_user_stopped map_user_exit map_user_refused map_user_unanswered
	       map_kernel_only);
my @DROPPED = qw(map_dropped_kstacks map_dropped_ustacks map_dropped_keys map_dropped_pending);

sub sum { my $s = 0; $s += $_ for @_; $s }

for my $name (qw(one four small hostile)) {
	my $b = $boot{$name};
	my $console = slurp("$b->{dir}/console.txt");
	is($b->{status}, 0, "$name: the boot shuts down with success") or diag(substr($console, -2000));
	unlike($console, qr/panic|kernel fault|Double fault/i, "$name: no panic");
	my ($before, $after) = $console =~ /free pages before init (\d+), after init (\d+)/;
	ok(defined $after && $before == $after, "$name: no page leaked ($before, $after)");

	my ($recs, $st) = records($b);
	is($st->{map_samples}, $st->{samples} + $st->{samples_lost},
	   "$name: the map took every sample the stream did ($st->{map_samples})");
	is($st->{samples_lost}, 0, "$name: the stream lost none");
	my $dropped = sum(map { $st->{$_} } @DROPPED);
	is(sum(map { $st->{$_} } @WHERE) + $dropped, $st->{map_samples},
	   "$name: every sample accounted: " . join(' ', map { "$_=$st->{$_}" } @WHERE, @DROPPED));
	my @counts = map { @{$_->{counts}} } grep { $_->{type} eq 'map_counts' } @$recs;
	is(sum(map { $_->{count} } @counts), $st->{map_samples} - $dropped,
	   "$name: the counts read out add up to the samples not dropped");
	my (%seen, $twice);
	$twice += $seen{"$_->{kind}:$_->{id}"}++ for grep { $_->{type} eq 'map_stack' } @$recs;
	ok(!$twice, "$name: each stack written once (" . scalar(keys %seen) . ')');
	$b->{records} = $recs;
	$b->{stats} = $st;

	my ($s, $ss, $ssum) = folded($b, 'stream');
	my ($m, $ms, $msum) = folded($b, 'map');
	is("$ss $ms", '0 0', "$name: stitch reads both") or diag("$ssum$msum");
	my $stream_total = sum(values %$s);
	is($stream_total, $st->{samples}, "$name: stitch's stream profile has every sample");
	if ($name eq 'small') {
		ok($dropped > 0, "$name: the small tables dropped samples ($dropped)");
		my @over = grep { ($m->{$_} // 0) > ($s->{$_} // 0) } keys %$m;
		is_deeply(\@over, [], "$name: no folded stack counts more in the map than in the stream");
		is($stream_total - sum(values %$m), $dropped,
		   "$name: the stream's samples less the map's are what the map dropped");
		next;
	}
	is($dropped, 0, "$name: nothing dropped");
	my @diff = grep { ($s->{$_} // 0) != ($m->{$_} // 0) } sort(keys %{{ %$s, %$m }});
	is(scalar(@diff), 0, "$name: the map's counts equal the stream's, " . scalar(keys %$s)
	   . " folded stacks") or diag(join "\n", map { "$_: stream " . ($s->{$_} // 0)
							 . ", map " . ($m->{$_} // 0) } @diff[0 .. ($#diff < 5 ? $#diff : 5)]);
	my ($sl) = $ssum =~ /^(stitch: \d+ samples.*?);/m;
	my ($ml) = $msum =~ /^(stitch: \d+ samples.*?);/m;
	is($ml, $sl, "$name: the same samples stitched and missing: " . ($sl // '?'));
	$b->{folded} = $s;
}

# What the boots had to show.
ok(grep({ $_->{type} eq 'map_counts' } @{$boot{four}{records}}) > 3,
   'four: the periodic read-out wrote counts during the run');
ok($boot{four}{stats}{sched_forced_migrations} > 0,
   "four: tasks migrated ($boot{four}{stats}{sched_forced_migrations})");
# A sample in exit() whose user stack the exit itself unwound: user frames
# (not [k]) above the kernel's sys_exit.
my @owed = grep { /^[^;]+;(?:(?!_\[k\]).)+;syscall_entry_\[k\];.*sys_exit_\[k\]/ } keys %{$boot{hostile}{folded} // {}};
ok(@owed, 'hostile: samples of exits while their unwind was owed, counted alike: ' . scalar(@owed) . ' stacks');
ok($boot{hostile}{stats}{map_user_exit} + $boot{hostile}{stats}{map_user_refused} > 0,
   'hostile: samples whose user half the exit took away');

for my $name (qw(bogus fp)) {
	my $b = $boot{$name};
	my $console = slurp("$b->{dir}/console.txt");
	is($b->{status}, 0, "$name: the boot shuts down with success");
	like($console, $name eq 'bogus' ? qr/unknown profile\.consumer=bogus \(stream map both\); using stream/
					: qr/profile\.consumer=map needs a deferred mode .*not fp; using stream/,
	     "$name: the console says what is wrong and what it does");
	my ($recs, $st) = records($b);
	ok($st->{samples} > 20 && !$st->{map_samples} && !grep({ $_->{type} =~ /^map_/ } @$recs),
	   "$name: the stream has the samples ($st->{samples}), there is no map");
}

done_testing();
