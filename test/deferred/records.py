"""What the boot tests (test/t/5*-deferred-*.t and others) share: TAP
output, a boot, names for the addresses of a stream (nm), the workloads'
expected chains. The stream itself is read by tools/recstream.py, whose
names this module passes on."""
import bisect
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'tools'))
from recstream import *  # noqa: E402,F401,F403

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


class Symbols:
    """Names for addresses of one process (its REC_MMAPs) and the kernel,
    from nm and readelf on the full ELF files under ROOT."""
    cache = {}

    def __init__(self, recs, pid, since=0, until=None):
        """The mappings of pid made in [since, until) (an exec's COMM
        starts a new program's), and the kernel's."""
        self.maps = []
        for m in of(recs, 'MMAP'):
            in_life = m['pid'] == pid and since <= m['time'] and \
                (until is None or m['time'] < until)
            if in_life or m['flags'] & 1:
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
        """Leaf first; return addresses named by their call (addr - 1), but
        for the leaf and the frame over a signal frame (the trampoline's
        caller is the interrupted pc, which may be a function's first
        byte)."""
        out = []
        for i, a in enumerate(chain):
            exact = i == 0 or out[-1] == '__stitch_sigreturn'
            out.append(self.name(a if exact else a - 1))
        return out


def answered_chains(recs, pid):
    """pid's samples that asked for a deferred unwind: how many, how many
    have no answer or more than one, and the user chain of each answered
    one by name, leaf first ('' without a user chain)."""
    deferred = deferred_index(recs)
    every = [s for s in of(recs, 'SAMPLE') if s['pid'] == pid and s['cookie'] is not None]
    answers = [answer_of(deferred, s) for s in every]
    syms = Symbols(recs, pid)
    chains = [' '.join(syms.names(d['user'])) if d and d['user'] is not None else ''
              for d in answers if d]
    return len(every), answers.count(None), chains


def boot(cmdline, out, timeout=240, args=None):
    """Boots the kernel with cmdline; returns (records, console text).
    args: qemu-run options instead of the default below."""
    # The direct boot under icount: guest time is instructions retired, so
    # where the NMIs land, and how many, does not depend on how busy the
    # host is (under wall-clock timers a loaded host delivers fewer and
    # later NMIs, and the sample-count checks below became a matter of
    # luck). QEMU_RUN_ARGS replaces it, e.g. QEMU_RUN_ARGS= for OVMF.
    extra = args if args is not None else \
        os.environ.get('QEMU_RUN_ARGS', '--direct --icount').split()
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
    'execwork': [(r'execwork_down', r'^(execwork_down ){1,6}execwork_run' + BOTTOM)],
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
