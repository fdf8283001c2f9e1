#!/usr/bin/env python3
# 32-bit (compat, i386) programs on the kernel (docs/PROCESSES.md,
# "32-bit programs"), booted with init=/bin/t-compat under -icount, once
# per profiling mode (fp: the NMI's own frame-pointer walk; fp-deferred,
# sframe, eh-frame: the deferred unwinds; stack-copy: the NMI's copy of
# the stack), none of which knows 4-byte frames yet and each of which must
# stay harmless on them, a 64-bit parent spawning /bin/compat32 (freestanding,
# its own int $0x80 gate: mk/compat32.mk) in each of its modes:
#   1. the guest's own checks pass: compat32's int $0x80 calls (bytes
#      written, -EFAULT for ranges straddling 4 GiB and above it, also from
#      the 64-bit code segment after a far jump, sign-extended fds and
#      offsets, sbrk/mmap/stack below 4 GiB, -ENOSYS for handlers and
#      threads, its PT_GNU_EH_FRAME already registered: re-adding it is
#      -EEXIST), and t-compat's (exit statuses across spawn and exec both
#      ways, SIGILL for SYSCALL in compatibility mode, SIGSEGV for
#      SYSENTER, damaged ELF32 files refused with ENOEXEC, int $0x80 from
#      64-bit code);
#   2. the bytes of the three writes on the console, exactly;
#   3. SYSCALL in compatibility mode and SYSENTER: the kernel's kill lines,
#      SIGILL's and SIGSEGV's statuses, and a clean shutdown after them;
#   4. the counters: compat_refused 4 (compat32's four refused calls),
#      compat_syscall_insn 1, sframe_refused_compat 2 (the copy with a
#      PT_GNU_SFRAME, compat32's own SFRAME_ADD), int $0x80 calls counted; the .eh_frame registry's
#      ehframe_refused 1 and ehframe_removed 1: compat32's re-adding of the
#      PT_GNU_EH_FRAME the loader registered, and its removal (nothing
#      else in the boot adds or removes a table by hand);
#   5. the sampler: NMIs in the spinning compat process are recorded, with
#      user ips in compat32's text (its REC_MMAP), and nothing crashes;
#   6. every page back.
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'deferred'))
os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
from records import *  # noqa: E402

if not all(os.path.exists(p) for p in (KERNEL, ROOT + '/bin/compat32', ROOT + '/bin/t-compat')):
    print('1..0 # SKIP kernel or userland not built')
    sys.exit(0)
tmp = tempfile.mkdtemp(prefix='stitch-t34-')
PAGES = re.compile(r'free pages before init (\d+), after init (\d+)')
SPIN = 4000000


def run(mode):
    recs, console, rc = boot('init=/bin/t-compat init.args=%d profile.mode=%s profile.hz=2000'
                             % (SPIN, mode), '%s/%s.bin' % (tmp, mode), 300)
    console = console.replace('\r', '')
    tap(rc == 0 and 't-compat: 14 checks, 0 failed' in console and
        'compat32: 44 checks, 0 failed' in console and 'init (pid 1) exited with status 0' in console,
        '%s: the guest\'s checks pass, init exits 0 (%s)'
        % (mode, '; '.join(re.findall(r'^# .*$', console, re.M)) or 'no failure'))
    tap(re.search(r'^compat32: hello from i386\n', console, re.M) and
        re.search(r'^compat32: hello from 64-bit mode\n', console, re.M) and
        re.search(r'^t-compat: int \$0x80 from 64-bit code\n', console, re.M),
        '%s: the bytes of the int $0x80 writes (32-bit and 64-bit code) and of the '
        '64-bit SYSCALL write' % mode)
    kill = re.findall(r'pid \d+ \(/bin/compat32\) killed: syscall in 32-bit mode '
                      r'rip=0x([0-9a-f]+) addr=0x0 status (\d+)', console)
    gp = re.findall(r'pid \d+ \(/bin/compat32\) killed: general protection .* status (\d+)',
                    console)
    tap(len(kill) == 1 and kill[0][1] == '132' and gp == ['139'] and
        'shutdown (success)' in console and not re.search(r'panic|oops', console, re.I),
        '%s: SYSCALL in compatibility mode killed its program (SIGILL), SYSENTER its '
        '(SIGSEGV), the kernel went on' % mode)
    st = stats(recs)
    got = tuple(st.get(k, -1) for k in ('compat_refused', 'compat_syscall_insn',
                                         'sframe_refused_compat', 'ehframe_refused',
                                         'ehframe_removed'))
    tap(got == (4, 1, 2, 1, 1) and st.get('compat_syscalls', 0) >= 40,
        '%s: compat_refused, compat_syscall_insn, sframe_refused_compat, ehframe_refused, '
        'ehframe_removed %s; compat_syscalls %d' % (mode, got, st.get('compat_syscalls', -1)))
    spin = [c['pid'] for c in of(recs, 'COMM') if c['name'] == 'compat32']
    text = [(m['start'], m['start'] + m['len']) for m in of(recs, 'MMAP')
            if m['pid'] in spin and m.get('filename', m.get('path', '')).endswith('/bin/compat32')]
    # The samples taken in ring 3 (the others are in the kernel's half).
    samples = [s for s in of(recs, 'SAMPLE') if s['pid'] in spin and s['ip'] < 1 << 47]
    inside = [s for s in samples if any(lo <= s['ip'] < hi for lo, hi in text)]
    tap(len(inside) >= 20 and len(inside) == len(samples),
        '%s: %d ring-3 samples of compat processes, %d in compat32\'s text'
        % (mode, len(samples), len(inside)))
    pages = PAGES.search(console)
    tap(pages and pages.group(1) == pages.group(2), '%s: every page back' % mode)


for m in ('fp', 'eh-frame', 'sframe', 'stack-copy', 'fp-deferred'):
    run(m)
done()
