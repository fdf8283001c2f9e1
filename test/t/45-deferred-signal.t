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
#   - validate: libdw, unwinding the stack copy with the signal page's
#     .eh_frame, agrees with the deferred SFrame chain on every sample,
#     20 or more of them samples in the handler.
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


def handler_samples(tag, prog, mode, cpus=1, signals=150):
    """Boots prog in mode; (records, [(stop, names, has a stack copy)] of the
    samples whose leaf is the handler's work)."""
    out = '%s/%s.bin' % (tmp, tag)
    recs, console, rc = boot('init=/bin/%s init.args=%d profile.mode=%s profile.hz=2000'
                             % (prog, signals, mode), out, 600,
                             ['--direct', '--icount', '--cpus', str(cpus)])
    tap(rc == 0 and '%s: signals=%d' % ('sigwork', signals) in console and of(recs, 'END'),
        '%s: %s ran its %d handlers, the stream is whole' % (tag, prog, signals))
    comm = {c['pid']: c['name'] for c in of(recs, 'COMM')}
    pid = [p for p in comm if comm[p] == prog][0] if prog in comm.values() else -1
    syms = Symbols(recs, pid)
    deferred = deferred_index(recs)
    rows = []
    for s in of(recs, 'SAMPLE'):
        if s['pid'] != pid or not s['cookie']:
            continue
        d = answer_of(deferred, s)
        names = syms.names(d['user']) if d else []
        if names and names[0] == 'sigwork_hwork':
            rows.append((STOPS[d['stop']], ' '.join(names), s['copy'] is not None))
    return recs, rows


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


for tag, prog, mode, cpus in (('sframe', 'sigwork', 'sframe', 1),
                              ('sframe-4cpu', 'sigwork', 'sframe', 4),
                              ('eh-frame', 'sigwork', 'eh-frame', 1),
                              ('fp-deferred', 'sigwork-fp', 'fp-deferred', 1)):
    recs, rows = handler_samples(tag, prog, mode, cpus)
    whole(tag, rows, stats(recs))

# validate: libdw over the NMI's stack copy against the deferred chain,
# which stitch compares on every sample with both; those in the handler
# (a deferred chain with sigwork_hwork at its leaf, and a copy) among them.
recs, rows = handler_samples('validate', 'sigwork', 'validate')
whole('validate', rows, stats(recs))
compared = sum(1 for r in rows if r[2])
r = subprocess.run(['build/bin/stitch', '--symfs', ROOT, '--kernel', KERNEL, '-o', tmp + '/v',
                    '--stats', tmp + '/v.json', tmp + '/validate.bin'],
                   capture_output=True, text=True)
js = json.load(open(tmp + '/v.json'))['stitch'] if r.returncode == 0 else {}
n, agree = js.get('validate_samples', 0), js.get('validate_agree', 0)
tap(r.returncode == 0 and n >= 100 and agree == n and compared >= 20,
    'validate: libdw agrees with the deferred SFrame chain on %d of %d samples, '
    '%d of them in the handler' % (agree, n, compared))
if r.returncode or agree != n:
    diag(r.stdout[-1500:] + r.stderr[-1500:])
done()
