#!/usr/bin/env python3
# Real workloads (mk/binutils.mk, docs/USERLAND.md "Real workloads"): code
# from the binutils 2.40 tarball of Debian's binutils-source, built with
# the SDK's flags, on real inputs, profiled with deferred SFrame unwinding.
#   /bin/zreal   zlib 1.2.12: newlib's libm.a (no DWARF) deflated and
#                inflated back, and the host's level-9 stream inflated;
#   /bin/dmreal  libiberty's demangler: the 5000-odd "_Z" dynamic symbols
#                of Debian's libstdc++.so.6, as c++filt demangles them;
#   /bin/rxreal  libiberty's regex.c: libiberty's ChangeLog searched for
#                eight extended regular expressions, as grep -E does;
#   /bin/disreal opcodes' x86 printer: the first 16 KiB-odd of the kernel's
#                .text, as objdump disassembles the same bytes.
# Two boots (direct, -icount, 1000 Hz), one after the other under
# /bin/bsuite, a few seconds of guest time each:
#   sframe    the programs' output equals the host's oracle line for line
#             (build/real/zreal.expected: python3's zlib; dmreal.expected:
#             c++filt on the same list; rxreal.expected: GNU grep -E -n;
#             disreal.expected: objdump -D -b binary); every sample has its
#             deferred stack, and every one ends "main stitch_start _start",
#             all frames named, with the kernel's stop reason "end", or
#             says why not (deferred_stacks: a leaf without SFrame, or
#             sys_exit after the address space is gone);
#   validate  the same output and the same stacks; the deferred SFrame
#             chains against libdw's unwind of the stack copy taken in the
#             same NMI, in this mode the whole stack in use (stitch --stats
#             and report.txt; the demangler and the regex matcher keep
#             several KiB of arrays on the stack, past the 8 KiB a
#             stack-copy sample carries): every sample agrees, or libdw's
#             chain is a prefix cut for a word the copy does not hold, which
#             stitch says and counts; never a different frame.
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'deferred'))
os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
from records import *  # noqa: E402

PROGS = ('zreal', 'dmreal', 'rxreal', 'disreal')
EXPECTED = {p: 'build/real/%s.expected' % p for p in PROGS}
SUITE = ','.join('/bin/' + p for p in PROGS)

if not all(os.path.exists(p) for p in
           [KERNEL] + [ROOT + '/bin/' + p for p in PROGS] + list(EXPECTED.values())):
    print('1..0 # SKIP kernel, userland or the real workloads\' oracles not built')
    sys.exit(0)
tmp = tempfile.mkdtemp(prefix='stitch-t58-')


def fnv1a(data):
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xffffffffffffffff
    return h


def check_output(mode, console):
    lines = [l.rstrip('\r') for l in console.split('\n')]
    # zreal: the three lines the oracle states, in order; its own deflate
    # is reported (another zlib release may compress differently).
    want = [l for l in open(EXPECTED['zreal']).read().split('\n') if l and l[0] != '#']
    got = [l for l in lines if l.startswith('zreal: ') and not l.startswith('zreal: deflate level')]
    tap(got == want, '%s: zreal prints what the host\'s zlib says (%s)'
        % (mode, want[0][len('zreal: '):] if want else '?'))
    if got != want:
        diag('guest: %s\nhost:  %s' % (got, want))
    own = [l for l in lines if 'zreal: deflate level 6: ' in l]
    host = [l for l in open(EXPECTED['zreal']).read().split('\n') if l.startswith('# ')]
    diag('%s: guest %s; host %s' % (mode, own[0][7:] if own else '?', host[0][9:] if host else '?'))
    # dmreal: c++filt's lines, then its summary line with the count and
    # the FNV-1a of those lines.
    text = open(EXPECTED['dmreal']).read()
    want = text.split('\n')[:-1]
    try:
        i = lines.index(want[0])
    except ValueError:
        i = -1
    got = lines[i:i + len(want)] if i >= 0 else []
    bad = [k for k in range(len(want)) if k >= len(got) or got[k] != want[k]]
    names = open(ROOT + '/data/real-cxxsyms.txt').read().split('\n')[:-1]
    summary = 'dmreal: %d names, %d demangled, checksum=%016x' % (
        len(want), sum(1 for a, b in zip(names, want) if a != b), fnv1a(text.encode()))
    tap(want and not bad and summary in lines,
        '%s: dmreal demangles all %d names as c++filt does' % (mode, len(want)))
    for k in bad[:3]:
        diag('line %d: guest %r, c++filt %r' % (k + 1, got[k] if k < len(got) else None, want[k]))
    if summary not in lines:
        diag('expected %r; guest: %s' % (summary, [l for l in lines if l.startswith('dmreal: ')]))
    # rxreal: grep -E -n's lines for each pattern, then the pattern's count.
    want = open(EXPECTED['rxreal']).read().split('\n')[:-1]
    got = [l for l in lines if re.match(r'rx\d+:\d+:|rxreal: ', l)]
    counts = [l for l in want if l.startswith('rxreal: ')]
    tap(len(counts) == 8 and got == want,
        '%s: rxreal matches %d lines for %d patterns as grep -E does'
        % (mode, len(want) - len(counts), len(counts)))
    first_differences(got, want, 'grep')
    # disreal: objdump's instruction text at each address, then the count.
    want = open(EXPECTED['disreal']).read().split('\n')[:-1]
    got = [l for l in lines if re.match(r'[0-9a-f]+: |disreal: ', l)]
    tap(len(want) > 1000 and got == want,
        '%s: disreal disassembles %d instructions as objdump does' % (mode, len(want) - 1))
    first_differences(got, want, 'objdump')


def first_differences(got, want, oracle):
    for k in [k for k in range(max(len(got), len(want)))
              if k >= len(got) or k >= len(want) or got[k] != want[k]][:3]:
        diag('line %d: guest %r, %s %r' % (k + 1, got[k] if k < len(got) else None, oracle,
                                           want[k] if k < len(want) else None))


def boot_mode(mode):
    recs, console, rc = boot('init=/bin/bsuite init.args=%s profile.mode=%s profile.hz=1000'
                             % (SUITE, mode), '%s/%s.bin' % (tmp, mode), timeout=300)
    tap(rc == 0 and 'bsuite: 4 of 4 programs ok' in console and of(recs, 'END')
        and recs[0]['mode'] == MODES.index(mode),
        '%s: the %d programs ran, the stream is whole and says mode %s' % (mode, len(PROGS), mode))
    if rc != 0 or not recs:
        diag(console[-2000:])
    return recs, console


def no_fde(path, pc):
    r = subprocess.run(['build/bin/sframe', 'lookup', path, '0x%x' % pc],
                       capture_output=True, text=True)
    return 'no FDE for pc' in r.stdout


def deferred_stacks(mode, recs):
    """Every sample's deferred stack reaches _start, all frames named, and
    the kernel's unwind says it stopped at the end; or it says why not: a
    leaf pc without any SFrame FDE, which `sframe lookup` on the host
    confirms (newlib's memcpy and memset are assembly without CFI), where
    the kernel's stop reason is its frame-pointer fallback's (no-info,
    bad-frame: the SDK keeps no frame pointers); or a sample in sys_exit
    after the address space is gone, which has no user stack to ask for."""
    comm = {c['pid']: c['name'] for c in of(recs, 'COMM')}
    deferred = {(d['tid'], d['cookie']): d for d in of(recs, 'DEFERRED')
                if d['consumer'] == SAMPLER}
    for prog in PROGS:
        samples = [s for s in of(recs, 'SAMPLE') if comm.get(s['pid']) == prog
                   and s['event'] == EVENT_CPU_CLOCK]
        whole, leafless, exiting, bad, frames = 0, {}, 0, [], 0
        for s in samples:
            sy = Symbols(recs, s['pid'])
            if not s['cookie'] and s['user'] is None and 'sys_exit' in sy.names(s['kernel']):
                exiting += 1
                continue
            d = deferred.get((s['tid'], s['cookie'])) if s['cookie'] else None
            chain = d['user'] if d else None
            if not chain:
                bad.append((s, 'no deferred stack'))
                continue
            names = sy.names(chain)
            stop = STOPS[d['stop']]
            frames += len(chain)
            if names[-3:] == ['main', 'stitch_start', '_start'] and '?' not in names \
                    and stop == 'end':
                whole += 1
            elif len(chain) == 1 and stop in ('no-info', 'bad-frame') \
                    and no_fde(ROOT + '/bin/' + prog, chain[0]):
                leafless[stop] = leafless.get(stop, 0) + 1
            else:
                bad.append((s, '%s (stop: %s)' % (' <- '.join(names), stop)))
        tap(len(samples) >= 50 and not bad,
            '%s: %s: %d samples, %d deferred stacks down to _start (%.1f frames each), '
            '%d stopped at a leaf without SFrame (%s), %d in sys_exit without a user stack'
            % (mode, prog, len(samples), whole, frames / max(1, whole + sum(leafless.values())),
               sum(leafless.values()), ', '.join('%s %d' % x for x in sorted(leafless.items()))
               or 'none', exiting))
        for s, why in bad[:5]:
            diag('  time %d: %s' % (s['time'], why))


# 1. sframe mode.
recs, console = boot_mode('sframe')
check_output('sframe', console)
deferred_stacks('sframe', recs)

# 2. validate mode: the stack copy is the whole stack in use (as far as a
# record has room), so libdw's unwind of it reaches _start too. It starts
# at sp: a sample in an epilogue whose CFI still points below sp at a
# register it has popped (the red zone) leaves libdw without that word.
# stitch counts both cases apart (validate_copy_short, _below), by the
# read at which libdw stopped; a difference of another kind is a wrong
# frame. Those are a few samples: 95% or more agree.
recs, console = boot_mode('validate')
check_output('validate', console)
deferred_stacks('validate', recs)
run = subprocess.run(['build/bin/stitch', '--symfs', ROOT, '--kernel', KERNEL, '-o', tmp + '/v',
                      '--stats', tmp + '/v.json', tmp + '/validate.bin'],
                     capture_output=True, text=True)
st = json.load(open(tmp + '/v.json'))['stitch'] if run.returncode == 0 else {}
report = open(tmp + '/v/report.txt').read() if run.returncode == 0 else ''
n, agree, differ, short, below = (st.get(k, 0) for k in (
    'validate_samples', 'validate_agree', 'validate_disagree', 'validate_copy_short',
    'validate_copy_below'))
tap(run.returncode == 0 and n >= 100 and agree >= 0.95 * n and agree + short + below == n and
    differ == short + below,
    'validate: the SFrame chain equals libdw\'s unwind of the stack copy on %d of %d samples (95%% or more); '
    'the other %d are libdw\'s chain cut short for a word the copy does not hold '
    '(%d past its end, %d below sp: the red zone), none a different frame'
    % (agree, n, differ, short, below))
for x in re.findall(r'^  (\w+) pid \d+ tid \d+ time \d+ ns: (first difference.*)\n'
                    r'    sframe: (.*)\n    libdw:  (.*)\n', report, re.M):
    diag('  %s: %s\n    sframe %s\n    libdw  %s' % x)
done()
