#!/usr/bin/env python3
"""Damaged copies of an ELF32 i386 executable, for the kernel's loader
(docs/PROCESSES.md, "32-bit programs"):

  mkhostile.py ELF OUTDIR

writes OUTDIR/compat32-truncated (cut inside its program headers),
compat32-high (its last PT_LOAD moved to 0xfffff000, 8 KiB long: past
4 GiB, where 32-bit arithmetic would wrap), compat32-machine (e_machine
EM_X86_64 in an ELF32 file) and compat32-sframe (its PT_GNU_STACK turned
into a PT_GNU_SFRAME over its notes: a loadable program whose SFrame
section the kernel refuses, as i386 has no SFrame ABI). Exits 1 with a
message if ELF is no ELF32 executable with those headers."""
import struct
import sys

PT_LOAD, PT_NOTE, PT_GNU_STACK, PT_GNU_SFRAME = 1, 4, 0x6474e551, 0x6474e554
PHDR = struct.Struct('<8I')   # type offset vaddr paddr filesz memsz flags align


def fail(msg):
    sys.exit('mkhostile.py: %s: %s' % (sys.argv[1], msg))


def main():
    if len(sys.argv) != 3:
        sys.exit('usage: mkhostile.py ELF OUTDIR')
    data = bytearray(open(sys.argv[1], 'rb').read())
    if data[:5] != b'\x7fELF\x01' or len(data) < 52:
        fail('not an ELF32 file')
    phoff, = struct.unpack_from('<I', data, 28)
    phnum, = struct.unpack_from('<H', data, 44)
    phdrs = [list(PHDR.unpack_from(data, phoff + i * PHDR.size)) for i in range(phnum)]
    index = {t: i for i, p in enumerate(phdrs) for t in [p[0]]}
    loads = [i for i, p in enumerate(phdrs) if p[0] == PT_LOAD]
    if not loads or PT_NOTE not in index or PT_GNU_STACK not in index:
        fail('needs PT_LOAD, PT_NOTE and PT_GNU_STACK headers')

    def write(name, blob):
        open('%s/%s' % (sys.argv[2], name), 'wb').write(blob)

    def with_phdr(i, p):
        out = bytearray(data)
        PHDR.pack_into(out, phoff + i * PHDR.size, *p)
        return out

    write('compat32-truncated', data[:phoff + PHDR.size // 2])
    high = list(phdrs[loads[-1]])
    high[2] = high[3] = 0xfffff000
    high[5] = 0x2000
    high[4] = min(high[4], high[5])
    write('compat32-high', with_phdr(loads[-1], high))
    machine = bytearray(data)
    struct.pack_into('<H', machine, 18, 62)
    write('compat32-machine', machine)
    note = phdrs[index[PT_NOTE]]
    write('compat32-sframe', with_phdr(index[PT_GNU_STACK], [PT_GNU_SFRAME] + note[1:]))


main()
