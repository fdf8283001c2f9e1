# gdb for Stitch (docs/DEBUGGING.md). gdb reads this file only when told:
#   gdb -iex 'set auto-load local-gdbinit off' -x .gdbinit \
#       -ex 'stitch-user /bin/demo' -ex 'target remote :1234'
# which is what `make qemu-gdb` prints (the -iex keeps gdb from trying this
# file on its own, and warning in ten lines that its auto-load declines it).
# Run from the top of the tree.

# The kernel: its symbols, DWARF and .debug_frame (the CFI of the C code
# and of the entry paths), at the addresses it runs at.
file build/kernel/kernel.elf

# The kernel's code is mapped only once paging is on: break with hbreak,
# which QEMU matches on the virtual address, not break, which would write
# into memory that is not there yet at the first instruction.

# stitch-user /bin/PROG: add a user program's symbols (the full ELF with
# DWARF and .eh_frame, at its link address: programs are static at
# 0x400000). Only one at a time, as they all share that address.
define stitch-user
  add-symbol-file build/userland/root$arg0
end
document stitch-user
Add the symbols of the guest program PROG (its path in the guest, e.g.
/bin/reader or /app/prog) from build/userland/root.
end

set pagination off
set print frame-arguments scalars
