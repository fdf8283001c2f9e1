"""One benchmark boot: the kernel under QEMU -icount, then stitch counting
what the guest wrote (tools/bench/job.py runs the two for each boot of
the plan, into a directory of its own).

Guest time is QEMU's virtual clock under `-icount shift=0,sleep=off`: one
nanosecond per instruction retired, and the guest's TSC follows that clock,
so every cycle count here is an instruction count and a run repeats
exactly (docs/BENCHMARKS.md). The direct PVH boot path is used because OVMF
needs over two minutes under icount (docs/BOOT.md).
"""
import subprocess
import tempfile
import time


class GuestError(Exception):
    """A run that gave no usable numbers (the guest failed, or stitch did)."""


class Tools:
    """Where the programs are; make passes every path (mk/bench.mk)."""

    def __init__(self, qemu_run, stitch, symfs, kernel, initrd=None):
        self.qemu_run = qemu_run
        self.stitch = stitch
        self.symfs = symfs
        self.kernel = kernel
        self.initrd = initrd  # None: qemu-run's, build/initrd.cpio


def cmdline(progs, mode, hz, frames, parallel=False, extra=""):
    """The kernel command line: /bin/bsuite runs progs one after the other
    (parallel: all at once, bsuite -j).

    progs are lists such as ["/bin/chain", "64", "4000"]; bsuite takes each
    as one word with ':' between the arguments (init.args splits at ',').
    extra: more kernel parameters (unwind.rule_cache=0), or "".
    watchdog=off: the lockup detector's own NMIs (10 Hz when nothing
    samples, docs/SMP.md) would be in mode none's baseline only.
    """
    args = ",".join((["-j"] if parallel else []) + [":".join(p) for p in progs])
    return (f"init=/bin/bsuite init.args={args} profile.mode={mode} "
            f"profile.hz={hz} profile.frames={frames} watchdog=off" + (f" {extra}" if extra else ""))


# Where a boot's wall time goes, by the console lines that mark each
# phase's end as the host reads them (COM1 is QEMU's stdout, unbuffered):
# QEMU's start and the kernel's load up to the kernel's banner, the
# kernel's boot up to its last line before init (the watchdog's, which
# the bench's command line always has), the workload up to init's exit,
# and the rest (statistics, shutdown, the stream out of shared memory).
PHASES = [("start_s", "Stitch kernel"), ("boot_s", "watchdog:"),
          ("workload_s", "stitch: init (pid 1) exited"), ("end_s", None)]


def boot(tools, line, records, console, timeout, plugin, cpus=1, initrd=None):
    """Boot once (initrd: another than tools.initrd); {phase: wall seconds}
    (PHASES; a phase whose line never came is counted in the next)."""
    cmd = [tools.qemu_run, "--direct", "--icount", "--cpus", str(cpus), "--timeout", str(timeout),
           "--cmdline", line, "--records", records, "--serial", console]
    if initrd or tools.initrd:
        cmd += ["--initrd", initrd or tools.initrd]
    if plugin:
        cmd += ["--plugin", plugin]
    phases, t0 = {}, time.monotonic()
    marks = iter(PHASES)
    key, mark = next(marks)
    with tempfile.TemporaryFile("w+") as err:
        with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err) as p:
            for text in p.stdout:
                if mark and text.startswith(mark.encode()):
                    t = time.monotonic()
                    phases[key], t0 = round(t - t0, 3), t
                    key, mark = next(marks)
        phases[key] = round(time.monotonic() - t0, 3)
        err.seek(0)
        if p.returncode != 0:
            raise GuestError(f"guest failed (qemu-run exit {p.returncode}) with "
                             f"'{line}': {err.read().strip()} (console: {console})")
    return phases


def count(tools, records, stats):
    cmd = [tools.stitch, "--symfs", tools.symfs, "--kernel", tools.kernel,
           "--stats", stats, records]
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        raise GuestError(f"stitch failed on {records}: {r.stderr.strip()}")
