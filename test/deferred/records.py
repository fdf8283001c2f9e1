"""Reading a Stitch record stream (include/stitch/records.h) in the
deferred-unwinding tests (test/t/5*-deferred-*.t), through build/bin/stitch
--records-json, and naming the addresses in it with nm."""
import bisect
import json
import os
import subprocess
import sys
import tempfile

REC = dict(STREAM=1, COMM=2, MMAP=3, SAMPLE=4, DEFERRED=5, EXIT=6, LOST=7,
           STATS=8, END=9)
CTX_KERNEL = (1 << 64) - 128
CTX_USER = (1 << 64) - 512
CTX_USER_DEFERRED = (1 << 64) - 640
STOPS = []  # the unwind stop reasons by number, as stitch names them (parse)
SAMPLER, TRACER = 0, 1
EVENT_CPU_CLOCK, EVENT_SYSCALL = 0, 1
SAMPLE_USER, SAMPLE_STACK_COPY = 1, 2
MODES = ['none', 'sframe', 'fp', 'fp-deferred', 'stack-copy', 'guess',
         'validate', 'eh-frame', 'validate-eh']
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


def parse(data, counters=None):
    """The records of a stream as build/bin/stitch reads it (--records-json:
    the one decoder of the format), as dicts with the fields of
    include/stitch/records.h; REC_STREAM first. Empty if no REC_STREAM.
    counters, a dict, receives stitch's counters (junk_bytes, truncated,
    after_end...: what the stream's framing was like)."""
    with tempfile.NamedTemporaryFile(suffix='.bin') as f:
        f.write(data)
        f.flush()
        res = subprocess.run(['build/bin/stitch', '--records-json', '-', f.name],
                             capture_output=True)
    # 3: a damaged stream, read as far as it goes (its counters say how).
    if res.returncode not in (0, 3):
        raise subprocess.CalledProcessError(res.returncode, res.args, res.stdout, res.stderr)
    out = res.stdout
    d = json.loads(out)
    STOPS[:] = d['stop_names']
    if counters is not None:
        counters.update(d['stitch'])
    if not d['stream']:
        return []
    h = d['stream']
    recs = [dict(type=REC['STREAM'], version=h['version'], ncpus=h['ncpus'],
                 tsc_hz=h['tsc_hz'], mode=h['mode'], hz=h['sample_hz'],
                 max_frames=h['max_frames'])]
    return recs + [record(r) for r in d['records']]


def record(j):
    """One record of stitch's JSON: hex strings become numbers."""
    r = dict(j, type=REC[j['type'].upper()])
    for key in ('ip', 'cookie', 'start', 'len', 'pgoff'):
        if key in r:
            r[key] = int(r[key], 16)
    if 'ips' in r:
        r['ips'] = [int(v, 16) for v in r['ips']]
    if r['type'] == REC['SAMPLE']:
        r['copy'] = None
        if 'copy' in j:
            stack = bytes.fromhex(j['copy'])
            r['copy'] = {'regs': tuple(int(v, 16) for v in j['copy_regs']),
                         'size': len(stack), 'bytes': stack}
        split_chain(r)
    elif r['type'] == REC['DEFERRED']:
        r['user'] = r['ips'][1:] if r['ips'][:1] == [CTX_USER] else None
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


def user_samples(recs):
    """The samples of the programs (not of bsuite, which only starts them):
    all, the NMIs' (cpu-clock) and the tracer's (syscall)."""
    comm = {c['pid']: c['name'] for c in of(recs, 'COMM')}
    users = [s for s in of(recs, 'SAMPLE') if s['pid'] in comm and comm[s['pid']] != 'bsuite']
    return (users, [s for s in users if s['event'] == EVENT_CPU_CLOCK],
            [s for s in users if s['event'] == EVENT_SYSCALL])


def deferred_index(recs):
    """Every REC_DEFERRED by (tid, cookie, consumer)."""
    deferred = {}
    for d in of(recs, 'DEFERRED'):
        deferred.setdefault((d['tid'], d['cookie'], d['consumer']), []).append(d)
    return deferred


def answer_of(deferred, s):
    """Sample s's answer: the one REC_DEFERRED of its consumer for its
    (tid, cookie), or None when there is none or more than one."""
    r = deferred.get((s['tid'], s['cookie'], TRACER if s['event'] else SAMPLER), [])
    return r[0] if len(r) == 1 else None


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


def stats(recs):
    st = of(recs, 'STATS')
    return st[-1]['stats'] if st else {}


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
