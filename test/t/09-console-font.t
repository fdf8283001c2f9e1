#!/usr/bin/env python3
# tools/psf2c, the build step that turns a Linux console font into the
# kernel's framebuffer font (build/kernel/font.c): fonts made here, PSF 1
# and PSF 2, with Unicode tables that put 'A' at another glyph than 0x41;
# the glyph rows come out for the right characters; fonts it cannot use
# (cut short, not 8 pixels wide, no glyph for a printable character, not
# PSF) are refused with exit status 1 and a message; and the Debian font
# the kernel is built with converts.
import gzip
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'deferred'))
os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
from records import diag, done, tap  # noqa: E402

tmp = tempfile.mkdtemp(prefix='stitch-t09-')
H = 16


def glyph(i):
    """A distinct pattern per glyph index."""
    return bytes((i * 7 + r * 13) & 0xff for r in range(H))


def psf1(count=256, table=True, cut=0):
    data = struct.pack('<BBBB', 0x36, 0x04, 0x02 if table else 0, H)
    data += b''.join(glyph(i) for i in range(count))
    if table:
        # Glyph i shows character (i + 1) % 256: 'A' (0x41) is glyph 0x40.
        for i in range(count):
            data += struct.pack('<HH', (i + 1) % 256, 0xffff)
    return data[:len(data) - cut] if cut else data


def psf2(width=8, count=256):
    rowbytes = (width + 7) // 8
    size = rowbytes * H
    data = struct.pack('<8I', 0x864ab572, 0, 32, 1, count, size, H, width)
    data += b''.join(glyph(i)[:size].ljust(size, b'\0') for i in range(count))
    for i in range(count):  # glyph i shows character (i + 2) % 256, UTF-8
        data += chr((i + 2) % 256).encode() + b'\xff'
    return data


def convert(name, data, gz=False):
    path = os.path.join(tmp, name)
    with open(path, 'wb') as f:
        f.write(gzip.compress(data) if gz else data)
    out = os.path.join(tmp, name + '.c')
    p = subprocess.run(['tools/psf2c', path, out], capture_output=True, text=True)
    rows = {}
    if p.returncode == 0:
        for m in re.finditer(r'\[(\d+)\] = \{ ([^}]*) \}', open(out).read()):
            rows[0x20 + int(m.group(1))] = bytes(int(x, 16) for x in m.group(2).split(', '))
    return p, rows


p, rows = convert('one.psf.gz', psf1(), gz=True)
tap(p.returncode == 0 and len(rows) == 95 and rows.get(0x41) == glyph(0x40)
    and rows.get(0x20) == glyph(0x1f) and rows.get(0x7e) == glyph(0x7d),
    'PSF 1, gzipped: the 95 printable characters, each from its glyph in the Unicode table')
p, rows = convert('two.psf', psf2())
tap(p.returncode == 0 and rows.get(0x41) == glyph(0x3f) and rows.get(0x7e) == glyph(0x7c),
    'PSF 2: glyphs found through its UTF-8 Unicode table')
p, rows = convert('plain.psf', psf1(table=False))
tap(p.returncode == 0 and rows.get(0x41) == glyph(0x41),
    'PSF 1 without a table: glyph n is character n')

for name, data, why in (('cut.psf', psf1(table=False, cut=100), 'cut short'),
                        ('cuttab.psf', psf1(cut=3), 'the Unicode table is cut short'),
                        ('wide.psf', psf2(width=9), 'only 8-pixel-wide'),
                        ('none.psf', b'not a font at all', 'not a PSF font')):
    p, rows = convert(name, data)
    tap(p.returncode == 1 and why in p.stderr,
        'refused, exit 1: %s (%s)' % (why, p.stderr.strip()))

# A table with no glyph for '~': refused by name.
font = bytearray(psf1())
tilde = font.index(struct.pack('<HH', 0x7e, 0xffff), 4 + 256 * H)
font[tilde:tilde + 2] = struct.pack('<H', 0x2603)
p, rows = convert('notilde.psf', bytes(font))
tap(p.returncode == 1 and "no glyph for '~'" in p.stderr,
    'refused, exit 1: a printable character without a glyph (%s)' % p.stderr.strip())

# The kernel's font, as the build converts it.
font = '/usr/share/consolefonts/Lat15-TerminusBold16.psf.gz'
if os.path.exists(font):
    p, rows = convert('terminus.psf.gz', open(font, 'rb').read())
    blank = rows.get(0x20) == bytes(H)
    tap(p.returncode == 0 and len(rows) == 95 and blank and
        len(set(rows.values())) == 95,
        "Debian's Lat15-TerminusBold16 converts: 95 distinct glyphs, the space blank")
else:
    diag('console-setup-linux is not installed: its font is not checked')
shutil.rmtree(tmp, ignore_errors=True)
done()
