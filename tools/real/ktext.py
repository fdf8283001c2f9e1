#!/usr/bin/env python3
"""ktext.py ELF MIN OUT: /bin/disreal's input and oracle (mk/binutils.mk).

Writes to OUT the first bytes of ELF's .text, from its start to the first
function (an STT_FUNC symbol, readelf -s) that starts MIN bytes or more
into it: whole functions, so that the last instruction is whole. Prints
what disreal must print for them: each instruction as "ADDR: TEXT", the
text of the host objdump's listing of the same raw bytes (its address
column without the padding, the bytes column and the bytes-only
continuation lines left out), then the count line."""
import re
import subprocess
import sys

elf, least, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
env = {'LC_ALL': 'C', 'PATH': '/usr/bin:/bin'}


def tool(*cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout


# .text's address and file offset ([Nr] Name Type Address Off Size).
m = re.search(r'\]\s+\.text\s+PROGBITS\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)',
              tool('readelf', '-SW', elf))
if not m:
    sys.exit('ktext.py: %s has no .text' % elf)
vma, off, size = (int(x, 16) for x in m.groups())
starts = [int(f[1], 16) - vma for f in (l.split() for l in tool('readelf', '-sW', elf).splitlines())
          if len(f) >= 8 and f[3] == 'FUNC']
cut = min((s for s in starts if least <= s <= size), default=0)
if not cut:
    sys.exit('ktext.py: no function starts %d bytes or more into .text' % least)
with open(elf, 'rb') as f:
    f.seek(off)
    code = f.read(cut)
with open(out, 'wb') as f:
    f.write(code)
listing = tool('objdump', '-D', '-z', '-b', 'binary', '-m', 'i386:x86-64',
               '--adjust-vma=0x%x' % vma, out)
n = bad = 0
for line in listing.splitlines():
    f = line.split('\t')
    if len(f) >= 3 and re.fullmatch(r' *[0-9a-f]+:', f[0]):
        print('%s: %s' % (f[0].strip()[:-1], f[2]))
        n += 1
        bad += f[2] == '(bad)'
print('disreal: %d instructions, %d bytes, %d undecodable' % (n, cut, bad))
