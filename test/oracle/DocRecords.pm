# A reader of the record stream written from docs/RECORDS.md alone (its
# "Framing", "Layout, byte by byte", "The stack map", "Callchains" and
# "Stack copies" sections), sharing nothing with stitch's reader or the tests' encoders:
# a second reading of the format for test/t/87-oracle-records-doc.t.
#
#   my $s = DocRecords::read_stream($bytes);
#   $s->{stream}   the REC_STREAM fields
#   $s->{records}  every record after it: { type, offset, size, fields... }
#   $s->{errors}   every way the bytes break a rule of the document
package DocRecords;

use strict;
use warnings;
no warnings 'portable'; # 64-bit values

my %TYPE = (1 => 'stream', 2 => 'comm', 3 => 'mmap', 4 => 'sample', 5 => 'deferred',
	    6 => 'exit', 7 => 'lost', 8 => 'stats', 9 => 'end', 10 => 'map_stack', 11 => 'map_counts');
my $MAGIC = 0x5352484354495453;
my ($CTX_KERNEL, $CTX_USER, $CTX_DEFERRED) = (0xffffffffffffff80, 0xfffffffffffffe00, 0xfffffffffffffd80);
my ($SAMPLE_STACK_COPY, $NREGS) = (0x2, 18);

# The fixed parts: [offset, field, type]; the types of the document.
my %LAYOUT = (
	stream => [[8, 'magic', 'u64'], [16, 'version', 'u32'], [20, 'ncpus', 'u32'],
		   [24, 'tsc_hz', 'u64'], [32, 'mode', 'u32'], [36, 'sample_hz', 'u32'],
		   [40, 'max_frames', 'u32'], [44, 'pad', 'u32']],
	comm => [[8, 'time', 'u64'], [16, 'pid', 'u32'], [20, 'tid', 'u32'], [24, 'ppid', 'u32'],
		 [28, 'flags', 'u32'], [32, 'name', 'char16']],
	mmap => [[8, 'time', 'u64'], [16, 'pid', 'u32'], [20, 'tid', 'u32'], [24, 'start', 'u64'],
		 [32, 'len', 'u64'], [40, 'pgoff', 'u64'], [48, 'flags', 'u32'],
		 [52, 'build_id_size', 'u32'], [56, 'build_id_bytes', 'u8x20'], [76, 'pad', 'u32']],
	sample => [[8, 'time', 'u64'], [16, 'cpu', 'u32'], [20, 'pid', 'u32'], [24, 'tid', 'u32'],
		   [28, 'event', 'u16'], [30, 'flags', 'u16'], [32, 'ip', 'u64'], [40, 'period', 'u64'],
		   [48, 'aux', 'u32'], [52, 'nr', 'u32']],
	deferred => [[8, 'time', 'u64'], [16, 'cpu', 'u32'], [20, 'pid', 'u32'], [24, 'tid', 'u32'],
		     [28, 'stop', 'u32'], [32, 'cookie', 'u64'], [40, 'period', 'u64'],
		     [48, 'nr', 'u32'], [52, 'consumer', 'u32']],
	exit => [[8, 'time', 'u64'], [16, 'pid', 'u32'], [20, 'tid', 'u32'], [24, 'status', 'i32'],
		 [28, 'flags', 'u32']],
	lost => [[8, 'cpu', 'u32'], [12, 'pad', 'u32'], [16, 'count', 'u64']],
	stats => [[8, 'count', 'u32'], [12, 'pad', 'u32']],
	end => [[8, 'time', 'u64'], [16, 'records', 'u64']],
	map_stack => [[8, 'time', 'u64'], [16, 'id', 'u32'], [20, 'kind', 'u16'], [22, 'nr', 'u16']],
	map_counts => [[8, 'time', 'u64'], [16, 'period', 'u64'], [24, 'n', 'u32'], [28, 'pad', 'u32']],
);
# A REC_MAP_COUNTS key: [offset in the key, field, type].
my @MAP_KEY = ([0, 'pid', 'u32'], [4, 'program', 'u32'], [8, 'kstack', 'u32'],
	       [12, 'ustack', 'u32'], [16, 'user', 'u32'], [20, 'pad', 'u32'], [24, 'count', 'u64']);
my %FIXED = (stream => 48, comm => 48, mmap => 80, sample => 56, deferred => 56, exit => 32,
	     lost => 24, stats => 16, end => 24, map_stack => 24, map_counts => 32);
my %UNPACK = (u16 => ['v', 2], u32 => ['V', 4], i32 => ['l<', 4], u64 => ['Q<', 8],
	      char16 => ['a16', 16], char32 => ['a32', 32], u8x20 => ['a20', 20]);

# A char[N]: the string before its NUL; an error unless NUL-terminated and NUL-padded.
sub cstring {
	my ($bytes, $err) = @_;
	my $nul = index($bytes, "\0");
	return $err->('no NUL'), $bytes if $nul < 0;
	$err->('bytes after the NUL are not zero') if substr($bytes, $nul) =~ /[^\0]/;
	return substr($bytes, 0, $nul);
}

sub fixed_fields {
	my ($type, $rec, $err) = @_;
	my %f;
	for (@{$LAYOUT{$type}}) {
		my ($off, $name, $t) = @$_;
		my ($fmt, $len) = @{$UNPACK{$t}};
		my $v = unpack($fmt, substr($rec, $off, $len));
		$v = cstring($v, sub { $err->("$name: $_[0]") }) if $t =~ /^char/;
		$f{$name} = $v;
	}
	$err->("$_ is not 0") for grep { $f{$_} } 'pad';
	delete $f{pad};
	return \%f;
}

# ips[nr] at off: the entries, or an error when they do not fit.
sub ips {
	my ($rec, $off, $nr, $err) = @_;
	return $err->("nr $nr does not fit in the record"), [] if $off + 8 * $nr > length $rec;
	return [unpack("Q<$nr", substr($rec, $off, 8 * $nr))];
}

# "Callchains": [KERNEL k...] then [USER u...] or [USER_DEFERRED cookie], the cookie last.
sub check_sample_chain {
	my ($ips, $err) = @_;
	my @c = @$ips;
	if (@c && $c[0] == $CTX_KERNEL) {
		shift @c;
		shift @c while @c && $c[0] != $CTX_USER && $c[0] != $CTX_DEFERRED;
	}
	return unless @c;
	if ($c[0] == $CTX_USER) {
		$err->('a marker among the user addresses') if grep { $_ >= $CTX_DEFERRED } @c[1 .. $#c];
	} elsif ($c[0] == $CTX_DEFERRED) {
		$err->('PERF_CONTEXT_USER_DEFERRED is not followed by one cookie, last') unless @c == 2;
		$err->('cookie 0') if @c == 2 && !$c[1];
	} else {
		$err->(sprintf('the chain starts with 0x%x, not a context marker', $c[0]));
	}
}

# What follows the fixed part of each type; returns the bytes it used.
sub tail {
	my ($type, $rec, $f, $err) = @_;
	my $n = length $rec;
	if ($type eq 'mmap') {
		$err->('build_id_size above 20') if $f->{build_id_size} > 20;
		$f->{build_id} = unpack('H*', substr(delete $f->{build_id_bytes}, 0, $f->{build_id_size}));
		$f->{path} = cstring(substr($rec, 80), sub { $err->("path: $_[0]") });
		my $path = length($f->{path}) + 1;
		return 80 + $path + (-$path % 8);
	}
	if ($type eq 'sample' || $type eq 'deferred') {
		$f->{ips} = ips($rec, 56, $f->{nr}, $err);
		my $end = 56 + 8 * $f->{nr};
		if ($type eq 'deferred') {
			$err->('the chain does not start with PERF_CONTEXT_USER')
				unless @{$f->{ips}} && $f->{ips}[0] == $CTX_USER;
			$err->('cookie 0') unless $f->{cookie};
			return $end;
		}
		check_sample_chain($f->{ips}, $err);
		return $end unless $f->{flags} & $SAMPLE_STACK_COPY;
		return $err->('the stack copy does not fit'), $n if $end + 8 * $NREGS + 8 > $n;
		$f->{copy_regs} = [unpack("Q<$NREGS", substr($rec, $end, 8 * $NREGS))];
		my $size = unpack('Q<', substr($rec, $end + 8 * $NREGS, 8));
		$end += 8 * $NREGS + 8;
		return $err->("the stack copy's size $size does not fit"), $n if $size > $n - $end;
		$f->{copy} = unpack('H*', substr($rec, $end, $size));
		my $padded = $end + $size + (-$size % 8);
		$err->('the stack copy is not padded with zeros') if substr($rec, $end + $size, $padded - $end - $size) =~ /[^\0]/;
		return $padded;
	}
	if ($type eq 'map_stack') {
		$err->('id 0') unless $f->{id};
		$err->("kind $f->{kind}: neither 0 (kernel) nor 1 (user)") if $f->{kind} > 1;
		$f->{ips} = ips($rec, 24, $f->{nr}, $err);
		$err->('a context marker among the addresses') if grep { $_ >= $CTX_DEFERRED } @{$f->{ips}};
		return 24 + 8 * $f->{nr};
	}
	if ($type eq 'map_counts') {
		my $c = $f->{n};
		return $err->("n $c does not fit"), $n if 32 + 32 * $c > $n;
		$f->{counts} = [map {
			my $at = 32 + 32 * $_;
			my %k = map { my ($off, $name, $t) = @$_;
				      ($name => unpack($UNPACK{$t}[0], substr($rec, $at + $off, $UNPACK{$t}[1]))) } @MAP_KEY;
			$err->("key $_: pad is not 0") if delete $k{pad};
			\%k } 0 .. $c - 1];
		return 32 + 32 * $c;
	}
	if ($type eq 'stats') {
		my $c = $f->{count};
		return $err->("count $c does not fit"), $n if 16 + 40 * $c > $n;
		$f->{stats} = [map { [cstring(substr($rec, 16 + 40 * $_, 32), sub { $err->("counter $_: $_[0]") }),
				      unpack('Q<', substr($rec, 48 + 40 * $_, 8))] } 0 .. $c - 1];
		return 16 + 40 * $c;
	}
	return $FIXED{$type};
}

# "The stack map": each stack before the first count that names it.
sub check_map_ids {
	my ($type, $f, $err, $ids) = @_;
	$ids->{"$f->{kind}:$f->{id}"} = 1 if $type eq 'map_stack';
	return unless $type eq 'map_counts';
	for my $k (@{$f->{counts}}) {
		$err->("a count names kernel stack $k->{kstack}, not written before it")
			if $k->{kstack} && !$ids->{"0:$k->{kstack}"};
		$err->("a count names user stack $k->{ustack}, not written before it")
			if $k->{ustack} && !$ids->{"1:$k->{ustack}"};
	}
}

sub read_stream {
	my ($bytes) = @_;
	my (@recs, @errors, $stream, %map_ids);
	# "Framing": skip what comes before the first REC_STREAM header with its magic.
	my ($start, $at) = (-1, 0);
	while (($at = index($bytes, pack('Q<', $MAGIC), $at)) >= 0) {
		$start = $at - 8, last if $at >= 8 && unpack('V', substr($bytes, $at - 8, 4)) == 1;
		$at++;
	}
	return { errors => ['no REC_STREAM header with its magic'], records => [] } if $start < 0;
	my $off = $start;
	while ($off < length $bytes) {
		my $left = length($bytes) - $off;
		push(@errors, "$off: $left bytes, less than a header"), last if $left < 8;
		my ($t, $size) = unpack('VV', substr($bytes, $off, 8));
		push(@errors, "$off: size $size is below 8 or not a multiple of 8"), last if $size < 8 || $size % 8;
		push(@errors, "$off: size $size is past the end ($left left)"), last if $size > $left;
		my $type = $TYPE{$t};
		my $err = sub { push @errors, "$off: " . ($type // "type $t") . ": $_[0]" };
		if (!$type) {
			$err->('unknown type');
		} elsif ($size < $FIXED{$type}) {
			$err->("size $size below the fixed part, $FIXED{$type}");
		} else {
			my $rec = substr($bytes, $off, $size);
			my $f = fixed_fields($type, $rec, $err);
			my $used = tail($type, $rec, $f, $err);
			$err->("$size bytes where its fields take $used") if $used != $size;
			$err->('the zero padding after the fields is not zero') if substr($rec, $used) =~ /[^\0]/;
			check_map_ids($type, $f, $err, \%map_ids);
			if ($type eq 'stream') {
				$err->('a second REC_STREAM') if $stream;
				$stream = $f;
			} else {
				push @recs, { type => $type, offset => $off, size => $size, %$f };
			}
		}
		$off += $size;
	}
	push @errors, 'the REC_STREAM magic is wrong' if $stream && $stream->{magic} != $MAGIC;
	push @errors, 'the version is not 1' if $stream && $stream->{version} != 1;
	my $end = @recs ? $recs[-1] : undef;
	if (!$end || $end->{type} ne 'end') {
		push @errors, 'the last record is not REC_END';
	} elsif ($end->{records} != @recs) { # the records before REC_END, REC_STREAM included
		push @errors, "REC_END counts $end->{records} records before it, there are " . scalar(@recs);
	}
	return { stream => $stream, records => \@recs, errors => \@errors, junk => $start };
}

1;
