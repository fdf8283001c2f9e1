# The record stream (include/stitch/records.h) for the tests of hostile
# programs and load, as build/bin/stitch reads it (--records-json): the one
# decoder of the format. Every record of a file, by type, with the fields
# those tests look at, and whether the stream was damaged.
package Records;

use strict;
use warnings;
no warnings 'portable';
use Exporter 'import';
use JSON::XS;

our @EXPORT = qw(read_records stitch_stats accounting USER_TOP PERF_CONTEXT_USER @STOP_NAMES);

use constant {
	USER_TOP => 0x00007ffffffff000,
	PERF_CONTEXT_USER => 0xfffffffffffffe00,
};
# The unwind stop reasons by number, as stitch names them (set by read_records).
our @STOP_NAMES;

# stitch's counters that say the stream itself is damaged.
my @DAMAGE = qw(no_stream_header bad_magic bad_version stream_headers truncated bad_size
		unknown_type bad_callchain bad_stack_copy bad_string missing_end
		end_count_mismatch after_end);

# { stream => {...}, samples => [...], deferred => [...], comm => {pid => name},
#   ppid => {pid => ppid}, exits => {pid => status}, lost => n, stats => {name => v},
#   end => records or undef, count => records read, error => text or undef }
sub read_records {
	my ($path) = @_;
	my %r = (samples => [], deferred => [], comm => {}, ppid => {}, exits => {},
		 lost => 0, stats => {}, count => 0);
	open(my $p, '-|', 'build/bin/stitch', '--records-json', '-', $path)
		or return { %r, error => "build/bin/stitch: $!" };
	my $json = do { local $/; <$p> };
	close($p);
	my $d = eval { decode_json($json) } or return { %r, error => "$path: no JSON from stitch" };
	@STOP_NAMES = @{$d->{stop_names}};
	my $h = $d->{stream} or return { %r, error => 'no REC_STREAM' };
	$r{stream} = { tsc_hz => $h->{tsc_hz}, mode => $h->{mode}, hz => $h->{sample_hz},
		       max_frames => $h->{max_frames} };
	$r{count} = 1;
	for my $rec (@{$d->{records}}) {
		my $t = $rec->{type};
		$r{count}++;
		if ($t eq 'comm') {
			$r{comm}{$rec->{pid}} = $rec->{name};
			$r{ppid}{$rec->{pid}} = $rec->{ppid};
		} elsif ($t eq 'sample') {
			my @ips = map { hex } @{$rec->{ips}};
			push @{$r{samples}}, { pid => $rec->{pid}, flags => $rec->{flags},
				ip => hex $rec->{ip}, nr => scalar @ips, ips => \@ips };
		} elsif ($t eq 'deferred') {
			push @{$r{deferred}}, { pid => $rec->{pid}, stop => $rec->{stop},
				cookie => hex $rec->{cookie}, consumer => $rec->{consumer},
				ips => [map { hex } @{$rec->{ips}}] };
		} elsif ($t eq 'exit') {
			$r{exits}{$rec->{pid}} = $rec->{status};
		} elsif ($t eq 'lost') {
			$r{lost} += $rec->{count};
		} elsif ($t eq 'stats') {
			%{$r{stats}} = (%{$r{stats}}, %{$rec->{stats}});
		} elsif ($t eq 'end') {
			$r{end} = $rec->{records};
			last;
		}
	}
	my @bad = grep { $d->{stitch}{$_} } @DAMAGE;
	$r{error} = 'damaged stream: ' . join(' ', map { "$_=$d->{stitch}{$_}" } @bad) if @bad;
	return \%r;
}

# stitch's own matching of a stream (build/bin/stitch --stats): every
# sample given the deferred record of its (process, tid, cookie), and its
# counters ("stitch": samples_missing, deferred_duplicate, deferred_orphan,
# the damage counters...). The decoded JSON, or undef.
sub stitch_stats {
	my ($path) = @_;
	open(my $p, '-|', 'build/bin/stitch', '--stats', '-', '--symfs', 'build/userland/root',
	     '--kernel', 'build/kernel/kernel.elf', $path) or return undef;
	my $json = do { local $/; <$p> };
	close($p);
	return $? == 0 ? eval { decode_json($json) } : undef;
}

# The accounting every stream must satisfy, whatever ran (test 83, test 58,
# tools/stress): $r from read_records, $s from stitch_stats. A list of
# [ok, what], one per property: the stream is whole; every NMI and every
# lost record is counted; what the counters say was written and the stream
# lacks is within the counted losses; every unwind has its stop reason;
# stitch finds no anomaly; every sample's cookie is answered by exactly one
# deferred record and every deferred record by a sample, but for what the
# counted losses explain (none when nothing was lost).
sub accounting {
	my ($r, $s) = @_;
	my @c;
	push @c, [!$r->{error} && defined $r->{end} && $r->{end} == $r->{count} - 1,
		  "the record stream is whole: $r->{count} records, REC_END last"
		  . ($r->{error} ? " ($r->{error})" : '')];
	my $st = $r->{stats};
	my $v = sub { $st->{$_[0]} // 0 };
	my $samples = @{$r->{samples}};
	my @deferred = grep { $_->{consumer} == 0 } @{$r->{deferred}};
	push @c, [$v->('samples') + $v->('samples_lost') + $v->('nmi_ignored') == ($st->{nmi_count} // -1),
		  sprintf('every NMI counted: nmi_count %d = samples %d + samples_lost %d + nmi_ignored %d',
			  $st->{nmi_count} // -1, $v->('samples'), $v->('samples_lost'), $v->('nmi_ignored'))];
	push @c, [($st->{records_lost} // -1) == $r->{lost},
		  "records_lost " . ($st->{records_lost} // '?') . " = the REC_LOST total ($r->{lost})"];
	push @c, [$v->('records_lost') >= $v->('samples_lost'),
		  'every sample dropped (' . $v->('samples_lost') . ') is among the records lost'];
	my $gone = ($v->('samples') - $samples) + ($v->('deferred_records') - @deferred);
	push @c, [$v->('samples') >= $samples && $v->('deferred_records') >= @deferred
		  && $gone <= $v->('records_lost') - $v->('samples_lost'),
		  "written but not in the stream ($gone samples and deferred records) is within the counted losses"];
	my ($by_reason, @short) = (0);
	for my $i (0 .. $#STOP_NAMES) {
		my $name = 'unwind_stop_' . ($STOP_NAMES[$i] =~ s/-/_/gr);
		my $n = grep { $_->{stop} == $i } @deferred;
		$by_reason += $v->($name);
		push @short, "$name $st->{$name} < $n" if $n > ($st->{$name} // -1);
	}
	push @c, [!@short, 'each unwind_stop_* counter covers its unwinds in the stream'
		  . (@short ? " (@short)" : '')];
	push @c, [$by_reason == $v->('unwinds_run') + $v->('unwind_stop_task_exited'),
		  "every unwind has its stop reason: $by_reason = unwinds_run " . $v->('unwinds_run')
		  . ' + task-exited ' . $v->('unwind_stop_task_exited')];
	push @c, [$v->('deferred_requests') - $v->('requests_coalesced') == $v->('entries_with_samples'),
		  'requests not coalesced (' . $v->('deferred_requests') . ' - ' . $v->('requests_coalesced')
		  . ') = kernel entries with samples (' . $v->('entries_with_samples') . ')'];
	my $k = $s && $s->{stitch};
	push @c, [$k, 'stitch --stats read the stream'];
	return @c unless $k;
	my @anomalies = grep { ($k->{$_} // 0) != 0 } qw(no_stream_header bad_magic bad_version
		stream_headers truncated bad_size unknown_type bad_callchain bad_stack_copy bad_string
		missing_end end_count_mismatch after_end deferred_duplicate cookie_zero
		build_id_mismatch missing_files);
	push @c, [!@anomalies, 'stitch found no anomaly in the stream'
		  . (@anomalies ? ' (' . join(' ', map { "$_=$k->{$_}" } @anomalies) . ')' : '')];
	my $lost = $v->('records_lost');
	my ($miss, $orphan, $dup) = map { $k->{$_} // -1 } qw(samples_missing deferred_orphan
							    deferred_duplicate);
	push @c, [$dup == 0 && ($lost ? $miss <= $lost && $orphan <= $lost : $miss == 0 && $orphan == 0),
		  "every cookie answered exactly once: $k->{samples_deferred} samples asked, $miss "
		  . "never answered, $orphan deferred records nobody asked for, $dup answered twice "
		  . "($lost records lost)"];
	return @c;
}

1;
