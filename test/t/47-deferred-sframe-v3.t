#!/usr/bin/env python3
# The programs with their .sframe rewritten as version 3 (build/bin/sframe
# rewrite; make run SFRAME=v3's initrd, build/sframe/v3/initrd.cpio) boot
# and unwind as those ld 2.40 wrote (version 1): the kernel reads both
# through the same sframe/ library, at exec (PT_GNU_SFRAME of fib, chain,
# dlwork) and at dlopen (/lib/libdeep.so, which dlwork loads with the
# SDK's loader and registers with stacktrace_setup). The same suite in
# validate mode on both initrds (direct boot, -icount):
#   - each run's own-frame chains are the ones the programs' call
#     structure says (dlwork's before it removes the library's section,
#     as test 50 says), and libdw's unwind of the same NMI's stack copy
#     (build/bin/stitch's verdict) equals the deferred chain on every
#     sample but those of dlwork after that removal (its chain then ends
#     in the library) and those where the copy ends (as test 59 says);
#   - the version 3 run's chains agree with the version 1 run's: every
#     sample in chain_leaf (48 deep) has the one chain, the same in both;
#     dlwork's chains through libdeep.so are the same set in both.
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'deferred'))
os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
from records import *  # noqa: E402

SUITE = '/bin/fib:27,/bin/chain:48:600,/bin/dlwork:600'
SYS_STACKTRACE = 21
EXCUSES = ('the stack copy ended', 'a word below sp, not in the copy')
INITRDS = {'v1': 'build/initrd.cpio', 'v3': 'build/sframe/v3/initrd.cpio'}

if not all(os.path.exists(p) for p in [KERNEL] + list(INITRDS.values())):
    print('1..0 # SKIP kernel or initrds not built')
    sys.exit(0)
tmp = tempfile.mkdtemp(prefix='stitch-t47-')

# The copy's programs carry version 3 (test 17 checks them all).
for f in ('bin/fib', 'bin/chain', 'bin/dlwork', 'lib/libdeep.so'):
    out = subprocess.run(['build/bin/sframe', 'check', 'build/sframe/v3/stage/' + f],
                         capture_output=True, text=True).stdout
    tap(': ok: version 3 at' in out, 'the v3 copy of /%s has an .sframe of version 3' % f)


def run(v):
    out = '%s/%s.bin' % (tmp, v)
    recs, console, rc = boot('init=/bin/bsuite init.args=%s profile.mode=validate profile.hz=1000 '
                             'trace.syscalls=stacktrace_setup' % SUITE, out, args=['--direct', '--icount', '--initrd', INITRDS[v]])
    tap(rc == 0 and 'bsuite: 3 of 3 programs ok' in console and of(recs, 'END') and
        recs[0]['mode'] == MODES.index('validate') and stats(recs).get('fde_index_lookups', 0) > 0,
        '%s: the suite ran in validate mode, the stream is whole, the rules came from .sframe' % v)
    s = subprocess.run(['build/bin/stitch', '--symfs', ROOT, '--kernel', KERNEL, '-o', tmp + '/' + v,
                        '--stats', tmp + '/%s.json' % v, out], capture_output=True, text=True)
    js = json.load(open(tmp + '/%s.json' % v))['stitch'] if s.returncode == 0 else {}
    n, agree, short, below = (js.get(k, 0) for k in (
        'validate_samples', 'validate_agree', 'validate_copy_short', 'validate_copy_below'))
    report = open(tmp + '/%s/report.txt' % v).read() if s.returncode == 0 else ''
    comm = {c['pid']: c['name'] for c in of(recs, 'COMM')}
    users, nmi, traced = user_samples(recs)
    removed = {t['pid']: t['time'] for t in traced if t['aux'] == SYS_STACKTRACE}
    differ = re.findall(r'^  \w+ pid (\d+) tid \d+ time (\d+) ns: first difference at frame \d+'
                        r'(?: \((.*)\))?\n', report, re.M)
    excused = [d for d in differ if d[2] in EXCUSES or
               (comm.get(int(d[0])) == 'dlwork' and int(d[1]) >= removed.get(int(d[0]), 1 << 64))]
    tap(n >= 50 and agree + len(differ) == n and len(excused) == len(differ) and
        short + below <= len(differ),
        '%s: libdw\'s unwind of the stack copy equals the deferred chain on %d of %d samples; '
        'the other %d are dlwork\'s after the removal or end with the copy'
        % (v, agree, n, len(differ)))
    deferred = deferred_index(recs)
    chains = {}
    for smp in nmi:
        d = answer_of(deferred, smp)
        if d and d['user'] and smp['time'] < removed.get(smp['pid'], 1 << 64):
            names = Symbols(recs, smp['pid']).names(d['user'])
            chains.setdefault(comm[smp['pid']], []).append(names)
    for prog in ('fib', 'chain', 'dlwork'):
        own = [c for c in chains.get(prog, []) if expected(prog, c) is not None]
        bad = [c for c in own if not expected(prog, c)]
        tap(len(own) >= 3 and not bad, '%s: all %d samples of %s in its own frames have the '
            'chain its call structure says' % (v, len(own), prog))
        for c in bad[:3]:
            diag('  ' + ' <- '.join(c))
    return chains


v1, v3 = run('v1'), run('v3')
leaf = {v: {' '.join(c) for c in ch.get('chain', []) if c[0] == 'chain_leaf'}
        for v, ch in (('v1', v1), ('v3', v3))}
tap(len(leaf['v1']) == 1 and leaf['v1'] == leaf['v3'],
    'the chain of every sample in chain_leaf is the same one in v1 and v3')
lib = {v: {' '.join(c) for c in ch.get('dlwork', []) if c[0].startswith('deep_')}
       for v, ch in (('v1', v1), ('v3', v3))}
tap(lib['v1'] and lib['v1'] == lib['v3'],
    'dlwork\'s chains through libdeep.so (registered at dlopen): the same %d in v1 and v3'
    % len(lib['v1']))
done()
