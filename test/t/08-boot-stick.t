#!/usr/bin/env python3
# A USB stick on a machine with a screen and no host: build/stitch.iso,
# copied and booted as a writable usb-storage stick under OVMF with a
# display (-vga std), no isa-debug-exit device and no shared-memory
# channel, the sampling NMIs from the HPET through the IOAPIC
# (profile.source=ioapic, written into the stick's cmdline.txt).
#   - screenshots (QMP screendump, the VM stopped meanwhile) read by OCR
#     (tesseract) show the loader's lines, below them the kernel banner
#     with its build ID and, at the end,
#     the kernel's profile summary naming each workload's top function;
#   - the kernel's summary agrees with the host's report on the top
#     function of the CPU-bound workloads;
#   - the kernel keeps the records in RAM, warm-resets, the loader saves
#     them to the stick's data partition and powers the machine off;
#   - \stitch\records.bin, read from the image with mtools, is stitched by
#     build/bin/stitch with 0 samples missing their user stack, and its
#     stacks are right (each workload's leaf under all of its callers);
#   - records.txt says every chunk was intact.
# Two more boots, each changing something while the machine is stopped
# between the kernel's seal and its reset (guest RAM is a shared file):
#   - bytes of the kept region overwritten, as firmware might during the
#     reset: the loader names the damaged chunk on the screen and in
#     records.txt (its byte range), and saves the region as it is;
#   - the data partition filled up: the loader reports that records.bin
#     was not saved and leaves no partial file.
# The machine has a disk of its own with a partition labelled STITCHDATA
# too, in every boot: nothing is ever written to it, not even when the
# stick's partition is full.
import difflib
import hashlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'deferred'))
os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
from records import diag, done, tap  # noqa: E402

ISO = 'build/stitch.iso'
CMDLINE = 'init=/bin/demo profile.source=ioapic'
TIMEOUT = 900           # seconds for the whole run: OVMF twice, the demo
# The demo's CPU-bound workloads and the functions one of which each spends
# most in. The samples here come in real (not -icount) time, a few dozen per
# workload, so sort's top function is qsort in some runs and its comparator
# compare_keys in others: both are its inner loop.
LEAF = {'fib': ('fib_recursive',), 'chain': ('chain_leaf',),
        'sort': ('qsort', 'compare_keys')}

if not shutil.which('tesseract') or not os.path.exists(ISO):
    print('1..0 # SKIP tesseract-ocr or build/stitch.iso missing (make iso)')
    sys.exit(0)

tmp = tempfile.mkdtemp(prefix='stitch-t08-')


def partition_offset(image, n):
    out = subprocess.run(['sfdisk', '-J', image], capture_output=True, text=True).stdout
    for p in json.loads(out)['partitiontable']['partitions']:
        if p['node'].endswith(str(n)):
            return p['start'] * 512
    return None


ESP, DATA = partition_offset(ISO, 2), partition_offset(ISO, 3)


class Qmp:
    def __init__(self, path, deadline):
        while True:
            try:
                self.s = socket.socket(socket.AF_UNIX)
                self.s.connect(path)
                break
            except OSError:
                if time.time() > deadline:
                    raise
                time.sleep(0.2)
        self.f = self.s.makefile('rw')
        self.f.readline()
        self.cmd('qmp_capabilities')

    def cmd(self, name, **args):
        self.f.write(json.dumps({'execute': name, 'arguments': args}) + '\n')
        self.f.flush()
        while True:
            r = json.loads(self.f.readline())
            if 'return' in r or 'error' in r:
                return r


def for_ocr(ppm, pgm):
    """The screenshot as tesseract reads an 8x16 console font best: one
    channel, dark on light, twice the size."""
    data = open(ppm, 'rb').read()
    m = re.match(rb'P6\s+(\d+)\s+(\d+)\s+255\s', data)
    w, h = int(m.group(1)), int(m.group(2))
    pixels = data[m.end():]
    invert = bytes(255 - i for i in range(256))
    out = bytearray()
    for y in range(h):
        g = pixels[y * w * 3 + 1:(y + 1) * w * 3:3].translate(invert)
        row = bytearray(2 * w)
        row[0::2] = g
        row[1::2] = g
        out += row + row
    with open(pgm, 'wb') as f:
        f.write(b'P5 %d %d 255\n' % (2 * w, 2 * h) + out)


def screen_text(qmp, name):
    """Stop the machine, take a screenshot, read it, let it go on."""
    ppm, pgm = (os.path.join(tmp, name + ext) for ext in ('.ppm', '.pgm'))
    if not qmp:
        return ''
    qmp.cmd('stop')
    r = qmp.cmd('screendump', filename=ppm)
    qmp.cmd('cont')
    if 'error' in r or not os.path.exists(ppm):
        return ''
    for_ocr(ppm, pgm)
    return subprocess.run(['tesseract', pgm, '-'], capture_output=True,
                          text=True).stdout


def squash(s):
    """OCR and the console compared on letters and digits only."""
    return re.sub(r'[^a-z0-9]', '', s.lower())


def own_disk(path):
    """A GPT disk whose one partition is a FAT volume labelled STITCHDATA,
    like the stick's: the loader must tell them apart by the disk."""
    part = path + '.part'
    subprocess.run(['mkfs.fat', '-C', '-n', 'STITCHDATA', part, '16384'], check=True,
                   stdout=subprocess.DEVNULL)
    with open(path, 'wb') as f:
        f.truncate(20 << 20)
    subprocess.run(['sfdisk', '-q', path], input='label: gpt\nstart=2048, size=32768\n',
                   text=True, check=True)
    with open(path, 'r+b') as f, open(part, 'rb') as p:
        f.seek(2048 * 512)
        f.write(p.read())
    os.unlink(part)
    return path


def digest(path):
    return hashlib.sha256(open(path, 'rb').read()).hexdigest()


class Boot:
    """tools/qemu-run on a fresh copy of the ISO as a stick, COM1 to a
    file, a QMP socket, guest RAM in a file."""
    def __init__(self, tag, cmdline=None):
        self.dir = os.path.join(tmp, tag)
        os.mkdir(self.dir)
        self.stick = os.path.join(self.dir, 'stick.img')
        shutil.copy(ISO, self.stick)
        if cmdline:
            path = os.path.join(self.dir, 'cmdline.txt')
            with open(path, 'w') as f:
                f.write(cmdline + '\n')
            subprocess.run(['mcopy', '-o', '-i', '%s@@%d' % (self.stick, ESP), path,
                            '::/stitch/cmdline.txt'], check=True)
        self.com1 = os.path.join(self.dir, 'com1.log')
        self.ram = os.path.join(self.dir, 'ram')
        self.disk = own_disk(os.path.join(self.dir, 'disk.img'))
        self.disk_digest = digest(self.disk)
        self.start = time.time()
        self.qemu = subprocess.Popen(
            ['tools/qemu-run', '--stick', self.stick, '--no-debug-exit', '--channel',
             'serial', '--qmp', os.path.join(self.dir, 'qmp.sock'), '--serial', self.com1,
             '--mem-file', self.ram, '--disk', self.disk, '--timeout', str(TIMEOUT)],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            self.qmp = Qmp(os.path.join(self.dir, 'qmp.sock'), self.start + 120)
        except OSError as e:  # QEMU did not start: the checks below fail
            diag('no QMP socket: %s' % e)
            self.qmp = None

    def log(self):
        if not os.path.exists(self.com1):
            return ''
        return open(self.com1, errors='replace').read().replace('\r', '')

    def wait_for(self, text):
        """Until COM1 shows text (the kernel prints the same on the screen)."""
        while time.time() < self.start + TIMEOUT and self.qemu.poll() is None:
            log = self.log()
            if text in log:
                return log
            time.sleep(0.1)
        return None

    def finish(self):
        """Until QEMU ends: its status, its stderr and COM1."""
        try:
            err = self.qemu.communicate(timeout=max(1, self.start + TIMEOUT + 30 - time.time()))[1]
        except subprocess.TimeoutExpired:
            self.qemu.kill()
            err = self.qemu.communicate()[1]
        return self.qemu.returncode, err, self.log()

    def data(self, path):
        """A file of the data partition (None if absent)."""
        p = subprocess.run(['mtype', '-i', '%s@@%d' % (self.stick, DATA), path],
                           capture_output=True)
        return p.stdout if p.returncode == 0 else None


RESETTING = 'records kept in RAM; resetting'
boot = Boot('screen', CMDLINE)
boots = [boot]
qmp = boot.qmp
wait_for = boot.wait_for
log = wait_for('profile: mode')
banner = re.search(r'Stitch kernel \(x86_64\), build ([0-9a-f]{40})', log or '')
first = screen_text(qmp, 'banner') if banner else ''
# OCR confuses some digits of the console font (6 and @, 8 and 6, 7 and
# ?): the build ID on the screen must match the one on COM1 to 70%, as a
# different one would not (two random IDs match to about a third; runs
# here read 83% to 92%).
shown = re.search(r'stitch kernel.*build (.*)', first, re.I)
match = difflib.SequenceMatcher(None, squash(shown.group(1)) if shown else '',
                                banner.group(1) if banner else '-').ratio()
tap(shown and match >= 0.7,
    'the screen shows the kernel banner with its build ID (OCR: %s, %.0f%% alike)'
    % (shown.group(0) if shown else None, 100 * match))
if match < 0.7:
    diag(first)
# The loader's lines stay above the kernel's console.
tap(re.search(r'stitch-boot: loading the kernel(.|\n)*stitch-boot: kernel.* bytes at'
              r'(.|\n)*Stitch kernel', first, re.I),
    'the loader\'s lines are still on the screen above the kernel\'s')
tap('NMIs from the HPET timer' in (log or ''),
    'the boot line says the NMIs come from the HPET through the IOAPIC')

log = wait_for('stitch: shutdown')
last = screen_text(qmp, 'summary') if log else ''
summary = {}
for m in re.finditer(r'pid \d+ (\w+): \d+ samples.*\n\s+self:\s+(.*)\n', log or ''):
    top = [f for f in re.findall(r'(\S+) \d+%', m.group(2)) if f != '[kernel]']
    summary[m.group(1)] = top[0] if top else None
ocr = squash(last)
seen = {p: f for p, f in summary.items() if f and squash(f) in ocr and squash(p) in ocr}
tap('profilesummary' in ocr and set(LEAF) <= set(seen) and len(seen) >= 5,
    'the screen shows the profile summary: %s' % ', '.join('%s %s' % kv for kv in seen.items()))
tap(all(summary.get(p) in f for p, f in LEAF.items()),
    'the kernel names the CPU-bound workloads\' top functions: %s' % summary)
if not seen:
    diag(last)

rc, err, log = boot.finish()
tap(rc == 0 and 'demo: 7 of 7 workloads ok' in log and RESETTING in log and 'saved' in log,
    'the demo passed, the kernel kept the records and reset, the loader saved them'
    ' and powered off (qemu-run exit %d)' % rc)
if rc != 0:
    diag(err + log[-3000:])

rec = os.path.join(tmp, 'records.bin')
data = boot.data('::/stitch/records.bin') or b''
with open(rec, 'wb') as f:
    f.write(data)
txt = (boot.data('::/stitch/records.txt') or b'').decode(errors='replace')
tap(data and re.search(r'all \d+ chunks intact', txt) and 'saved %d bytes' % len(data) in txt,
    'records.bin and records.txt on the data partition: every chunk intact, %d bytes'
    % len(data))
diag(txt)

out = os.path.join(tmp, 'out')
st = subprocess.run(['build/bin/stitch', '--symfs', 'build/userland/root', '--kernel',
                     'build/kernel/kernel.elf', '-o', out, rec], capture_output=True, text=True)
m = re.search(r'(\d+) samples, (\d+) stitched, (\d+) missing', st.stdout + st.stderr)
tap(st.returncode == 0 and m and int(m.group(1)) > 100 and m.group(3) == '0',
    'build/bin/stitch stitches it: %s' % (m.group(0) if m else st.stderr.strip()))

# The stacks: in profile.folded, every stack of fib and sort through their
# leaf runs from _start through the workload's own callers, and every
# chain stack through chain_leaf has chain_N under chain_N+1 all the way
# down it goes (128 frames bound it: the bottom may be cut).
folded = open(os.path.join(out, 'profile.folded')).read() if st.returncode == 0 else ''
CALLERS = {'fib': ('fib_recursive', '_start;stitch_start;main;fib_rounds;fib_recursive'),
           'sort': ('qsort', '_start;stitch_start;main;sort_rounds;qsort')}


def right(prog, frames):
    if prog == 'chain':
        at = frames.index('chain_leaf')
        below = frames[:at][::-1]
        nums = [int(f[6:]) if re.fullmatch(r'chain_\d+', f) else None for f in below]
        run = nums[:next((i for i, n in enumerate(nums) if n is None), len(nums))]
        return len(run) > 8 and all(a == b + 1 for a, b in zip(run, run[1:]))
    return CALLERS[prog][1] in ';'.join(frames)


counts = {}
for line in folded.splitlines():
    frames = line.rsplit(' ', 1)[0].split(';')
    prog, frames = frames[0], frames[1:]
    leaf = CALLERS.get(prog, ('chain_leaf',))[0]
    if prog in ('fib', 'sort', 'chain') and leaf in frames:
        ok, n = counts.get(prog, (0, 0))
        counts[prog] = (ok + right(prog, frames), n + 1)
tap(len(counts) == 3 and all(ok == n > 0 for ok, n in counts.values()),
    'every stitched stack through the leaf has the workload\'s callers under it'
    ' (right/stacks: %s)' % counts)
report = open(os.path.join(out, 'report.txt')).read() if st.returncode == 0 else ''
for p, f in LEAF.items():
    sect = re.search(r'== %s \(pid \d+\).*?\n\nBy self:\n.*?\n(.*?)\n\n' % p, report, re.S)
    # (self %, name) of each user function, the report's order.
    user = [(l.split()[0], l.split()[3])
            for l in (sect.group(1).splitlines() if sect else []) if '[.]' in l]
    # With a few dozen samples two functions may tie on self; the kernel
    # and the host may list either first, so the host's top self share
    # may belong to several names.
    tops = [name for share, name in user if share == user[0][0]] if user else []
    tap(summary.get(p) in tops,
        '%s: the host report\'s top user function by self (%s) is the kernel\'s (%s)'
        % (p, tops, summary.get(p)))


def stopped_at_reset(b, change):
    """Run b to the kernel's reset line, stop it, change(), let it go on."""
    log = b.wait_for(RESETTING)
    if log and b.qmp:
        b.qmp.cmd('stop')
        change(log)
        b.qmp.cmd('cont')
    return b.finish()


# Damage: 64 bytes in the region's second chunk, as firmware that used the
# memory during the reset would leave them.
KEEP_DATA_OFFSET, KEEP_CHUNK = 20480, 65536
boot = Boot('damage')
boots.append(boot)


def damage(log):
    at = int(re.search(r'records kept in RAM at 0x([0-9a-f]+)', log).group(1), 16)
    with open(boot.ram, 'r+b') as f:
        f.seek(at + KEEP_DATA_OFFSET + KEEP_CHUNK + 100)
        f.write(b'\xa5' * 64)


rc, err, log = stopped_at_reset(boot, damage)
txt = (boot.data('::/stitch/records.txt') or b'').decode(errors='replace')
saved = boot.data('::/stitch/records.bin') or b''
m = re.search(r'saved (\d+) bytes', txt)
tap(rc == 0 and 'DAMAGED: chunk 1 (bytes 65536-131071)' in log and
    re.search(r'1 of \d+ chunks DAMAGED', txt) and m and int(m.group(1)) == len(saved) > 0,
    'a damaged chunk: named on the screen and in records.txt, the region saved as it is'
    ' (%d bytes)' % len(saved))
if not (rc == 0 and 'DAMAGED: chunk 1 (bytes 65536-131071)' in log):
    # Which part failed: the verdict, or the loader's line on COM1.
    diag('qemu-run exit %s\n%s%s\n--- records.txt:\n%s' % (rc, err, log[-3000:], txt))
# The area starts with the 64-byte shared-memory header, records.bin
# with the stream after it: the damaged bytes are in the file as they
# were in RAM, where records.txt says.
at = KEEP_CHUNK + 100 - 64
tap(saved[at:at + 64] == b'\xa5' * 64,
    'records.bin holds the damaged bytes as they were, at byte %d of chunk 1' % at)

# A full data partition at the time of saving: nothing but the report.
boot = Boot('full')
boots.append(boot)


def fill(log):
    img = '%s@@%d' % (boot.stick, DATA)
    free = int(re.search(r'([\d ]+) bytes free', subprocess.run(
        ['mdir', '-i', img, '::/'], capture_output=True, text=True).stdout)
        .group(1).replace(' ', ''))
    path = os.path.join(boot.dir, 'fill')
    with open(path, 'wb') as f:
        f.truncate(free - 32768)
    subprocess.run(['mcopy', '-i', img, path, '::/fill'], check=True)


rc, err, log = stopped_at_reset(boot, fill)
tap(rc == 0 and 'records.bin NOT saved: Volume Full' in log and
    boot.data('::/stitch/records.bin') is None,
    'a full data partition: the loader says records.bin was not saved and leaves no'
    ' partial file')
tap(all(digest(b.disk) == b.disk_digest for b in boots),
    'the machine\'s own disk, with a STITCHDATA partition too, was never written')
if 'NOT saved' not in log:
    diag(err + log[-2000:])
shutil.rmtree(tmp, ignore_errors=True)
done()
