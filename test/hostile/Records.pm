# A reader of the record stream (include/stitch/records.h) for the tests of
# hostile programs and load: every record of a file, by type, with the
# fields those tests look at. It checks framing only; stitch is the full
# reader.
package Records;

use strict;
use warnings;
no warnings 'portable';
use Exporter 'import';

our @EXPORT = qw(read_records USER_TOP PERF_CONTEXT_USER @STOP_NAMES);

use constant {
	MAGIC => 0x5352484354495453,
	USER_TOP => 0x00007ffffffff000,
	PERF_CONTEXT_USER => 0xfffffffffffffe00,
};
our @STOP_NAMES = qw(end max-frames fault no-info bad-sframe bad-frame task-exited signal-frame);

# { stream => {...}, samples => [...], deferred => [...], comm => {pid => name},
#   ppid => {pid => ppid}, exits => {pid => status}, lost => n, stats => {name => v},
#   end => records or undef, count => records read, error => text or undef }
sub read_records {
	my ($path) = @_;
	open(my $f, '<:raw', $path) or return { error => "$path: $!" };
	local $/;
	my $b = <$f> // '';
	my %r = (samples => [], deferred => [], comm => {}, ppid => {}, exits => {},
		 lost => 0, stats => {}, count => 0);
	my $at = index($b, pack('VV', 1, 48) . pack('Q<', MAGIC));
	return { %r, error => 'no REC_STREAM' } if $at < 0;
	while ($at + 8 <= length $b) {
		my ($type, $size) = unpack('VV', substr($b, $at, 8));
		return { %r, error => "bad size $size at $at" } if $size < 8 || $size % 8;
		return { %r, error => "record cut at $at" } if $at + $size > length $b;
		my $body = substr($b, $at + 8, $size - 8);
		$at += $size;
		$r{count}++;
		if ($type == 1) {
			my ($magic, $ver, $ncpus, $tsc, $mode, $hz, $frames) = unpack('Q<VVQ<VVV', $body);
			$r{stream} = { tsc_hz => $tsc, mode => $mode, hz => $hz, max_frames => $frames };
		} elsif ($type == 2) {
			my ($time, $pid, $tid, $ppid, undef, $name) = unpack('Q<VVVVZ16', $body);
			$r{comm}{$pid} = $name;
			$r{ppid}{$pid} = $ppid;
		} elsif ($type == 4) {
			my ($time, $cpu, $pid, $tid, $event, $flags, $ip, $period, $aux, $nr) =
				unpack('Q<VVVvvQ<Q<VV', $body);
			push @{$r{samples}}, { pid => $pid, flags => $flags, ip => $ip, nr => $nr,
				ips => [unpack("x48 Q<$nr", $body)] };
		} elsif ($type == 5) {
			my ($time, $cpu, $pid, $tid, $stop, $cookie, $period, $nr, $consumer) =
				unpack('Q<VVVVQ<Q<VV', $body);
			push @{$r{deferred}}, { pid => $pid, stop => $stop, cookie => $cookie,
				consumer => $consumer, ips => [unpack("x48 Q<$nr", $body)] };
		} elsif ($type == 6) {
			my ($time, $pid, $tid, $status) = unpack('Q<VVl', $body);
			$r{exits}{$pid} = $status;
		} elsif ($type == 7) {
			$r{lost} += unpack('x8 Q<', $body);
		} elsif ($type == 8) {
			my $n = unpack('V', $body);
			for my $i (0 .. $n - 1) {
				my ($name, $v) = unpack('Z32 Q<', substr($body, 8 + 40 * $i, 40));
				$r{stats}{$name} = $v;
			}
		} elsif ($type == 9) {
			$r{end} = unpack('x8 Q<', $body);
			last;
		}
	}
	return \%r;
}

1;
