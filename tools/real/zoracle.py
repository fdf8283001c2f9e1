#!/usr/bin/env python3
"""zoracle.py FILE GUEST-PATH ZOUT ZGUEST-PATH: the oracle of /bin/zreal (mk/binutils.mk).

Writes ZOUT, FILE compressed by the host's zlib (python3's zlib module,
level 9), which the guest inflates; prints on stdout the lines zreal must
print for FILE (known in the guest as GUEST-PATH, ZOUT as ZGUEST-PATH), the checksums computed
by the host's zlib, and, after a '#', the host's own level-6 deflate
(size and CRC-32), which test 33 only reports: another zlib release may
compress differently and still be right."""
import sys
import zlib

path, guest, zout, zguest = sys.argv[1:5]
data = open(path, 'rb').read()
z9 = zlib.compress(data, 9)
with open(zout, 'wb') as f:
    f.write(z9)
z6 = zlib.compress(data, 6)
print('zreal: %s: %d bytes crc32=%08x adler32=%08x'
      % (guest, len(data), zlib.crc32(data), zlib.adler32(data)))
print('zreal: inflate(deflate level 6): %d bytes, identical' % len(data))
print('zreal: inflate %s (%d bytes): %d bytes, identical'
      % (zguest, len(z9), len(data)))
print('# zreal: deflate level 6: %d bytes crc32=%08x  (host zlib %s)'
      % (len(z6), zlib.crc32(z6), zlib.ZLIB_RUNTIME_VERSION))
