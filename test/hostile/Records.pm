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

our @EXPORT = qw(read_records USER_TOP PERF_CONTEXT_USER @STOP_NAMES);

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

1;
