#!/usr/bin/env python3
# The other unwinding modes on the same programs as test 50 (fib, chain,
# sfreg, cold: no frame pointers, SFrame on), one boot each at 1000 Hz:
#   fp           the frame-pointer walk inside the NMI writes the user chain
#                into the sample (PERF_CONTEXT_USER, no cookie, no deferred
#                record); on these binaries rbp is no frame pointer, so not
#                one sample in the programs' own frames gets the chain their
#                call structure says (which sframe mode gets for every one);
#   fp-deferred  the same walk, deferred: the cookies and records are there,
#                the chains are just as wrong;
#   stack-copy   in the NMI: PERF_CONTEXT_USER and the user ip, and the
#                registers and up to 8 KiB of stack for the host (its sp,
#                ip: those of the sample); no cookie, no deferred record;
#   guess        the stack scan for words inside registered text (LKML,
#                "x86: ORC unwinder", Josh Poimboeuf, 13 Jul 2017):
#                every true return address is on the stack, so the true
#                chain is contained, in order, in what it finds; its scan is
#                bounded (16 KiB above sp), so across cold's 16 KiB frames it
#                never reaches main;
#   sframe with profile.frames=32 and chain depth 200: the stream says the
#                bound, and every unwind in chain's frames stops max-frames
#                with exactly the first 32 frames of the true chain.
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'deferred'))
os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
from records import *  # noqa: E402

SUITE = '/bin/fib:29,/bin/chain:48:2000,/bin/sfreg:-:6:2000,/bin/cold:600'

if not all(os.path.exists(p) for p in (KERNEL, 'build/esp.img', ROOT + '/bin/cold')):
    print('1..0 # SKIP kernel, ESP or userland not built')
    sys.exit(0)
tmp = tempfile.mkdtemp(prefix='stitch-t51-')


def run(mode, suite=SUITE, extra=''):
    recs, console, rc = boot('init=/bin/bsuite init.args=%s profile.mode=%s '
                             'profile.hz=1000 %s' % (suite, mode, extra),
                             '%s/%s.bin' % (tmp, mode))
    n = suite.count(',') + 1
    tap(rc == 0 and 'bsuite: %d of %d programs ok' % (n, n) in console and
        of(recs, 'END') and recs[0]['mode'] == MODES.index(mode),
        '%s%s: the programs ran, the stream is whole and says mode %s'
        % (mode, ' ' + extra if extra else '', mode))
    return recs


def user_chains(recs):
    """(program, names of the user chain) of every NMI sample of the
    programs: the inline chain, or the sampler's deferred record."""
    comm = {c['pid']: c['name'] for c in of(recs, 'COMM')}
    deferred = {(d['tid'], d['cookie']): d for d in of(recs, 'DEFERRED')
                if d['consumer'] == SAMPLER}
    out = []
    for s in of(recs, 'SAMPLE'):
        if comm.get(s['pid']) in (None, 'bsuite') or s['event'] != EVENT_CPU_CLOCK:
            continue
        chain = s['user']
        if s['cookie']:
            d = deferred.get((s['tid'], s['cookie']))
            chain = d['user'] if d else None
        if chain:
            out.append((comm[s['pid']], Symbols(recs, s['pid']).names(chain), s))
    return out


def own(chains):
    return [(p, n) for p, n, s in chains if expected(p, n) is not None]


# fp: in the NMI, inline.
recs = run('fp')
st = stats(recs)
chains = user_chains(recs)
samples = [s for p, n, s in chains]
tap(samples and all(s['cookie'] is None and s['user'][0] == s['ip'] for s in samples
                    if s['flags'] & SAMPLE_USER) and not of(recs, 'DEFERRED')
    and st.get('deferred_requests') == 0,
    'fp: %d samples carry PERF_CONTEXT_USER and their chain, no cookie, no deferred '
    'record' % len(samples))
mine = own(chains)
right = [n for p, n in mine if expected(p, n)]
tap(len(mine) >= 8 and not right,
    'fp: none of the %d samples in the programs\' own frames has the right chain '
    '(typical: %s)' % (len(mine), ' <- '.join(mine[0][1]) if mine else '-'))

# fp-deferred: deferred, still frame pointers.
recs = run('fp-deferred')
st = stats(recs)
chains = user_chains(recs)
mine = own(chains)
right = [n for p, n in mine if expected(p, n)]
tap(len(mine) >= 8 and not right and st.get('unwinds_run', 0) > 0 and
    st.get('unwind_page_faults') == 0,
    'fp-deferred: %d deferred unwinds in own frames, none right; no .sframe read '
    '(no page fault)' % len(mine))

# stack-copy: registers and stack for the host.
recs = run('stack-copy')
user = [s for p, n, s in user_chains(recs)]


def faulting_in(s):
    """The NMI came while the kernel faulted in a page for the task: its
    stack page may not be present yet, and the copy then has 0 bytes
    (counted in stack_copy_truncated)."""
    return 'uvm_fault' in Symbols(recs, s['pid']).names(s['kernel'])


good = [s for s in user if s['copy'] and s['user'] == [s['copy']['regs'][8]] and
        (0 < s['copy']['size'] or faulting_in(s)) and s['copy']['size'] <= 8192 and
        s['cookie'] is None and
        (not s['flags'] & SAMPLE_USER or s['copy']['regs'][8] == s['ip'])]
tap(len(user) >= 8 and len(good) == len(user) and not of(recs, 'DEFERRED'),
    'stack-copy: all %d samples carry the user ip and a copy (registers, %d..%d bytes '
    'of stack), no cookie' % (len(user), min(s['copy']['size'] for s in good) if good else 0,
                              max(s['copy']['size'] for s in good) if good else 0))
for s in [s for s in user if s not in good][:3]:
    diag('not a whole stack-copy sample: ip %#x flags %#x user %s cookie %s copy %s' % (
        s['ip'], s['flags'], [hex(a) for a in s['user']], s['cookie'],
        s['copy'] and {'size': s['copy']['size'], 'ip': hex(s['copy']['regs'][8])}))
if of(recs, 'DEFERRED'):
    diag('deferred records in stack-copy mode: %d' % len(of(recs, 'DEFERRED')))

# guess: a superset, bounded. Where the leaf fixes the true chain (chain's
# and sfreg's deepest leaf; fib's outer frames), it must be a subsequence of
# what the scan found: stale return addresses may come in between.
TRUE = {'chain_leaf': ['chain_leaf'] + ['chain_%d' % k for k in range(48, 0, -1)],
        'sfreg_leaf': ['sfreg_leaf'] + ['sfreg_down'] * 6 + ['sfreg_run'],
        'fib_recursive': ['fib_recursive', 'fib_rounds']}


def subsequence(want, got):
    it = iter(got)
    return all(any(g == w for g in it) for w in want)


recs = run('guess')
chains = user_chains(recs)
contained, bad, cold_short = 0, [], 0
for p, n, s in chains:
    if p == 'cold' and expected(p, n) is not None:
        cold_short += 'main' not in n
    if n[0] not in TRUE:
        continue
    if subsequence(TRUE[n[0]] + ['main', 'stitch_start', '_start'], n):
        contained += 1
    else:
        bad.append(n)
tap(contained >= 8 and not bad,
    'guess: all %d samples in the deepest frames of fib, chain, sfreg contain their '
    'true chain in order' % contained)
for n in bad[:3]:
    diag('  ' + ' <- '.join(n))
tap(cold_short >= 3 and all('main' not in n for p, n, s in chains
                            if p == 'cold' and expected(p, n) is not None),
    'guess: cold\'s 16 KiB frames put main beyond the 16 KiB scan: %d chains stop '
    'short' % cold_short)

# The bound.
recs = run('sframe', '/bin/chain:200:1500', 'profile.frames=32')
deep = [(n, s) for p, n, s in user_chains(recs) if p == 'chain' and n[0] == 'chain_leaf']
deferred = {(d['tid'], d['cookie']): d for d in of(recs, 'DEFERRED')}
want = ['chain_leaf'] + ['chain_%d' % k for k in range(200, 169, -1)]
tap(recs[0]['max_frames'] == 32 and deep and
    all(n == want and STOPS[deferred[(s['tid'], s['cookie'])]['stop']] == 'max-frames'
        for n, s in deep) and stats(recs).get('unwind_stop_max_frames', 0) >= len(deep),
    'profile.frames=32: all %d unwinds in chain_leaf (depth 200) stop max-frames with '
    'its first 32 frames' % len(deep))
done()
