#!/usr/bin/perl
# Test 36: the 32-bit (i386) SDK and its programs, checked on the host (no
# boot): what mk/newlib.mk and mk/userland.mk promise the compat kernel and
# its unwinders.
#
#  1. The initrd holds bin/<w>32 and bin/<w>32-fp for fib, chain and sort;
#     each is the full ELF of the symbol tree stripped of its DWARF only
#     (same build id).
#  2. Each is a static ELFCLASS32 EM_386 executable: ET_EXEC, no
#     interpreter, no dynamic section, linked at 0x08048000, every PT_LOAD
#     below 4 GiB, the entry in an executable one, one PT_GNU_EH_FRAME in a
#     read-only one, no SFrame (binutils has no i386 SFrame ABI).
#  3. .eh_frame describes all of its code: every function symbol (FUNC, and
#     NOTYPE symbols in executable sections, which is what assembly without
#     .type gives) lies inside one FDE, but _start, which has none (the
#     bottom of every unwind).
#  4. Frame pointers: the workload's own functions (DWARF says their file)
#     set up an ebp frame (push %ebp; mov %esp,%ebp) in every one of the
#     -fp build, and in none of the default build but main, which realigns
#     the stack (gcc needs a frame pointer then, whatever the flags).
#  5. The system calls are int $0x80: no syscall instruction anywhere; and
#     the six-argument call's pushes (the sixth argument in ebp) are in its
#     CFI: at every instruction of stitch_syscall the CFA .eh_frame gives is
#     esp + 4 + what the code pushed so far.
#  6. No glibc: no versioned symbol, no __libc_ name, no path of the
#     host's C library (its headers, its i386 or x86_64 directories) in the
#     full ELF, DWARF included.
#  7. make APP=prog.c APP_ARCH=i386 builds a 32-bit /app/prog with the same
#     recipe; a program that calls pthread_create or dl_open fails to link,
#     and the linker says that threads or shared objects are for 64-bit
#     programs; APP_ARCH=arm is refused naming the choices; make run
#     APP_ARCH=i386 without APP is refused.
use strict;
use warnings;
use File::Temp qw(tempdir);
use Test::More;

my $INITRD = 'build/initrd.cpio';
my $SYMFS  = 'build/userland/root';
my @WORKLOADS = qw(fib chain sort);
my @PROGRAMS = map { ("${_}32", "${_}32-fp") } @WORKLOADS;

# A file's bytes, or undef.
sub slurp { open(my $f, '<:raw', $_[0]) or return undef; local $/; return scalar <$f> }

# stdout+stderr and exit status of a command (each word quoted for sh).
sub run {
	my $cmd = join(' ', map { quotemeta } @_);
	my $out = `$cmd 2>&1 </dev/null`;
	return ($out, $? >> 8);
}

# ---- 1. in the initrd, stripped of DWARF only ----

sub build_id {
	my ($path) = @_;
	my ($out) = run('readelf', '-n', $path);
	return $out =~ /Build ID: ([0-9a-f]+)/ ? $1 : undef;
}

ok(-f $INITRD, "$INITRD exists") or BAIL_OUT('make the initrd first');
my $dir = tempdir(CLEANUP => 1);
for my $p (@PROGRAMS) {
	my $full = "$SYMFS/bin/$p";
	system("cpio -i --quiet --to-stdout bin/$p < $INITRD > $dir/$p");
	ok(-s "$dir/$p" && -f $full, "bin/$p is in the initrd and the symbol tree") or next;
	my ($sec) = run('readelf', '-SW', "$dir/$p");
	my $id = build_id($full);
	ok(defined $id && (build_id("$dir/$p") // '') eq $id && $sec !~ /\.debug_info/,
		"bin/$p: the initrd's copy has the build id of the full ELF and no DWARF");
}

# ---- 2. static ELF32 EM_386 below 4 GiB, with PT_GNU_EH_FRAME ----

sub check_elf32 {
	my ($elf) = @_;
	return ('not ELF32 little-endian') unless substr($elf, 0, 6) eq "\x7fELF\x01\x01";
	my @why;
	my ($type, $machine, $version, $entry, $phoff) = unpack('v v V V V', substr($elf, 16, 20));
	my ($phentsize, $phnum) = unpack('v v', substr($elf, 42, 4));
	push @why, "e_type $type, not ET_EXEC" unless $type == 2;
	push @why, "e_machine $machine, not EM_386" unless $machine == 3;
	my ($lo, @loads, @eh);
	for my $i (0 .. $phnum - 1) {
		my ($pt, $off, $va, $pa, $fsz, $msz, $fl) =
			unpack('V V V V V V V', substr($elf, $phoff + $i * $phentsize, 28));
		push @why, 'has PT_INTERP' if $pt == 3;
		push @why, 'has PT_DYNAMIC' if $pt == 2;
		push @why, 'has PT_GNU_SFRAME' if $pt == 0x6474e554;
		push @eh, [$va, $fsz] if $pt == 0x6474e550;
		next unless $pt == 1;
		push @loads, [$fl, $va, $msz];
		$lo = $va if !defined $lo || $va < $lo;
		# 32-bit fields cannot say more than 4 GiB: the sum can.
		push @why, sprintf('PT_LOAD %#x+%#x reaches past 4 GiB', $va, $msz)
			if $va + $msz > 0x100000000;
	}
	push @why, sprintf('lowest PT_LOAD at %#x, not 0x08048000', $lo // 0)
		unless ($lo // 0) == 0x08048000;
	push @why, sprintf('entry %#x not in an executable PT_LOAD', $entry)
		unless grep { $_->[0] & 1 && $entry >= $_->[1] && $entry < $_->[1] + $_->[2] } @loads;
	return (@why, scalar(@eh) . ' PT_GNU_EH_FRAME') unless @eh == 1;
	my ($hva, $hsz) = @{$eh[0]};
	my ($seg) = grep { $hva >= $_->[1] && $hva + $hsz <= $_->[1] + $_->[2] } @loads;
	push @why, 'PT_GNU_EH_FRAME not inside a read-only PT_LOAD' unless $seg && !($seg->[0] & 3);
	return @why;
}

for my $p (@PROGRAMS) {
	my @why = check_elf32(slurp("$SYMFS/bin/$p") // '');
	ok(!@why, "$p: static ELF32 EM_386 at 0x08048000, below 4 GiB, one read-only PT_GNU_EH_FRAME, no SFrame")
		or diag(join('; ', @why));
}

# ---- 3. every function inside an FDE but _start ----

# The FDEs of .eh_frame (not .debug_frame, where crt0's CFI goes).
sub fde_ranges {
	my ($path) = @_;
	my ($out) = run('readelf', '-wf', $path);
	my ($in, @fde) = (0);
	for (split /\n/, $out) {
		$in = /\.eh_frame section/ ? 1 : 0 if /^Contents of the/;
		push @fde, [hex $1, hex $2] if $in && /FDE cie=\S+ pc=([0-9a-f]+)\.\.([0-9a-f]+)/;
	}
	return @fde;
}

# Code symbols: FUNC anywhere, NOTYPE in an executable section (assembly
# labels made global without .type); [name, address, size].
sub code_symbols {
	my ($path) = @_;
	my ($sec) = run('readelf', '-SW', $path);
	my %exec;
	$exec{$1} = 1 while $sec =~ /^\s*\[\s*(\d+)\]\s+\S+\s+\S+\s+\S+\s+\S+\s+\S+\s+\S+\s+\S*X\S*\s/mg;
	my ($sym) = run('readelf', '-sW', $path);
	my @code;
	for (split /\n/, $sym) {
		my @c = split;
		next unless @c == 8 && $c[6] =~ /^\d+$/ && $exec{$c[6]};
		next unless $c[3] eq 'FUNC' || $c[3] eq 'NOTYPE';
		push @code, [$c[7], hex $c[1], $c[2] =~ /^0x/ ? hex $c[2] : $c[2]];
	}
	return @code;
}

for my $p (@PROGRAMS) {
	my $path = "$SYMFS/bin/$p";
	my @fde = fde_ranges($path);
	my @code = code_symbols($path);
	my (@bare, $start_has);
	for my $s (@code) {
		my ($name, $va, $size) = @$s;
		my $in = grep { $va >= $_->[0] && $va + ($size || 1) <= $_->[1] } @fde;
		if ($name eq '_start') {
			$start_has = $in;
		} elsif (!$in) {
			push @bare, $name;
		}
	}
	ok(@code > 50 && !@bare && defined $start_has && !$start_has,
		"$p: each of its " . scalar(@code) . ' functions lies in one of its ' . scalar(@fde)
		. ' FDEs, but _start, which has none')
		or diag('without FDE: ' . join(' ', @bare) . (defined $start_has ? '' : '; no _start'));
}

# ---- 4. frame pointers in the -fp builds' own functions only ----

# The workload's own functions: those DWARF places in its source file.
sub own_functions {
	my ($path, $w) = @_;
	my ($out) = run('nm', '-l', '--defined-only', $path);
	return map { /^[0-9a-f]+ [tT] (\S+)\s+\S*userland\/workloads\/\Q$w\E\.c:\d+$/ ? $1 : () }
		split /\n/, $out;
}

# Does fn's prologue push %ebp; mov %esp,%ebp? (main first realigns the
# stack in three instructions: lea, and, a copy of the return address.)
sub sets_up_ebp {
	my ($path, $fn) = @_;
	my ($out) = run('objdump', '-d', '--no-show-raw-insn', "--disassemble=$fn", $path);
	my @insn = map { /^\s+[0-9a-f]+:\s+(.*?)\s*$/ ? $1 : () } split /\n/, $out;
	return grep { $insn[$_] eq 'push   %ebp' && ($insn[$_ + 1] // '') eq 'mov    %esp,%ebp' }
		0 .. ($#insn < 3 ? $#insn : 3);
}

# Does fn realign the stack? gcc then needs a frame pointer whatever the
# flags (main, on i386: the ABI's 16 bytes, which the caller's 4 need not
# keep).
sub realigns {
	my ($path, $fn) = @_;
	my ($out) = run('objdump', '-d', '--no-show-raw-insn', "--disassemble=$fn", $path);
	return $out =~ /\tand\s+\$0xfffffff0,%esp$/m;
}

for my $w (@WORKLOADS) {
	my @own = own_functions("$SYMFS/bin/${w}32-fp", $w);
	my @without = grep { !sets_up_ebp("$SYMFS/bin/${w}32-fp", $_) } @own;
	ok(@own >= 3 && !@without, "${w}32-fp: each of its own " . scalar(@own)
		. ' functions sets up an ebp frame') or diag("own: @own; without: @without");
	my @own_default = own_functions("$SYMFS/bin/${w}32", $w);
	my @plain = grep { !realigns("$SYMFS/bin/${w}32", $_) } @own_default;
	my @with = grep { sets_up_ebp("$SYMFS/bin/${w}32", $_) } @plain;
	ok(@own_default == @own && @plain >= @own - 1 && !@with,
		"${w}32: none of them does (the i386 -O2 default) but one that realigns the stack")
		or diag("own: @own_default; not realigning: @plain; with: @with");
}

# ---- 5. int $0x80, and the sixth argument's pushes in the CFI ----

for my $p (@PROGRAMS) {
	my ($out) = run('objdump', '-d', '--no-show-raw-insn', "$SYMFS/bin/$p");
	my $ints = () = $out =~ /\tint\s+\$0x80$/mg;
	ok($ints > 0 && $out !~ /\tsyscall\b/m, "$p: $ints int \$0x80, no syscall instruction");
}

# CFA = esp + 4 + the bytes pushed since the entry, at every instruction of
# a function without frame pointer whose code runs straight through.
sub cfa_follows_esp {
	my ($obj, $fn) = @_;
	my ($dis) = run('objdump', '-d', '--no-show-raw-insn', "--disassemble=$fn", $obj);
	my ($cfi) = run('readelf', '-wF', $obj);
	my @rows = map { /^([0-9a-f]{8}) (\S+)/ ? [hex $1, $2] : () } split /\n/, $cfi;
	my ($depth, @bad, $n) = (4);
	for (split /\n/, $dis) {
		next unless /^\s+([0-9a-f]+):\s+(\S+)\s*(.*?)\s*$/;
		my ($pc, $op, $args) = (hex $1, $2, $3);
		my ($row) = grep { $_->[0] <= $pc } reverse @rows;
		$n++;
		push @bad, sprintf('%#x %s: CFA %s, esp+%d expected', $pc, $op,
			$row ? $row->[1] : 'none', $depth) unless $row && $row->[1] eq "esp+$depth";
		$depth += 4 if $op eq 'push';
		$depth -= 4 if $op eq 'pop';
		$depth += hex $1 if $op eq 'sub' && $args =~ /^\$0x([0-9a-f]+),%esp$/;
		$depth -= hex $1 if $op eq 'add' && $args =~ /^\$0x([0-9a-f]+),%esp$/;
	}
	return ($n // 0, @bad);
}

my ($n, @bad) = cfa_follows_esp('build/userland/i386/lib/raw.o', 'stitch_syscall');
ok($n > 10 && !@bad, "stitch_syscall (six arguments, the sixth in ebp): the CFA of each of its $n "
	. 'instructions is esp + 4 + what it pushed') or diag(join("\n", @bad));

# ---- 6. nothing of glibc ----

for my $p (@PROGRAMS) {
	my $elf = slurp("$SYMFS/bin/$p") // '';
	my ($sym) = run('readelf', '-sW', '--dyn-syms', "$SYMFS/bin/$p");
	my @leak = grep { index($elf, $_) >= 0 }
		('GLIBC_', '__libc_', '/usr/include', 'i386-linux-gnu', 'x86_64-linux-gnu/bits',
		 '/usr/lib/x86_64-linux-gnu/libc', 'libc.so');
	push @leak, $1 while $sym =~ /(\S+\@\S+)/g;
	ok(length $elf && !@leak, "$p: no glibc symbol, version or path, DWARF included")
		or diag("found: @leak");
}

# ---- 7. make APP=prog.c APP_ARCH=i386 ----

my $app = tempdir(CLEANUP => 1);
sub write_app {
	my ($name, $text) = @_;
	open(my $f, '>', "$app/$name.c") or die;
	print $f $text;
	close($f);
	return "APP=$app/$name.c";
}

my ($out, $status) = run('make', '-s', write_app('hello32',
	"#include <stdio.h>\nint main(void)\n{\n\tprintf(\"hello %d\\n\", (int)sizeof(long));\n\treturn 0;\n}\n"),
	'APP_ARCH=i386', "$SYMFS/app/hello32");
my @why = check_elf32(slurp("$SYMFS/app/hello32") // '');
ok($status == 0 && !@why, 'make APP=hello32.c APP_ARCH=i386 builds a static ELF32 EM_386 program')
	or diag($out, join('; ', @why));
unlink("$SYMFS/app/hello32");

for (['thr', 'pthread_create', 'threads', "#include <pthread.h>\nint pthread_create();\n"
	. "int main(void) { return pthread_create(0, 0, 0, 0); }\n"],
     ['dl', 'dl_open', 'shared objects', "#include <stitch_dl.h>\n"
	. "int main(void) { return dl_open(\"/lib/libdeep.so\") != 0; }\n"]) {
	my ($name, $fn, $what, $src) = @$_;
	($out, $status) = run('make', '-s', write_app($name, $src), 'APP_ARCH=i386', "$SYMFS/app/$name");
	ok($status != 0 && !-e "$SYMFS/app/$name"
		&& $out =~ /warning: $fn: $what are for 64-bit programs only/
		&& $out =~ /undefined reference to `$fn'/,
		"a 32-bit program that calls $fn does not link, and ld says $what are for 64-bit programs")
		or diag($out);
}

($out, $status) = run('make', '-n', write_app('arch', "int main(void) { return 0; }\n"),
	'APP_ARCH=arm', "$SYMFS/app/arch");
ok($status != 0 && $out =~ /APP_ARCH=arm: one of x86_64 i386/, 'APP_ARCH=arm: a make error naming the choices')
	or diag($out);
($out, $status) = run('make', '-n', 'APP_ARCH=i386', 'run');
ok($status != 0 && $out =~ /make run: APP_ARCH=i386 says how to build APP=prog\.c: give one/,
	'make run APP_ARCH=i386 without APP: refused') or diag($out);
($out, $status) = run('make', '-n', "APP=$app/hello32.c", 'APP_ARCH=i386', 'ICOUNT=1', 'run');
ok($status == 0 && $out =~ /init=\/app\/hello32\b/ && $out =~ /-m32 .* -o build\/userland\/root\/app\/hello32 /,
	'make run APP=hello32.c APP_ARCH=i386 builds it with -m32 and boots init=/app/hello32') or diag($out);

done_testing();
