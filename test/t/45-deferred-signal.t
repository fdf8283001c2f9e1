#!/usr/bin/env python3
# Samples in a signal handler (docs/DEFERRED.md, "Signal frames"): boots of
# /bin/sigwork, whose SIGALRM handler works at 1 kHz, under -icount. A
# sample whose user leaf is in the handler's work must stitch to
#   sigwork_hwork ... sigwork_handler __stitch_sigreturn <the interrupted
#   function> ... main stitch_start _start
# through the signal page's trampoline, whose .sframe (version 3, signal
# mark) or .eh_frame ('S') hands the walk to the signal frame:
#   - sframe on 1 CPU and on 4, eh-frame: every handler sample whole, the
#     steps out of the signal frame counted (unwind_signal_frames), none
#     stopped signal-frame;
#   - fp-deferred (/bin/sigwork-fp, frame pointers): the signal frame read
#     by the same step, into the interrupted function and on by its frame
#     pointer to main; beyond, what frame pointers always give here (the
#     caller of a leaf that keeps no frame is skipped, and the SDK's start
#     code has no frame pointer: the walk ends there, bad-frame);
#   - in each of those boots the tracer samples every sigreturn
#     (trace.syscalls=sigreturn): each entry's deferred stack is the one
#     it was made on, the trampoline's over the signal frame,
#       __stitch_sigreturn <the interrupted function> ... main ...
#     unwound before sigreturn puts the interrupted registers back, not
#     the interrupted function's without the trampoline (as an NMI that
#     hits inside sigreturn sees it in its stack copy);
#   - validate and validate-eh: libdw, unwinding the stack copy with the
#     signal page's .eh_frame, agrees with the deferred SFrame chain, and
#     with the .eh_frame one, on every sample, 20 or more of them samples
#     in the handler; and so for /bin/demo (its signal workload among the
#     others) under validate-eh.
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'deferred'))
os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
from records import *  # noqa: E402

if not all(os.path.exists(p) for p in (KERNEL, ROOT + '/bin/sigwork', ROOT + '/lib/sigpage')):
    print('1..0 # SKIP kernel or userland not built')
    sys.exit(0)
tmp = tempfile.mkdtemp(prefix='stitch-t45-')
# The signal lands in sigwork_spin (called by sigwork_run) or in
# sigwork_run's own loop: the interrupted function is one of the two, and
# sigwork_run is always on the chain.
CHAIN = re.compile(r'^(sigwork_hwork )+sigwork_handler __stitch_sigreturn '
                   r'(sigwork_spin )?sigwork_run main stitch_start _start$')
FP_CHAIN = re.compile(r'^(sigwork_hwork )+sigwork_handler __stitch_sigreturn '
                      r'(sigwork_spin |sigwork_run )+main( stitch_start)?( _start)?$')
# A sigreturn's own entry: the trampoline, then what the signal interrupted.
SIGRETURN = re.compile(r'^__stitch_sigreturn (sigwork_spin )?(sigwork_run )?'
                       r'main stitch_start _start$')
FP_SIGRETURN = re.compile(r'^__stitch_sigreturn (sigwork_spin |sigwork_run )+'
                          r'main( stitch_start)?( _start)?$')
SYS_SIGRETURN = 25  # include/stitch/syscall.h


def handler_samples(tag, prog, mode, cpus=1, signals=150):
    """Boots prog in mode, the tracer on sigreturn; (records, [(stop, names,
    has a stack copy)] of the samples whose leaf is the handler's work,
    [(stop, names)] of the tracer's samples of sigreturn)."""
    out = '%s/%s.bin' % (tmp, tag)
    recs, console, rc = boot('init=/bin/%s init.args=%d profile.mode=%s profile.hz=2000 '
                             'trace.syscalls=sigreturn' % (prog, signals, mode), out, 600,
                             ['--direct', '--icount', '--cpus', str(cpus)])
    tap(rc == 0 and '%s: signals=%d' % ('sigwork', signals) in console and of(recs, 'END'),
        '%s: %s ran its %d handlers, the stream is whole' % (tag, prog, signals))
    comm = {c['pid']: c['name'] for c in of(recs, 'COMM')}
    pid = [p for p in comm if comm[p] == prog][0] if prog in comm.values() else -1
    syms = Symbols(recs, pid)
    deferred = deferred_index(recs)
    rows, sigreturns = [], []
    for s in of(recs, 'SAMPLE'):
        if s['pid'] != pid or not s['cookie']:
            continue
        d = answer_of(deferred, s)
        names = syms.names(d['user']) if d else []
        if s['event'] == EVENT_SYSCALL and s['aux'] == SYS_SIGRETURN:
            sigreturns.append((STOPS[d['stop']] if d else 'unanswered', ' '.join(names)))
        elif names and names[0] == 'sigwork_hwork':
            rows.append((STOPS[d['stop']], ' '.join(names), s['copy'] is not None))
    return recs, rows, sigreturns


def whole(tag, rows, st):
    if tag == 'fp-deferred':
        bad = [r for r in rows if r[0] not in ('end', 'bad-frame') or not FP_CHAIN.match(r[1])]
    else:
        bad = [r for r in rows if r[0] != 'end' or not CHAIN.match(r[1])]
    tap(len(rows) >= 20 and not bad,
        '%s: all %d samples in the handler stitch through the trampoline into the '
        'interrupted function and on to %s' % (tag, len(rows),
                                               'main' if tag == 'fp-deferred' else '_start'))
    for r in bad[:5]:
        diag('  %s: %s' % r[:2])
    tap(st.get('unwind_signal_frames', 0) >= len(rows) and
        st.get('unwind_stop_signal_frame', -1) == 0,
        '%s: unwind_signal_frames %d counts the steps out of signal frames, '
        'unwind_stop_signal_frame %d' % (tag, st.get('unwind_signal_frames', -1),
                                         st.get('unwind_stop_signal_frame', -1)))


def sigreturn_entries(tag, sigreturns, signals=150):
    """Every sigreturn traced, each answered with the trampoline's stack."""
    want = FP_SIGRETURN if tag == 'fp-deferred' else SIGRETURN
    ends = ('end', 'bad-frame') if tag == 'fp-deferred' else ('end',)
    bad = [r for r in sigreturns if r[0] not in ends or not want.match(r[1])]
    tap(len(sigreturns) == signals and not bad,
        '%s: the tracer\'s %d sigreturns each have the trampoline\'s stack, '
        '__stitch_sigreturn over the interrupted function' % (tag, len(sigreturns)))
    for r in bad[:5]:
        diag('  %s: %s' % r)


for tag, prog, mode, cpus in (('sframe', 'sigwork', 'sframe', 1),
                              ('sframe-4cpu', 'sigwork', 'sframe', 4),
                              ('eh-frame', 'sigwork', 'eh-frame', 1),
                              ('fp-deferred', 'sigwork-fp', 'fp-deferred', 1)):
    recs, rows, sigreturns = handler_samples(tag, prog, mode, cpus)
    whole(tag, rows, stats(recs))
    sigreturn_entries(tag, sigreturns)


def agrees(tag, out, mode, booted, in_handler=None):
    """libdw over each NMI's stack copy against the deferred chain (stitch
    compares the two on every sample): equal on every sample, and, where
    in_handler is given, that many compared samples in the handler."""
    r = subprocess.run(['build/bin/stitch', '--symfs', ROOT, '--kernel', KERNEL,
                        '-o', '%s/%s' % (tmp, tag), '--stats', '%s/%s.json' % (tmp, tag), out],
                       capture_output=True, text=True)
    js = json.load(open('%s/%s.json' % (tmp, tag)))['stitch'] if r.returncode == 0 else {}
    n, agree = js.get('validate_samples', 0), js.get('validate_agree', 0)
    tap(booted and r.returncode == 0 and n >= 100 and agree == n
        and (in_handler is None or in_handler >= 20),
        '%s: libdw agrees with the deferred %s chain on %d of %d samples%s'
        % (tag, 'SFrame' if mode == 'validate' else '.eh_frame', agree, n,
           '' if in_handler is None else ', %d of them in the handler' % in_handler))
    if r.returncode or agree != n:
        diag(r.stdout[-1500:] + r.stderr[-1500:])


# The handler's samples (a deferred chain with sigwork_hwork at its leaf)
# that have a stack copy are among those compared.
for mode in ('validate', 'validate-eh'):
    recs, rows, sigreturns = handler_samples(mode, 'sigwork', mode)
    whole(mode, rows, stats(recs))
    agrees(mode, '%s/%s.bin' % (tmp, mode), mode, True, sum(1 for r in rows if r[2]))
out = '%s/demo-validate-eh.bin' % tmp
recs, console, rc = boot('init=/bin/demo profile.mode=validate-eh profile.hz=1000', out, 600)
agrees('demo-validate-eh', out, 'validate-eh', rc == 0 and 'sigwork: signals=100' in console)
done()
