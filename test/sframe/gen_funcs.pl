#!/usr/bin/perl
# gen_funcs.pl N: assembly for N functions with CFI, in four shapes (a
# leaf, an rbp frame, an rsp frame with pushes, and a 300-byte rbp frame
# whose rows need 2-byte addresses), for the SFrame benchmark. Assemble
# with `as --gsframe`.
use strict;
use warnings;

my $n = shift // die "usage: gen_funcs.pl N\n";
print "\t.text\n";
for my $i (0 .. $n - 1) {
	my $shape = $i % 4;
	print "\t.globl f$i\n\t.type f$i, \@function\nf$i:\n\t.cfi_startproc\n";
	if ($shape == 0) {
		print "\tlea 1(%rdi), %eax\n\tret\n";
	} elsif ($shape == 1 || $shape == 3) {
		print "\tpush %rbp\n\t.cfi_def_cfa_offset 16\n\t.cfi_offset %rbp, -16\n";
		print "\tmov %rsp, %rbp\n\t.cfi_def_cfa_register %rbp\n";
		print "\tsub \$32, %rsp\n\tmov %rdi, -8(%rbp)\n";
		print "\t.skip 300, 0x90\n" if $shape == 3;
		print "\tleave\n\t.cfi_def_cfa %rsp, 8\n\tret\n";
	} else {
		print "\tpush %rbx\n\t.cfi_def_cfa_offset 16\n\t.cfi_offset %rbx, -16\n";
		print "\tpush %r12\n\t.cfi_def_cfa_offset 24\n\t.cfi_offset %r12, -24\n";
		print "\tsub \$40, %rsp\n\t.cfi_def_cfa_offset 64\n";
		print "\tmov %rdi, (%rsp)\n\tadd \$40, %rsp\n\t.cfi_def_cfa_offset 24\n";
		print "\tpop %r12\n\t.cfi_def_cfa_offset 16\n\tpop %rbx\n\t.cfi_def_cfa_offset 8\n\tret\n";
	}
	print "\t.cfi_endproc\n\t.size f$i, .-f$i\n";
}
