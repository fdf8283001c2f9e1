"""Reading a Stitch record stream (include/stitch/records.h) in the
deferred-unwinding tests (test/t/5*-deferred-*.t), and naming the
addresses in it with nm: an independent check of the kernel's records
(tools/stitch is the other reader)."""
import bisect
import os
import struct
import subprocess
import sys

MAGIC = 0x5352484354495453
REC = dict(STREAM=1, COMM=2, MMAP=3, SAMPLE=4, DEFERRED=5, EXIT=6, LOST=7,
           STATS=8, END=9)
CTX_KERNEL = (1 << 64) - 128
CTX_USER = (1 << 64) - 512
CTX_USER_DEFERRED = (1 << 64) - 640
STOPS = ['end', 'max-frames', 'fault', 'no-info', 'bad-sframe', 'bad-frame',
         'task-exited', 'signal-frame']
SAMPLER, TRACER = 0, 1
EVENT_CPU_CLOCK, EVENT_SYSCALL = 0, 1
SAMPLE_USER, SAMPLE_STACK_COPY = 1, 2
MODES = ['none', 'sframe', 'fp', 'fp-deferred', 'stack-copy', 'guess',
         'validate']
ROOT = 'build/userland/root'
KERNEL = 'build/kernel/kernel.elf'

n_tests = 0


def tap(ok, name):
    global n_tests
    n_tests += 1
    print('%s %d - %s' % ('ok' if ok else 'not ok', n_tests, name))
    sys.stdout.flush()
    return ok


def diag(text):
    for line in str(text).splitlines():
        print('# ' + line)
    sys.stdout.flush()


def done():
    print('1..%d' % n_tests)


def parse(data):
    """The records after the first REC_STREAM header, as dicts."""
    start = 0
    while True:
        start = data.find(struct.pack('<II', REC['STREAM'], 48), start)
        if start < 0 or struct.unpack_from('<Q', data, start + 8)[0] == MAGIC:
            break
        start += 1
    if start < 0:
        return []
    return [decode(typ, body) for typ, body in split(data, start)[0]]


def split(data, start=0):
    """(type, body) of every whole record from start on, and the offset
    where that stopped (a cut or malformed record, or the end)."""
    out, off = [], start
    while off + 8 <= len(data):
        typ, size = struct.unpack_from('<II', data, off)
        if size < 8 or size % 8 or off + size > len(data):
            break
        out.append((typ, data[off:off + size]))
        off += size
    return out, off


def decode(typ, b):
    r = {'type': typ, 'size': len(b)}
    if typ == REC['STREAM']:
        (_, _, r['version'], r['ncpus'], r['tsc_hz'], r['mode'], r['hz'],
         r['max_frames'], _) = struct.unpack_from('<QQIIQIIII', b, 0)
    elif typ == REC['COMM']:
        r['time'], r['pid'], r['tid'], r['ppid'] = struct.unpack_from('<QIII', b, 8)
        r['name'] = b[32:48].split(b'\0')[0].decode()
    elif typ == REC['MMAP']:
        (r['time'], r['pid'], r['tid'], r['start'], r['len'], r['pgoff'],
         r['flags'], idsz) = struct.unpack_from('<QIIQQQII', b, 8)
        r['path'] = b[80:].split(b'\0')[0].decode()
    elif typ == REC['SAMPLE']:
        (r['time'], r['cpu'], r['pid'], r['tid'], r['event'], r['flags'],
         r['ip'], r['period'], r['aux'], nr) = struct.unpack_from('<QIIIHHQQII', b, 8)
        r['ips'] = list(struct.unpack_from('<%dQ' % nr, b, 56))
        r['copy'] = None
        if r['flags'] & SAMPLE_STACK_COPY:
            at = 56 + 8 * nr
            regs = struct.unpack_from('<18Q', b, at)
            size = struct.unpack_from('<Q', b, at + 144)[0]
            r['copy'] = {'regs': regs, 'size': size,
                         'bytes': b[at + 152:at + 152 + size]}
        split_chain(r)
    elif typ == REC['DEFERRED']:
        (r['time'], r['cpu'], r['pid'], r['tid'], r['stop'], r['cookie'],
         r['period'], nr, r['consumer']) = struct.unpack_from('<QIIIIQQII', b, 8)
        r['ips'] = list(struct.unpack_from('<%dQ' % nr, b, 56))
        r['user'] = r['ips'][1:] if r['ips'][:1] == [CTX_USER] else None
    elif typ == REC['EXIT']:
        r['time'], r['pid'], r['tid'], r['status'] = struct.unpack_from('<QIIi', b, 8)
    elif typ == REC['LOST']:
        r['cpu'], _, r['count'] = struct.unpack_from('<IIQ', b, 8)
    elif typ == REC['STATS']:
        count = struct.unpack_from('<I', b, 8)[0]
        r['stats'] = {}
        for i in range(count):
            name, value = struct.unpack_from('<32sQ', b, 16 + 40 * i)
            r['stats'][name.split(b'\0')[0].decode()] = value
    return r


def split_chain(s):
    """kernel frames, user frames (inline), cookie (deferred) of a sample."""
    s['kernel'], s['user'], s['cookie'] = [], None, None
    part = None
    ips = s['ips']
    i = 0
    while i < len(ips):
        v = ips[i]
        if v == CTX_KERNEL:
            part = s['kernel']
        elif v == CTX_USER:
            s['user'] = []
            part = s['user']
        elif v == CTX_USER_DEFERRED:
            s['cookie'] = ips[i + 1] if i + 1 < len(ips) else 0
            i += 1
            part = None
        elif part is not None:
            part.append(v)
        i += 1


def of(recs, name):
    return [r for r in recs if r['type'] == REC[name]]


def stats(recs):
    st = of(recs, 'STATS')
    return st[-1]['stats'] if st else {}


class Symbols:
    """Names for addresses of one process (its REC_MMAPs) and the kernel,
    from nm and readelf on the full ELF files under ROOT."""
    cache = {}

    def __init__(self, recs, pid):
        self.maps = []
        for m in of(recs, 'MMAP'):
            if m['pid'] == pid or m['flags'] & 1:
                path = KERNEL if m['flags'] & 1 else ROOT + m['path']
                self.maps.append((m['start'], m['start'] + m['len'],
                                  self.bias(path, m), path))

    @classmethod
    def elf(cls, path):
        if path not in cls.cache:
            out = subprocess.run(['nm', '-n', '--defined-only', path],
                                 capture_output=True, text=True).stdout
            syms = []
            for line in out.splitlines():
                f = line.split()
                if len(f) == 3 and f[1] in 'tTwW':
                    syms.append((int(f[0], 16), f[2]))
            loads = []
            out = subprocess.run(['readelf', '-lW', path], capture_output=True,
                                 text=True).stdout
            for line in out.splitlines():
                f = line.split()
                if f[:1] == ['LOAD']:
                    loads.append((int(f[1], 16), int(f[2], 16)))
            cls.cache[path] = (syms, [a for a, _ in syms], loads)
        return cls.cache[path]

    def bias(self, path, m):
        if not os.path.exists(path):
            return 0
        for off, vaddr in self.elf(path)[2]:
            if off & ~0xfff == m['pgoff']:
                return m['start'] - (vaddr & ~0xfff)
        return 0

    def name(self, addr):
        for lo, hi, bias, path in self.maps:
            if lo <= addr < hi and os.path.exists(path):
                syms, addrs, _ = self.elf(path)
                i = bisect.bisect_right(addrs, addr - bias) - 1
                return syms[i][1] if i >= 0 else '?'
        return '?'

    def names(self, chain):
        """Leaf first; return addresses named by their call (addr - 1)."""
        return [self.name(a if i == 0 else a - 1) for i, a in enumerate(chain)]


def boot(cmdline, out, timeout=240):
    """Boots the kernel with cmdline; returns (records, console text)."""
    # The direct boot under icount: guest time is instructions retired, so
    # where the NMIs land, and how many, does not depend on how busy the
    # host is (under wall-clock timers a loaded host delivers fewer and
    # later NMIs, and the sample-count checks below became a matter of
    # luck). QEMU_RUN_ARGS replaces it, e.g. QEMU_RUN_ARGS= for OVMF.
    extra = os.environ.get('QEMU_RUN_ARGS', '--direct --icount').split()
    rc = subprocess.run(['tools/qemu-run'] + extra + ['--cmdline', cmdline, '--records',
                         out, '--timeout', str(timeout)],
                        capture_output=True, text=True)
    data = open(out, 'rb').read() if os.path.exists(out) else b''
    return parse(data), rc.stdout + rc.stderr, rc.returncode


# The workloads' known call structure: for a sample whose user leaf is one
# of a program's own frames (leaf pattern), the whole deferred chain, leaf
# first, must match the chain pattern. Names are joined with spaces.
BOTTOM = r' main stitch_start _start$'
EXPECT = {
    'fib': [(r'fib_recursive', r'^(fib_recursive )+fib_rounds' + BOTTOM),
            (r'fib_rounds', r'^fib_rounds' + BOTTOM)],
    'chain': [(r'chain_leaf', r'^chain_leaf ' +
               ' '.join('chain_%d' % k for k in range(48, 0, -1)) +
               ' chain_run' + BOTTOM),
              (r'chain_\d+', None)],   # checked by chain_prefix()
    'reader': [(r'read', r'^read read_file reader_rounds' + BOTTOM),
               (r'read_file', r'^read_file reader_rounds' + BOTTOM)],
    'cold': [(r'cold_leaf|cold_fn\d+',
              r'^(cold_leaf|cold_fn\d+) cold_mid cold_big cold_big cold_run' + BOTTOM),
             (r'cold_mid', r'^cold_mid cold_big cold_big cold_run' + BOTTOM)],
    'sfreg': [(r'sfreg_leaf', r'^sfreg_leaf( sfreg_down){6} sfreg_run' + BOTTOM),
              (r'sfreg_down', r'^(sfreg_down ){1,6}sfreg_run' + BOTTOM)],
    'sfbad': [(r'sfbad_leaf', r'^sfbad_leaf sfbad_work' + BOTTOM)],
    'dlwork': [(r'deep_leaf|deep_twist|dlwork_callback',
                r'^(deep_leaf (deep_twist )?|dlwork_callback )deep_mid deep_run '
                r'dlwork_phase' + BOTTOM),
               (r'deep_mid', r'^deep_mid deep_run dlwork_phase' + BOTTOM)],
}
CHAIN_DEPTH = 48


def expected(prog, names):
    """None: not a sample of the program's own frames; else True/False:
    its chain is / is not the one the program's structure says."""
    import re
    if not names:
        return None
    for leaf, chain in EXPECT.get(prog, []):
        if not re.fullmatch(leaf, names[0]):
            continue
        if chain is None:  # chain_k: chain_k ... chain_1 chain_run main ...
            k = int(names[0].split('_')[1])
            want = ['chain_%d' % i for i in range(k, 0, -1)] + \
                ['chain_run', 'main', 'stitch_start', '_start']
            return k <= CHAIN_DEPTH and names == want
        return re.search(chain, ' '.join(names)) is not None
    return None
