#!/usr/bin/env python3
# Hostile 32-bit (compat, i386) programs against the unwinders
# (/bin/hostile32, userland/compat/hostile32.c; the system-call, far-jump
# and ELF32 cases are test 34-compat-proc's). Boots under -icount:
#   fp, fp-deferred  hostile32 fp: int $0x80 with every register -1 and
#                    numbers outside the table (checked by the guest: the
#                    error each call must give), then lying frame pointers (at itself,
#                    straddling 4 GiB, the unmapped last page, misaligned,
#                    above 4 GiB and at the kernel's half once widened in
#                    64-bit mode; and rsp above 4 GiB under good frame
#                    pointers) while an honest child runs. Asserts: the
#                    kernel shut down with success; each lie's samples walk
#                    exactly the frames the lie allows (1; 2 at itself);
#                    unwind_compat_fp_refused equals the walks that began at
#                    a lie reaching 4 GiB; the walks stopped for the reason
#                    the lie gives; the honest child's samples all walk
#                    leaf, mid, top, compat_main, _start.
#   eh-frame         hostile32 eh (unwind.rule_cache=0): damaged i386
#                    .eh_frame sections registered through
#                    SYS_stacktrace_setup, each sampled (EH_ORDER below;
#                    the wrong RA column dropped since EH_E_RA_COLUMN);
#                    asserts each walk stopped for its case's reason within
#                    its frames, the damaged tables dropped once with the
#                    reason counted, the budget ones kept and their walks
#                    ended budget, the text ranges reaching 4 GiB refused
#                    at registration, the program ran to its end (no stall).
# 20 s for the three boots.
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'deferred'))
os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
from records import *  # noqa: E402

PROG = ROOT + '/bin/hostile32'
if not all(os.path.exists(p) for p in (KERNEL, PROG)):
    print('1..0 # SKIP kernel or userland not built')
    sys.exit(0)
tmp = tempfile.mkdtemp(prefix='stitch-t34h-')
ROUNDS = 300000
# Where each walk from a lie must stop, after how many frames (the pc,
# and the fake return address of the frame at itself).
LIES = {'lie_self': ('bad-frame', 2), 'lie_straddle': ('bad-frame', 1),
        'lie_unmapped': ('fault', 1), 'lie_misaligned': ('bad-frame', 1),
        'lie_high': ('bad-frame', 1), 'lie_kernel': ('bad-frame', 1)}
REFUSED = ('lie_straddle', 'lie_high', 'lie_kernel')  # reach 4 GiB: counted
HONEST = ['honest_leaf', 'honest_mid', 'honest_top', 'compat_main', '_start']


def boot_mode(mode, args, extra=''):
    recs, console, rc = boot('init=/bin/hostile32 init.args=%s profile.mode=%s profile.hz=4000 %s'
                             % (args, mode, extra), '%s/%s.bin' % (tmp, mode), 300)
    console = console.replace('\r', '')
    ok = rc == 0 and 'hostile32: ok' in console and 'shutdown (success)' in console and \
        'init (pid 1) exited with status 0' in console and of(recs, 'END')
    tap(ok, '%s: hostile32 ran to its end, the kernel shut down with success, the stream '
        'is whole' % mode)
    if not ok:
        diag(console[-3000:])
    return recs, console


def fp_mode(mode):
    recs, console = boot_mode(mode, 'fp,%d' % ROUNDS)
    st = stats(recs)
    deferred = deferred_index(recs)
    procs = sorted({c['pid'] for c in of(recs, 'COMM') if c['name'] == 'hostile32'})
    walks = {}  # the leaf's name: [(stop, user chain by name)]
    for pid in procs:
        syms = Symbols(recs, pid)
        for s in of(recs, 'SAMPLE'):
            if s['pid'] != pid:
                continue
            if mode == 'fp':
                chain, stop = s['user'], None
            else:
                d = answer_of(deferred, s)
                chain, stop = (d['user'], d['stop_name']) if d else (None, None)
            if not chain:
                continue
            names = syms.names(chain)
            walks.setdefault(names[0], []).append((stop, names))
    diag('%s: walks by leaf %s' % (mode, {k: len(v) for k, v in walks.items()}))
    for lie, (stop, depth) in sorted(LIES.items()):
        got = walks.get(lie, [])
        tap(len(got) >= 3 and all(len(n) == depth for _, n in got) and
            (mode == 'fp' or all(s == stop for s, _ in got)),
            '%s: %s: %d walks, each of %d frame(s)%s' % (
                mode, lie, len(got), depth, '' if mode == 'fp' else ', stopped ' + stop))
    # rsp's upper half lasts until the first return from an interrupt
    # (QEMU's IRET to a 32-bit stack segment keeps esp only): a walk
    # from it stops at once (its frame pointer is below its sp), one
    # after it is the good walk of a frameless leaf.
    sp = walks.get('lie_sp_high', [])
    tap(len(sp) >= 3 and all(n == ['lie_sp_high'] and s in (None, 'bad-frame') or
                             n == ['lie_sp_high', '_start'] and s in (None, 'end') for s, n in sp),
        '%s: lie_sp_high: %d walks, %d stopped at once, the others lie_sp_high _start'
        % (mode, len(sp), sum(len(n) == 1 for _, n in sp)))
    refused = sum(len(walks.get(lie, [])) for lie in REFUSED)
    tap(st.get('unwind_compat_fp_refused') == refused,
        '%s: unwind_compat_fp_refused %d, the walks from a lie reaching 4 GiB %d'
        % (mode, st.get('unwind_compat_fp_refused', -1), refused))
    honest = walks.get('honest_leaf', [])
    tap(len(honest) >= 20 and all(n == HONEST for _, n in honest) and
        (mode == 'fp' or all(s == 'end' for s, _ in honest)),
        '%s: the honest child\'s %d walks all %s' % (mode, len(honest), ' '.join(HONEST)))
    if mode == 'fp':
        unmapped = len(walks.get('lie_unmapped', []))
        tap(st.get('nmi_user_absent') == unmapped,
            'fp: nmi_user_absent %d, the walks from the unmapped page %d'
            % (st.get('nmi_user_absent', -1), unmapped))


# The damaged sections of `hostile32 eh`, in its order, by the stop of
# the walk that met each (the walks ending `end` go by frame pointers,
# where no table is left, or in build, and reach _start, and separate
# the cases): truncated-fde dropped (bad-sframe), ra-column x86-64's
# column dropped (bad-sframe), data-align eip read above the CFA
# (bad-frame after one wrong frame), budget-nops and budget-pairs
# (budget), wrap dropped (bad-sframe), unmapped (a good section unmapped
# once registered) dropped at the fault.
EH_ORDER = ['bad-sframe', 'bad-sframe', 'bad-frame', 'budget', 'budget', 'bad-sframe', 'fault']
EH_DEPTH = {'bad-sframe': 1, 'bad-frame': 2, 'budget': 1, 'fault': 1}


def eh_mode():
    recs, console = boot_mode('eh-frame', 'eh,%d' % ROUNDS, 'unwind.rule_cache=0')
    st = stats(recs)
    pid = [c['pid'] for c in of(recs, 'COMM') if c['name'] == 'hostile32'][:1]
    syms = Symbols(recs, pid[0]) if pid else None
    walks = [(d['stop_name'], syms.names(d['user'] or [])) for d in of(recs, 'DEFERRED')
             if d['pid'] in pid]
    runs = [s for i, (s, _) in enumerate(walks) if i == 0 or walks[i - 1][0] != s]
    order = [s for s in runs if s != 'end']
    tap(order == EH_ORDER, 'eh-frame: the cases\' walks stopped, in order, %s' % order)
    bounded = [len(n) == EH_DEPTH[s] for s, n in walks if s != 'end']
    whole = [n[-2:] == ['compat_main', '_start'] for s, n in walks if s == 'end']
    tap(bounded and all(bounded) and whole and all(whole),
        'eh-frame: %d walks stopped within their frames (1, 2 past the wrong alignment), '
        '%d others by frame pointers reach _start' % (len(bounded), len(whole)))
    want = {'ehframe_bad_fde': 2, 'ehframe_bad_cie': 1, 'ehframe_bad_program': 0,
            'ehframe_bad_table': 0, 'ehframe_bad_header': 0, 'ehframe_bad_fault': 1,
            'ehframe_dropped': 4, 'unwind_stop_bad_sframe': 3, 'unwind_stop_fault': 1,
            'ehframe_registered': 8, 'ehframe_refused': 2, 'ehframe_removed': 4}
    got = {k: st.get(k, -1) for k in want}
    tap(got == want, 'eh-frame: the truncated FDE and the wrapping one dropped (bad_fde), the '
        'wrong RA column (bad_cie), the unmapped one (bad_fault), the text ranges reaching '
        '4 GiB refused, the loader\'s and seven registered, four removed (the loader\'s, '
        'the three kept): %s'
        % ' '.join('%s=%d' % kv for kv in sorted(got.items())))
    budget = sum(s == 'budget' for s, _ in walks)
    tap(budget >= 2 and st.get('unwind_stop_budget') == budget,
        'eh-frame: unwind_stop_budget %d, the budget cases\' walks %d'
        % (st.get('unwind_stop_budget', -1), budget))


fp_mode('fp')
fp_mode('fp-deferred')
eh_mode()
done()
