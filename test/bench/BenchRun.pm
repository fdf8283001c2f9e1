# What the tests of make bench's driver share: its command line with this
# tree's build (bench.py's --config, --parts and --out are the test's), and
# reading, writing and fingerprinting files.
package BenchRun;
use strict;
use warnings;
use Digest::SHA;
use Exporter 'import';
our @EXPORT_OK = qw(@DRIVER slurp spew build_id);

our @DRIVER = ('python3', 'tools/bench/bench.py',
	       '--qemu-run', 'tools/qemu-run', '--stitch', 'build/bin/stitch',
	       '--symfs', 'build/userland/root', '--kernel', 'build/kernel/kernel.elf',
	       '--initrd', 'build/initrd.cpio');
# What every boot runs: a rebuild during a test (another make in the same
# tree) changes the numbers, not the property the test checks.
our @IMAGES = ('build/kernel/kernel.elf', 'build/initrd.cpio');

sub slurp { my ($p) = @_; open(my $f, '<:raw', $p) or return undef; local $/; scalar <$f> }
sub spew { my ($p, $s) = @_; open(my $f, '>:raw', $p) or die "$p: $!"; print $f $s; close $f or die "$p: $!" }
# The images' SHA-256, joined by commas (the job file's --sha256).
sub build_id { join ',', map { Digest::SHA->new(256)->addfile($_)->hexdigest } @IMAGES }

1;
