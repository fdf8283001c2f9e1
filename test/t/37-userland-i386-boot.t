#!/usr/bin/env python3
# The 32-bit (i386) SDK's programs on the kernel (docs/USERLAND.md,
# "32-bit programs"), under -icount:
#   1. A 64-bit /bin/bsuite spawns /bin/fib32, /bin/chain32, /bin/sort32 and
#      their -fp builds, one after the other, with small arguments: each
#      exits 0 and prints the line the native host build of the same
#      workload prints with the same arguments (build/userland/host/bin/,
#      the expected checksums' programs), fib's result fib(n) by formula;
#      /bin/fib32 with an argument out of range exits 2 (its stderr line
#      says why), and bsuite counts 7 of 8 ok (the 64-bit /bin/fib too).
#   2. The kernel ran them as 32-bit processes: their REC_MMAPs are below
#      4 GiB, their ring-3 samples inside their own text, and the 64-bit
#      fib's samples beside them in the same stream.
#   3. make run APP=prog.c APP_ARCH=i386 ICOUNT=1, end to end: a 32-bit
#      program that prints sizeof(long), a malloc'ed string, the argv it got
#      and clock() is built, booted as init, exits 0, and the profile
#      (OUT=, a scratch directory) shows its samples; sigaction in it fails
#      with ENOSYS at run time (the kernel has no i386 signal frame).
#   4. The tree's initrd is rebuilt without APP afterwards (make userland),
#      so that the other boot tests find it as make builds it.
# It rebuilds the initrd (make run APP=...): one of the Makefile's
# TEST_ALONE.
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'deferred'))
os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
from records import *  # noqa: E402

HOST = 'build/userland/host/bin'
PROGS = ('fib32', 'chain32', 'sort32', 'fib32-fp', 'chain32-fp', 'sort32-fp')
ARGS = {'fib': ['22', '3'], 'chain': ['48', '300'], 'sort': ['3000', '3']}
if not all(os.path.exists(p) for p in [KERNEL, ROOT + '/bin/bsuite', HOST + '/fib'] +
           [ROOT + '/bin/' + p for p in PROGS]):
    print('1..0 # SKIP kernel or userland not built')
    sys.exit(0)
tmp = tempfile.mkdtemp(prefix='stitch-t37-')


def fib(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


# ---- 1. the programs' output and exit status --------------------------------
# /bin/fib, the 64-bit build, in the same run: both widths sampled at once.
specs = [':'.join(['/bin/' + p] + ARGS[p.split('32')[0]]) for p in PROGS] + \
    ['/bin/fib32:99', ':'.join(['/bin/fib'] + ARGS['fib'])]
recs, console, rc = boot('init=/bin/bsuite init.args=%s profile.hz=2000' % ','.join(specs),
                         tmp + '/suite.bin', 400)
console = console.replace('\r', '')
for w in ARGS:
    host = subprocess.run([HOST + '/' + w] + ARGS[w], capture_output=True, text=True).stdout
    line = host.strip()
    got = re.findall(r'^%s: .*$' % w, console, re.M)
    ok = line and got == [line] * (3 if w == 'fib' else 2)
    if w == 'fib':
        n, r = int(ARGS[w][0]), int(ARGS[w][1])
        ok = ok and line == 'fib: n=%d rounds=%d result=%d checksum=%d' % (n, r, fib(n), r * fib(n))
    tap(ok, '%s32 and %s32-fp %s (and the 64-bit fib): each prints "%s", as the host build '
        'does' % (w, w, ' '.join(ARGS[w]), line)) or diag('guest: %s' % got)
tap(re.search(r'^/bin/fib32: argument 1 must be 0\.\.60$', console, re.M) and
    re.search(r'^bsuite: /bin/fib32 exited 2$', console, re.M) and
    re.search(r'^bsuite: 7 of 8 programs ok$', console, re.M) and rc != 0,
    'fib32 99: its error on stderr, exit status 2; bsuite: 7 of 8 ok, and says so with its status') \
    or diag(console[-3000:])

# ---- 2. 32-bit processes, sampled beside the 64-bit parent -----------------
comm = {c['pid']: c['name'] for c in of(recs, 'COMM')}
maps = {}
for m in of(recs, 'MMAP'):
    if not m['flags'] & 1:
        maps.setdefault(m['pid'], []).append(m)
pids = [pid for pid, name in comm.items() if name in PROGS]
low = all(m['start'] + m['len'] <= 1 << 32 for pid in pids for m in maps.get(pid, []))
tap(len(pids) == 7 and low, '%d 32-bit processes, every mapping below 4 GiB' % len(pids))
inside, outside = 0, 0
for s in of(recs, 'SAMPLE'):
    if s['pid'] in pids and s['ip'] < 1 << 47:
        text = [(m['start'], m['start'] + m['len']) for m in maps.get(s['pid'], [])
                if m['path'].startswith('/bin/')]
        if any(lo <= s['ip'] < hi for lo, hi in text):
            inside += 1
        else:
            outside += 1
wide = [s for s in of(recs, 'SAMPLE') if comm.get(s['pid']) == 'fib' and s['ip'] < 1 << 47]
tap(inside >= 50 and outside == 0 and len(wide) >= 3,
    '%d ring-3 samples of the 32-bit programs, all in their own text; %d of the 64-bit '
    'fib in the same stream' % (inside, len(wide)))

# ---- 3. make run APP=prog.c APP_ARCH=i386 ----------------------------------
app = os.path.join(tmp, 'hello32.c')
with open(app, 'w') as f:
    f.write('''#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile unsigned long spin;

int main(int argc, char **argv)
{
	char *s = malloc(32);
	struct sigaction sa = { .sa_handler = SIG_IGN };
	int r = sigaction(SIGINT, &sa, NULL);

	strcpy(s, "heap");
	for (spin = 0; spin < 20000000; spin++)
		;
	printf("hello32: long %d, %s, argc %d, argv[1] %s, clock %s, sigaction %d %s\\n",
	       (int)sizeof(long), s, argc, argc > 1 ? argv[1] : "-",
	       clock() > 0 ? "ticks" : "zero", r, r == -1 && errno == ENOSYS ? "ENOSYS" : "?");
	return 0;
}
''')
out = os.path.join(tmp, 'out')
mk = subprocess.run(['make', 'run', 'APP=' + app, 'APP_ARCH=i386', 'ICOUNT=1', 'ARGS=x1',
                     'OUT=' + out], capture_output=True, text=True)
text = open(os.path.join(out, 'console.txt')).read() if os.path.exists(out + '/console.txt') else ''
tap(mk.returncode == 0 and re.search(r'^hello32: long 4, heap, argc 2, argv\[1\] x1, clock ticks, '
                                     r'sigaction -1 ENOSYS$', text, re.M),
    'make run APP=hello32.c APP_ARCH=i386: a 32-bit init (4-byte long), its heap, argv and '
    'clock, sigaction refused with ENOSYS, exit 0') or diag(mk.stdout[-2000:] + mk.stderr[-2000:])
srecs = parse(open(out + '/records.bin', 'rb').read()) if os.path.exists(out + '/records.bin') else []
mine = [c['pid'] for c in of(srecs, 'COMM') if c['name'] == 'hello32']
n = len([s for s in of(srecs, 'SAMPLE') if s['pid'] in mine and s['ip'] < 1 << 32])
tap(mine and n >= 10, 'its profile: %d samples of /app/hello32 below 4 GiB' % n)

# ---- 4. the tree's initrd again ---------------------------------------------
mk = subprocess.run(['make', '-s', 'userland'], capture_output=True, text=True)
names = open('build/userland/initrd.list').read()
tap(mk.returncode == 0 and 'app/' not in names, 'the initrd is make\'s again (no /app/)') \
    or diag(mk.stderr[-2000:])
done()
