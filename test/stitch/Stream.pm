# The test stream generator: packs the records of include/stitch/records.h
# (little-endian, sizes multiples of 8), reads the capture programs'
# snapshots and looks up symbol addresses in real ELF files.
package Stream;

use strict;
use warnings;
no warnings "portable"; # 64-bit hex constants are fine here
use Exporter 'import';
use File::Temp ();

our @EXPORT = qw(
	PERF_CONTEXT_KERNEL PERF_CONTEXT_USER PERF_CONTEXT_USER_DEFERRED
	MODE_SFRAME MODE_FP MODE_STACK_COPY MODE_VALIDATE
	SAMPLE_USER SAMPLE_STACK_COPY MMAP_KERNEL
	rec_stream rec_comm rec_mmap rec_sample rec_deferred rec_exit rec_lost
	rec_stats rec_end rec_raw stream write_file read_file
	symbols load_snaps snap_copy build_dir stitch run_stitch tmpdir
);

use constant {
	PERF_CONTEXT_KERNEL        => 0xffffffffffffff80,
	PERF_CONTEXT_USER          => 0xfffffffffffffe00,
	PERF_CONTEXT_USER_DEFERRED => 0xfffffffffffffd80,
	MODE_SFRAME => 1, MODE_FP => 2, MODE_STACK_COPY => 4, MODE_VALIDATE => 6,
	SAMPLE_USER => 1, SAMPLE_STACK_COPY => 2, MMAP_KERNEL => 1,
};

my %type = (STREAM => 1, COMM => 2, MMAP => 3, SAMPLE => 4, DEFERRED => 5,
	    EXIT => 6, LOST => 7, STATS => 8, END => 9);

sub pad8 { my ($s) = @_; $s . ("\0" x ((8 - length($s) % 8) % 8)) }

# A record of any type number with the given body (padded, size filled in).
sub rec_raw {
	my ($t, $body) = @_;
	$body = pad8($body);
	return pack('VV', $t, 8 + length $body) . $body;
}

sub rec { my ($name, $body) = @_; rec_raw($type{$name}, $body) }

sub rec_stream {
	my %a = (mode => MODE_SFRAME, ncpus => 1, tsc_hz => 1_000_000_000,
		 sample_hz => 1000, max_frames => 64, magic => 0x5352484354495453,
		 version => 1, @_);
	rec('STREAM', pack('Q<VVQ<VVVV', $a{magic}, $a{version}, $a{ncpus},
			   $a{tsc_hz}, $a{mode}, $a{sample_hz}, $a{max_frames}, 0));
}

sub rec_comm {
	my %a = (time => 0, ppid => 0, @_);
	$a{tid} //= $a{pid};
	rec('COMM', pack('Q<VVVVa16', $a{time}, $a{pid}, $a{tid}, $a{ppid}, 0, $a{name}));
}

sub rec_mmap {
	my %a = (time => 0, pgoff => 0, flags => 0, build_id => '', @_);
	$a{tid} //= $a{pid};
	rec('MMAP', pack('Q<VVQ<Q<Q<VVa20V', $a{time}, $a{pid}, $a{tid}, $a{start},
			 $a{len}, $a{pgoff}, $a{flags}, length $a{build_id}, $a{build_id}, 0)
		    . $a{path} . "\0");
}

# ips: the raw callchain (markers included); copy: { regs => [18], stack => bytes }
sub rec_sample {
	my %a = (time => 0, cpu => 0, event => 0, flags => 0, period => 1_000_000,
		 aux => 0, ips => [], @_);
	$a{tid} //= $a{pid};
	$a{ip} //= (grep { $_ < 0xfffffffffffff001 } @{$a{ips}})[0] // 0;
	my $flags = $a{flags} | ($a{copy} ? SAMPLE_STACK_COPY : 0);
	my $body = pack('Q<VVVvvQ<Q<VV', $a{time}, $a{cpu}, $a{pid}, $a{tid}, $a{event},
			$flags, $a{ip}, $a{period}, $a{aux}, scalar @{$a{ips}})
		   . pack('Q<*', @{$a{ips}});
	if ($a{copy}) {
		$body .= pack('Q<*', @{$a{copy}{regs}}) . pack('Q<', length $a{copy}{stack})
			 . pad8($a{copy}{stack});
	}
	rec('SAMPLE', $body);
}

sub rec_deferred {
	my %a = (time => 0, cpu => 0, stop => 0, ips => [], consumer => 0, @_);
	$a{tid} //= $a{pid};
	rec('DEFERRED', pack('Q<VVVVQ<Q<VV', $a{time}, $a{cpu}, $a{pid}, $a{tid}, $a{stop},
			     $a{cookie}, 0, scalar @{$a{ips}}, $a{consumer}) . pack('Q<*', @{$a{ips}}));
}

sub rec_exit {
	my %a = (time => 0, status => 0, @_);
	$a{tid} //= $a{pid};
	rec('EXIT', pack('Q<VVlV', $a{time}, $a{pid}, $a{tid}, $a{status}, 0));
}

sub rec_lost { my %a = @_; rec('LOST', pack('VVQ<', $a{cpu}, 0, $a{count})) }

# rec_stats([name => value], ...)
sub rec_stats {
	my @s = @_;
	rec('STATS', pack('VV', scalar @s, 0) . join('', map { pack('a32Q<', @$_) } @s));
}

sub rec_end { my %a = (time => 0, @_); rec('END', pack('Q<Q<', $a{time}, $a{records})) }

# Join records, appending REC_END with the right count unless told not to.
sub stream {
	my @r = @_;
	return join('', @r, rec_end(time => 1 << 40, records => scalar @r));
}

sub write_file {
	my ($path, $bytes) = @_;
	open(my $f, '>:raw', $path) or die "$path: $!";
	print $f $bytes;
	close $f;
}

sub read_file {
	my ($path) = @_;
	open(my $f, '<:raw', $path) or die "$path: $!";
	local $/;
	return scalar <$f>;
}

# name => address of the function symbols of an ELF file.
sub symbols {
	my ($elf) = @_;
	my %sym;
	for (`nm --defined-only $elf`) {
		$sym{$3} = hex $1 if /^([0-9a-f]+) ([tTwW]) (\S+)$/;
	}
	return \%sym;
}

# The capture programs' snapshots: { maps => [...], snaps => [...] }.
sub load_snaps {
	my ($path) = @_;
	my (%d, $cur);
	open(my $f, '<', $path) or die "$path: $!";
	while (<$f>) {
		chomp;
		my ($k, @v) = split / /;
		if ($k eq 'map') {
			push @{$d{maps}}, { start => hex $v[0], end => hex $v[1],
					    pgoff => hex $v[2], path => $v[3] };
		} elsif ($k eq 'snap') {
			push @{$d{snaps}}, $cur = {};
		} elsif ($k eq 'regs' || $k eq 'chain') {
			$cur->{$k} = [map { hex } @v];
		} elsif ($k eq 'stack') {
			$cur->{stack} = pack('H*', $v[1]);
		}
	}
	return \%d;
}

sub snap_copy { my ($s) = @_; { regs => $s->{regs}, stack => $s->{stack} } }

sub build_dir { $ENV{STITCH_TEST_BUILD} // 'build/test/stitch' }
sub stitch { $ENV{STITCH} // 'build/bin/stitch' }
# STITCH_KEEP_TMP=1 keeps the temporary directories (to look at a failure).
sub tmpdir { File::Temp::tempdir('stitch-test-XXXXXX', TMPDIR => 1, CLEANUP => !$ENV{STITCH_KEEP_TMP}) }

# Run stitch with the given arguments; returns (exit status, stdout, stderr).
sub run_stitch {
	my @args = @_;
	my $dir = tmpdir();
	my $cmd = join ' ', map { quotemeta } stitch(), @args;
	my $out = `$cmd 2>$dir/stderr`;
	return ($? >> 8 | ($? & 127 ? 128 + ($? & 127) : 0), $out, read_file("$dir/stderr"));
}

1;
