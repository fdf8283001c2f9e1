# What tests 03 and 04 share: `make ... run` as a user types it, from a
# clean environment (no make or run variable inherited from the caller,
# the C locale), and a file's bytes.
package MakeRun;
use strict;
use warnings;
use Exporter 'import';
use Time::HiRes qw(time);
our @EXPORT = qw(make_run slurp);

delete @ENV{qw(MAKEFLAGS MAKELEVEL MFLAGS MODE HZ CPUS ICOUNT IDLE APP APP_CFLAGS ARGS RUN_INIT DEMO V)};
$ENV{LC_ALL} = 'C';

# A file's bytes, or undef if it cannot be read.
sub slurp { my ($p) = @_; open(my $f, '<:raw', $p) or return undef; local $/; scalar <$f> }

# make VARS... run: (exit status, output with stderr, seconds)
sub make_run {
	my (@vars) = @_;
	my $t = time;
	my $pid = open(my $fh, '-|') // die "fork: $!";
	if (!$pid) {
		open(STDERR, '>&', \*STDOUT);
		exec('make', '--no-print-directory', @vars, 'run') or die "make: $!";
	}
	local $/;
	my $out = <$fh> // '';
	close($fh);
	return ($? >> 8, $out, time - $t);
}

1;
