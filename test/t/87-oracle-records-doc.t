#!/usr/bin/perl
# The raw stream's framing and fields against their documented layout: a
# real boot's stream read by test/oracle/DocRecords.pm, a reader written
# from docs/RECORDS.md alone, must break no rule of the document (sizes,
# padding, NULs, the chains' grammar, REC_END's count) and agree, record
# by record and field by field, with what stitch's reader parsed
# (`stitch --records-json`). The boot: /bin/demo in validate mode (samples
# with a cookie and a stack copy) at 250 Hz with write traced
# (samples and deferred records of the tracer), both consumers on (the
# stack map read out every 50 ms too), direct and under -icount; it has
# every record type but REC_LOST (no buffer fills). The tools' and
# tests' reader, tools/recstream.py, must give the same records.
use strict;
use warnings;
no warnings 'portable';
use FindBin;
use lib "$FindBin::Bin/../oracle";
BEGIN { chdir "$FindBin::Bin/../.." or die }
use File::Temp qw(tempdir);
use JSON::PP;
use Test::More;
use DocRecords;

-x $_ or BAIL_OUT("$_ is missing: run make") for 'build/bin/stitch', 'build/bin/recextract';
-f $_ or BAIL_OUT("$_ is missing: run make") for 'build/kernel/kernel.elf', 'build/initrd.cpio';

my $dir = tempdir('oracle-doc-XXXXXX', TMPDIR => 1, CLEANUP => 1);
my $cmdline = 'init=/bin/demo profile.mode=validate profile.hz=250 trace.syscalls=write '
	    . 'profile.consumer=both profile.map_period=50';
system("tools/qemu-run --direct --icount --timeout 300 --records $dir/records.bin "
       . "--cmdline '$cmdline' >$dir/console.txt 2>&1");
is($? >> 8, 0, 'the boot shuts down with success') or diag(`tail -20 $dir/console.txt`);

sub slurp { my ($p) = @_; open(my $f, '<:raw', $p) or return ''; local $/; scalar <$f> }
my $bytes = slurp("$dir/records.bin");
system("build/bin/stitch --records-json $dir/records.json $dir/records.bin");
is($? >> 8, 0, 'stitch --records-json: the stream is whole');
my $j = decode_json(slurp("$dir/records.json") || '{}');

my $s = DocRecords::read_stream($bytes);
is_deeply($s->{errors}, [], 'the stream breaks no rule of docs/RECORDS.md') or diag(explain($s->{errors}));
is($s->{junk}, 0, '... and starts with REC_STREAM (the shared-memory channel carries nothing else)');
my %n;
$n{$_->{type}}++ for @{$s->{records}};
is_deeply([grep { !$n{$_} } qw(comm mmap sample deferred exit stats end map_stack map_counts)], [],
	  'it has every record type but REC_LOST: ' . join(', ', map { "$n{$_} $_" } sort keys %n));
ok(($n{sample} // 0) >= 300, "$n{sample} samples");
my @deferred = grep { $_->{type} eq 'sample' && $_->{nr} >= 2 && $_->{ips}[-2] == 0xfffffffffffffd80 } @{$s->{records}};
my $copies = grep { defined $_->{copy} } @deferred;
ok($copies >= 300, "... $copies of them with a cookie and a stack copy");
ok(grep({ $_->{type} eq 'deferred' && $_->{consumer} == 1 } @{$s->{records}}), '... deferred records of the tracer too');
ok(grep({ $_->{type} eq 'exit' && $_->{flags} & 1 } @{$s->{records}}), '... and threads\' exits');

# The stream header.
my $h = $s->{stream} // {};
is_deeply({ map { $_ => $h->{$_} } qw(version ncpus tsc_hz mode sample_hz max_frames) },
	  { map { $_ => $j->{stream}{$_} } qw(version ncpus tsc_hz mode sample_hz max_frames) },
	  "REC_STREAM: the same fields (mode $h->{mode}, $h->{sample_hz} Hz, max_frames $h->{max_frames})");

# One record as --records-json writes it, from the document's reading.
my %HEX = map { $_ => 1 } qw(ip ips cookie start len pgoff copy_regs);
my %NOT_IN_JSON = map { $_ => 1 } qw(nr build_id_size count n); # implied by the lists
sub as_json {
	my ($r) = @_;
	my %o;
	for my $k (grep { !$NOT_IN_JSON{$_} } keys %$r) {
		my $v = $r->{$k};
		$o{$k} = $k eq 'stats' ? { map { @$_ } @$v }
		       : !$HEX{$k} ? $v
		       : ref $v ? [map { sprintf '0x%x', $_ } @$v] : sprintf('0x%x', $v);
	}
	return \%o;
}

my @mine = @{$s->{records}};
my @theirs = map { my %r = %$_; delete $r{stop_name}; \%r } @{$j->{records} // []};
is(scalar @theirs, scalar @mine, 'stitch read as many records: ' . scalar @mine);
my @diff;
for my $i (0 .. $#mine) {
	my ($a, $b) = (JSON::PP->new->canonical->encode(as_json($mine[$i])),
		       JSON::PP->new->canonical->encode($theirs[$i] // {}));
	push @diff, "record $i\n the document: $a\n stitch:       $b" if $a ne $b;
}
is(scalar @diff, 0, '... each at the same offset, of the same type and size, with the same fields and values')
	or diag(join "\n", @diff[0 .. ($#diff < 2 ? $#diff : 2)]);
# The tools' and tests' reader (tools/recstream.py, over the same decoder)
# hands them the same records: its own additions (a sample's chain split
# into kernel, user and cookie; a deferred record's user part; the stack
# copy as one structure) put back as stitch writes them.
sub as_stitch {
	my %r = %{$_[0]};
	delete @r{qw(stop_name user)};
	delete @r{qw(kernel cookie)} if $r{type} eq 'sample';
	if (ref $r{copy}) {
		@r{qw(copy_regs copy)} = @{$r{copy}}{qw(regs bytes)};
	} else {
		delete $r{copy};
	}
	return \%r;
}
my $v = eval { decode_json(`tools/recstream.py summary $dir/records.bin`) } // { records => [] };
my @ours = map { as_stitch($_) } @{$v->{records}}[1 .. $#{$v->{records}}];
is($v->{records}[0]{type} // '', 'stream', 'tools/recstream.py: REC_STREAM first');
my @odiff;
for my $i (0 .. $#mine) {
	my ($a, $b) = (JSON::PP->new->canonical->encode(as_json($mine[$i])),
		       JSON::PP->new->canonical->encode($ours[$i] // {}));
	push @odiff, "record $i\n the document:       $a\n tools/recstream.py: $b" if $a ne $b;
}
ok(@ours == @mine && !@odiff, '... and the same ' . scalar(@ours) . ' records, field by field')
	or diag(join "\n", @odiff[0 .. ($#odiff < 2 ? $#odiff : 2)]);

my @stats = map { @{$_->{stats}} } grep { $_->{type} eq 'stats' } @mine;
my %names;
ok(@stats >= 20 && !grep({ $names{$_->[0]}++ } @stats), scalar(@stats) . ' counters in REC_STATS, no name twice');

# The reader is not blind: a record's size that breaks the framing, a
# stack copy longer than its record, a chain with its cookie not last.
my $first_sample = (grep { defined $_->{copy} } @deferred)[0];
my $at = $first_sample->{offset};
my $bad = $bytes;
substr($bad, $at + 4, 4) = pack('V', $first_sample->{size} + 4);
like(join("\n", @{DocRecords::read_stream($bad)->{errors}}), qr/^$at: size \d+ is below 8 or not a multiple of 8$/m,
     'a size not a multiple of 8: the reader stops there');
$bad = $bytes;
my $copy_size_at = $at + 56 + 8 * $first_sample->{nr} + 8 * 18;
substr($bad, $copy_size_at, 8) = pack('Q<', $first_sample->{size});
like(join("\n", @{DocRecords::read_stream($bad)->{errors}}), qr/^$at: sample: the stack copy's size \d+ does not fit$/m,
     'a stack copy larger than its record: named');
$bad = $bytes;
substr($bad, $at + 56 + 8 * ($first_sample->{nr} - 1), 8) = pack('Q<', 0);
like(join("\n", @{DocRecords::read_stream($bad)->{errors}}), qr/^$at: sample: cookie 0$/m, 'a cookie 0: named');

done_testing();
