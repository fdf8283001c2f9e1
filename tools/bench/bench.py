#!/usr/bin/python3
"""make bench: every unwinding mode side by side under QEMU -icount, the
scaling curves, and the host-side unwinder comparison. docs/BENCHMARKS.md
says what each number means; mk/bench.mk passes the paths.

    bench.py --out DIR [--config full|quick|tiny] [--parts modes,depth,...]
             [--reuse] [--jobs N] [--plan FILE | --collect FILE |
             --check RESULTS [--sample N --seed S]] --qemu-run P --stitch P
             --symfs D --kernel P --initrd P [--unwind P] [--insnprof P]

Parts: modes (the table: results.csv), depth, funcs, kentry, rate, cpus (curves:
<part>.csv and <part>.png; depth, funcs and rate run eh-frame too; funcs
also both formats with the rule cache off and the FDE index's memory,
funcs-index.csv), cache
(the deferred SFrame unwind with its rule cache on and off against the
frame-pointer walk, cache.csv), breakdown
(instructions and modelled cycles per kernel function, breakdown.csv),
memory (stack-copy against sframe at several stack depths under the
plugin's cost model that charges memory, memory.csv), fdesearch (a
deferred unwind's FDE searches against section size, caches hot and
emptied by another program between samples, fdesearch.csv), rulecache
(the rule cache on and off when a program's pcs fit it or not,
rulecache.csv), stackmap (the record stream against the kernel's stack map,
profile.consumer=stream|map, from 1 to 20 kHz, on the suite and on a
program of many distinct stacks, stackmap.csv), host
(host-unwind.csv), sframe-v3 (the suite and the real suite with the
programs' .sframe in versions 1, 2 and 3: per frame and in bytes,
sframe-v3.csv and sframe-v3-sizes.csv), tables (.eh_frame interpreted, its rows cached or
converted, and SFrame, on both suites: time, kernel memory, conversion,
file size, tables.csv), compat (the i386 programs in each mode, without frame
pointers and with: stacks that end at _start, equal to libdw's, cost per
frame; a 64-bit and a 32-bit program in one boot; compat.csv);
tables.md has every table in
Markdown. Every boot's stream, console and stitch numbers stay in
DIR/runs/NAME/. The boots run side by side, --jobs at a time (class
Bench says how); each prints "[k/N m:ss, left ~m:ss]": boots done of
those planned, the wall time since the start, an estimate of what is
left. --plan writes the plan as a job file instead (job.py runs each
line), --collect makes the tables from what its lines printed, --check
compares the numbers with a results file (check.py).
"""
import argparse
import concurrent.futures
import csv
import hashlib
import json
import os
import re
import shlex
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # nothing written next to the sources
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import breakdown  # noqa: E402
import check  # noqa: E402
import guest  # noqa: E402
import job  # noqa: E402
import metrics  # noqa: E402
import output  # noqa: E402
import sizes  # noqa: E402

ALL_MODES = output.MODE_ORDER
UNWIND_MODES = ["fp", "fp-deferred", "sframe", "stack-copy", "guess"]
# The curves that compare the unwinders' costs (depth, funcs, rate) also
# run eh-frame beside sframe: the same walk on the other format.
EH_CURVES = ("depth", "funcs", "rate")
# Frames kept by a deferred unwind: above chain 256's 259 user frames.
FRAMES = 512
# Bytes a stack copy carries without profile.stack_copy (kern/profile/profile.h).
DEFAULT_STACK_COPY = 8192

# The modes that walk frame pointers run the frame-pointer builds of the
# workloads (/bin/NAME-fp, mk/bench.mk), against a run without sampling of
# the same builds: so they walk as many frames as SFrame does.
FP_MODES = ("fp", "fp-deferred")
FP_BUILDS = ("/bin/fib", "/bin/chain", "/bin/sort", "/bin/reader", "/bin/piper", "/bin/kentry",
             "/bin/zreal", "/bin/dmreal", "/bin/rxreal", "/bin/disreal")


def fp_build(progs):
    """progs with each program that has a frame-pointer build replaced by it."""
    return [[p[0] + "-fp"] + p[1:] if p[0] in FP_BUILDS else p for p in progs]

# The suite: each about 0.2 s of guest time (200 M instructions), run one
# after the other by /bin/bsuite (docs/USERLAND.md for what each does).
SUITE = [
    ["/bin/fib", "30", "7"],
    ["/bin/chain", "64", "4000"],
    ["/bin/sort", "20000", "22"],
    ["/bin/reader", "/data/blob", "65536", "7"],
    ["/bin/piper", "8388608", "16384"],
]

# The second suite, "real": third-party code on real inputs (mk/binutils.mk,
# docs/USERLAND.md "Real workloads"): zlib deflating and inflating newlib's
# libm.a, libiberty's demangler on libstdc++'s 5 864 mangled names. The
# list is tools/bench/real-suite.txt, which make run DEMO=real reads too.
def read_suite(path):
    """A suite file: one program a line, its path and arguments; '#' starts a comment."""
    with open(path) as f:
        return [words for words in (line.split("#", 1)[0].split() for line in f) if words]


REAL_SUITE = read_suite(os.path.join(os.path.dirname(os.path.abspath(__file__)), "real-suite.txt"))

# FDE search against section size, hot and cold: /bin/funcs-N beside
# /bin/evict on one CPU (bsuite -j), at 100 Hz, one sample a 10 ms time
# slice of the scheduler's, so the two take turns and every other sample
# lands in funcs-N: between two of its samples, evict's slice. evict
# touches as many lines either way (the same work, the same schedule), in
# a buffer of 4 KiB (hot) or of 16 MiB, twice the modelled last-level
# cache (cold). The rule cache and the FDE index off: each frame's pc is
# searched for in the section.
FDESEARCH = {"funcs": [10, 100, 1000, 10000, 100000], "rounds": 20000, "lines": 85_000_000,
             "hz": 100, "kib": {"hot": 4, "cold": 16384},
             "extra": "unwind.rule_cache=0 unwind.fde_index=0"}

# The stream against the stack map (profile.consumer=): the suite, and
# /bin/spread-4096, whose spin loop runs under one of 4 096 callers in
# turn: 4 096 distinct user stacks, as many as the map's tables hold by
# default (profile.map_stacks), the map's worst case.
STACKMAP = {"hz": [1000, 2000, 5000, 10000, 20000],
            "progs": {"suite": SUITE, "stacks": [["/bin/spread-4096", "28000"]]}}

# The tables part: the ways a lookup is served from a table, on the suite
# and the real suite (docs/EHFRAME.md): (label, profile.mode, extra
# command line). .eh_frame interpreted in place, its rows kept per FDE,
# converted whole; SFrame as the programs carry it (version 1, ld 2.40's). A design of another
# mode or switch is one more line.
# The tables part's registrations by system call: /bin/dlwork's dlopen of
# /lib/libdeep.so registers its .sframe and .eh_frame (userland/lib/dl.c).
TABLES_DLOPEN = ["/bin/dlwork", "100"]
TABLE_DESIGNS = [("eh-frame", "eh-frame", ""), ("eh-rowcache", "eh-rowcache", ""),
                 ("eh-convert", "eh-convert", ""), ("sframe", "sframe", "")]
# 32-bit (i386) programs (docs/PROCESSES.md "32-bit programs"): the
# workloads' i386 builds without frame pointers (the i386 default at -O2)
# and with (/bin/NAME32-fp), run one after the other, once per mode and
# build; each about 0.15 s of guest time. validate on a 32-bit process walks
# frame pointers, as fp-deferred does (SFrame has no i386 ABI), beside the
# stack copy: its row compares that walk with libdw's; validate-eh compares
# eh-frame's. Then a 64-bit and a 32-bit program at once, in one boot.
COMPAT = {
    "suite": [["/bin/fib32", "28", "8"], ["/bin/chain32", "64", "2000"], ["/bin/sort32", "10000", "20"]],
    "modes": ["fp", "fp-deferred", "eh-frame", "stack-copy", "validate", "validate-eh"],
    "mixed": {"mode": "validate-eh", "progs": [["/bin/chain", "64", "2000"], ["/bin/chain32", "64", "1000"]]},
}

CONFIGS = {
    # make bench
    "full": {
        "modes": ALL_MODES, "suite": SUITE, "hz": 1000,
        "curve_modes": UNWIND_MODES,
        **{f"{c}_modes": UNWIND_MODES + ["eh-frame"] for c in EH_CURVES},
        "depth": [1, 2, 4, 8, 16, 32, 64, 128, 256], "depth_rounds": 4000,
        "funcs": [10, 100, 1000, 3000, 10000, 30000, 100000], "funcs_rounds": 4000,
        "kentry": [1, 2, 4, 8, 16, 32, 64], "kentry_hz": 20000, "kentry_cycles": 200_000_000,
        "rate": [100, 200, 500, 1000, 2000, 5000, 10000, 20000], "rate_rounds": 40000,
        "cpus": [1, 2, 4], "cpus_rounds": 4000,
        "cache": ["/bin/chain", "64", "4000"],
        "real": REAL_SUITE,
        # stack-copy: what its sample costs in all, beside sframe's
        "breakdown": ["sframe", "fp-deferred", "stack-copy"],
        "memory": {"depths": [4, 16, 64, 256], "rounds": 4000,
                   "modes": ["sframe", "eh-frame", "stack-copy"],
                   "copy_prog": ["/bin/deepstack", "32", "4000"], "copy_kib": [1, 2, 4, 8, 16]},
        "fdesearch": FDESEARCH,
        "rulecache": {"callers": [16, 256, 4096, 16384], "rounds": 28000, "hz": 1000},
        "stackmap": STACKMAP,
        "sframe-v3": True,
        "tables": TABLE_DESIGNS,
        "compat": COMPAT,
        "host": True,
    },
    # development: every part, fewer points, shorter runs
    "quick": {
        "modes": ALL_MODES, "suite": [["/bin/chain", "16", "1000"], ["/bin/reader", "/data/blob", "65536", "1"]],
        "hz": 1000, "curve_modes": ["fp", "sframe"],
        **{f"{c}_modes": ["fp", "sframe", "eh-frame"] for c in EH_CURVES},
        "depth": [1, 16, 256], "depth_rounds": 500,
        "funcs": [10, 100000], "funcs_rounds": 500,
        "kentry": [1, 16], "kentry_hz": 20000, "kentry_cycles": 20_000_000,
        "rate": [100, 20000], "rate_rounds": 500,
        "cpus": [1, 4], "cpus_rounds": 500,
        "cache": ["/bin/chain", "16", "1000"],
        "real": REAL_SUITE,
        "breakdown": ["sframe", "fp-deferred", "stack-copy"],
        "memory": {"depths": [4, 256], "rounds": 1000, "modes": ["sframe", "eh-frame", "stack-copy"],
                   "copy_prog": ["/bin/deepstack", "32", "1000"], "copy_kib": [1, 16]},
        "fdesearch": {**FDESEARCH, "funcs": [10, 100000]},
        "rulecache": {"callers": [16, 16384], "rounds": 7000, "hz": 1000},
        "stackmap": {"hz": [1000, 20000],
                     "progs": {"suite": [["/bin/chain", "16", "1000"]],
                               "stacks": [["/bin/spread-4096", "7000"]]}},
        "sframe-v3": True,
        "tables": TABLE_DESIGNS,
        "compat": COMPAT,
        "host": True,
    },
    # test/t/72-bench-determinism.t: two modes, one small program;
    # test/t/74-bench-insnprof.t: its breakdown; test/t/75-bench-cache.t;
    # test/t/76-bench-memory.t: the memory part at one depth
    "tiny": {
        "modes": ["none", "sframe"], "suite": [["/bin/chain", "8", "300"]], "hz": 1000,
        "cache": ["/bin/chain", "8", "300"],
        "breakdown": ["sframe", "fp-deferred"],
        "memory": {"depths": [64], "rounds": 1000, "modes": ["sframe", "stack-copy"]},
        # test/t/85-bench-fdesearch.t: the biggest section, hot and cold
        "fdesearch": {**FDESEARCH, "funcs": [100000], "rounds": 2000, "lines": 30_000_000},
    },
}

# The formats whose lookups go through an FDE index (the funcs part's
# second table, funcs_index).
INDEX_MODES = ("sframe", "eh-frame")

# The curves whose tables and plots show a slowdown against the same
# boot without sampling: the others boot none (their per-sample numbers
# need no baseline), and their CSV rows have no slowdown.
CURVE_SLOWDOWN = ("rate",)

# The sframe-v3 part's initrds: the programs' .sframe as ld 2.40 wrote it
# (version 1), and rewritten as version 2 and 3 (mk/usersframe.mk).
SFRAME_VERSIONS = ("v1", "v2", "v3")


def curve_modes(cfg, part):
    """The modes a curve runs: its own list (NAME_modes) or curve_modes."""
    return cfg.get(f"{part}_modes", cfg["curve_modes"])


def comm(prog):
    """The name a program's REC_COMM carries: its file name (15 bytes)."""
    return os.path.basename(prog[0])[:15]


class Planned(Exception):
    """The planning pass asked a part for numbers: its boots are all listed."""


class Bench:
    """Runs in two passes over the same code of each part. The planning
    pass lists the boots a part asks for (boot()) and stops it where it
    first wants their numbers (stats(), profile()); the plan then runs on
    a pool of workers (run_plan) or elsewhere (--plan, --collect); the
    second pass reads each boot's numbers from its directory runs/NAME/
    and writes the tables. A boot whose numbers decide what the part boots
    next (kentry's calibration) is booted during the planning pass
    (prerequisite())."""

    def __init__(self, args):
        self.args = args
        self.cfg = CONFIGS[args.config]
        self.tools = guest.Tools(args.qemu_run, args.stitch, args.symfs, args.kernel, args.initrd)
        self.runs = os.path.join(args.out, "runs")
        os.makedirs(self.runs, exist_ok=True)
        self.log = open(os.path.join(args.out, "log.txt"), "a")
        self.planning = False
        self.plan = {}    # name: spec, in the order the parts asked
        self.walls = {}   # name: the wall time of its boot (boot.json)
        self.part, self.part_of = None, {}  # the part running, and each boot's first
        self.calibration = {}
        self.booted = job.images(args.kernel, args.initrd)

    def say(self, text):
        """text on stdout and in log.txt, but not in the planning pass."""
        if not self.planning:
            self.note(text)

    def note(self, text):
        print(text, flush=True)
        self.log.write(text + "\n")
        self.log.flush()

    def kind(self, mode, plugin):
        """The plugin a boot of mode runs under: the whole run without
        sampling, the windows too with it; None without the plugin."""
        return ("whole" if mode == "none" else "windows") if plugin else None

    def boot(self, name, progs, mode, hz, plugin=None, cpus=1, extra="", parallel=None,
             initrd=None):
        """The boot NAME of the plan: progs by /bin/bsuite in mode at hz
        (guest.cmdline), plugin one of job.PLUGIN_KINDS, on initrd (None:
        --initrd's). Returns NAME, for
        stats() and profile(). A name asked for twice must mean the same
        boot (host reuses the modes part's stack-copy boot)."""
        line = guest.cmdline(progs, mode, hz, FRAMES, cpus > 1 if parallel is None else parallel, extra)
        s = job.spec(name, line, cpus, plugin, initrd)
        self.part_of.setdefault(name, self.part)
        if self.plan.setdefault(name, s) != s:
            raise guest.GuestError(f"two different boots named {name}: {self.plan[name]} and {s}")
        return name

    def stats(self, name):
        """stitch's numbers of boot NAME (stitch --stats), with its command line."""
        if self.planning:
            raise Planned
        if name not in self.plan:
            raise guest.GuestError(f"{name}: asked for, but not in the plan")
        s = job.read_json(os.path.join(self.runs, name, "stats.json"))
        s["cmdline"] = self.plan[name]["cmdline"]
        return s

    def profile(self, name):
        """(the plugin's counts, stitch's numbers) of boot NAME, the
        plugin's checked against the kernel's where it had the windows."""
        s = self.stats(name)
        p = breakdown.parse(self.path(name, "insnprof.txt"))
        bad = breakdown.check(p, s["kernel"]) if self.plan[name]["plugin"] == "windows" else []
        if bad:
            raise guest.GuestError(f"{name}: " + "; ".join(bad))
        return p, s

    def path(self, name, f):
        return os.path.join(self.runs, name, f)

    def prerequisite(self, name):
        """Boot NAME now, in the planning pass too: what the part boots
        next depends on its numbers."""
        self.run_plan([self.plan[name]])
        self.planning, was = False, self.planning
        try:
            return self.stats(name)
        finally:
            self.planning = was

    # --- running the plan -----------------------------------------------
    def run_plan(self, specs):
        """Boot specs on BENCH_JOBS workers, each into runs/NAME/, and
        count each stream with stitch. A boot that runs/NAME/ already
        holds (the same spec, the same images, counted) is not booted
        again with --reuse or --collect (then a boot missing is an error).
        Prints [done/planned elapsed, left: estimate]."""
        todo = []
        for s in specs:
            if s["name"] in self.walls:
                continue  # booted already in this run (a prerequisite)
            b = job.done(os.path.join(self.runs, s["name"]), s, self.booted)
            if b and (self.args.reuse or self.args.collect):
                self.walls[s["name"]] = b["wall"]
            else:
                todo.append(s)
        if self.args.collect:
            todo = [s for s in todo if not self.collected(s)]
            if todo:
                raise guest.GuestError(f"{len(todo)} boots of the plan are not in the streams "
                                       f"(first {todo[0]['name']}: {todo[0]['cmdline']})")
            return
        t0, n = time.time(), len(todo)
        with concurrent.futures.ThreadPoolExecutor(self.args.jobs) as pool:
            futs = {pool.submit(self.boot_one, s): s for s in todo}
            try:
                for k, f in enumerate(concurrent.futures.as_completed(futs), 1):
                    b, samples = f.result()
                    self.walls[b["spec"]["name"]] = b["wall"]
                    e = time.time() - t0
                    left = e / k * (n - k)
                    self.note(f"  [{k}/{n} {clock(e)}, left ~{clock(left)}] {b['spec']['name']}: "
                              f"{samples} samples, QEMU {b['wall']['qemu_s']:.1f} s, "
                              f"stitch {b['wall']['stitch_s']:.1f} s")
            except BaseException:
                for f in futs:
                    f.cancel()
                raise

    def boot_one(self, s):
        d = os.path.join(self.runs, s["name"])
        job.boot(self.tools, s, d, self.booted, self.args.insnprof)
        b = job.count(self.tools, d)
        return b, job.read_json(os.path.join(d, "stats.json"))["stitch"]["samples"]

    def collected(self, s):
        """Boot s as unpacked from the streams (--collect), counted here."""
        d = os.path.join(self.runs, s["name"])
        try:
            b = job.read_json(os.path.join(d, "boot.json"))
        except (OSError, ValueError):
            return False
        if b.get("spec") != s:
            return False
        if b.get("sha256") != self.booted:
            raise guest.GuestError(f"{s['name']}: booted another kernel or initrd "
                                   f"({b.get('sha256')}) than this tree's ({self.booted})")
        self.walls[s["name"]] = job.count(self.tools, d)["wall"]
        return True

    def baseline(self, name, progs, hz, cpus=1, plugin=False):
        """The boot without sampling of progs (with plugin: under the
        plugin, its whole run counted)."""
        return self.boot(name, progs, "none", hz, self.kind("none", plugin), cpus)

    def base_numbers(self, name, progs, plugin):
        """Boot NAME's stats, each program's cycles, and with plugin the
        plugin's counts of its whole run (else None)."""
        prof, s = self.profile(name) if plugin else (None, self.stats(name))
        cycles = metrics.workload_cycles(s, [comm(p) for p in progs])
        if None in cycles.values():
            raise guest.GuestError(f"{name}: a workload did not finish in mode none")
        return s, cycles, prof

    def measure(self, name, progs, modes, hz, cpus=1, plugin=None, baseline=True):
        """One boot per mode and one without sampling ('none' first: the
        baseline; the fp modes run the frame-pointer builds, against a
        baseline of their own). Returns a function that gives their
        metrics (called once the plan has run, so that a part plans all
        its boots first). plugin (default: whenever --insnprof is given):
        every boot under the plugin, the guest running the same (only the
        plugin's counts are added, in runs/NAME-MODE/insnprof.txt), and the
        modelled columns beside the instruction counts
        (breakdown.model_columns). The plugin counts one vCPU: boots of
        several CPUs run without it. baseline False: no boot without
        sampling, no row for it, and no slowdown in the rows."""
        if plugin is None:
            plugin = bool(self.args.insnprof)
        plugin = plugin and cpus == 1
        builds = {False: progs}
        fp_progs = fp_build(progs)
        if fp_progs != progs and any(m in FP_MODES for m in modes):
            builds[True] = fp_progs
        bases = {fp: self.baseline(f"{name}-none" + ("-fp" if fp else ""), p, hz, cpus, plugin)
                 for fp, p in builds.items() if baseline}
        runs = {mode: self.boot(f"{name}-{mode}", builds[mode in FP_MODES and True in builds],
                                mode, hz, self.kind(mode, plugin), cpus)
                for mode in modes if mode != "none"}
        return lambda: self.measured(progs, modes, plugin, builds, bases, runs)

    def measured(self, progs, modes, plugin, builds, bases, runs):
        """measure's rows, from the boots it planned."""
        base = {fp: (builds[fp],) + (self.base_numbers(bases[fp], builds[fp], plugin)
                                     if bases else (None, None, None))
                for fp in builds}
        if True in bases:
            self.fp_build_cost_pct = (metrics.total(base[True][2]) /
                                      metrics.total(base[False][2]) - 1) * 100
        rows = []
        for mode in ["none"] * bool(bases) + [m for m in modes if m != "none"]:
            fp = mode in FP_MODES and True in base
            p, s, cycles, none_prof = base[fp]
            prof = None
            if mode != "none" and plugin:
                prof, s = self.profile(runs[mode])
            elif mode != "none":
                s = self.stats(runs[mode])
            r = metrics.run_metrics(mode, s, [comm(x) for x in p], cycles)
            if prof:
                r.update(breakdown.model_columns(prof, none_prof, s))
            # Tables show the workloads by the names of the usual builds.
            for key in ("workloads", "workload_slowdown_pct"):
                if r.get(key):
                    r[key] = {comm(a): r[key][comm(b)] for a, b in zip(progs, p)}
            r["cmdline"] = s["cmdline"]
            rows.append(r)
        for r in rows:
            r["profiler_cycles_per_sample"] = (
                (r["nmi_cycles_per_sample"] or 0) + (r["unwind_cycles_per_sample"] or 0)
                if r["nmi_cycles_per_sample"] is not None else None)
        return rows

    # --- the mode table -------------------------------------------------
    def modes(self):
        self.say(f"modes: the suite at {self.cfg['hz']} Hz, once per mode"
                 + (", under the plugin" if self.args.insnprof else ""))
        self.fp_build_cost_pct = None
        rows = self.measure("suite", self.cfg["suite"], self.cfg["modes"], self.cfg["hz"])()
        output.write_csv(os.path.join(self.args.out, "results.csv"), rows, output.MODE_KEYS)
        self.say("\n" + output.table(rows))
        if self.fp_build_cost_pct is not None:
            self.say(f"the frame-pointer builds run {self.fp_build_cost_pct:.2f} % more "
                     "cycles than the usual builds, without sampling\n")
        return {"hz": self.cfg["hz"], "suite": [" ".join(p) for p in self.cfg["suite"]],
                "rows": rows, "fp_build_cost_pct": self.fp_build_cost_pct}

    # --- the second suite: real workloads ---------------------------------
    def real(self):
        self.say(f"real: the real workloads at {self.cfg['hz']} Hz, once per mode"
                 + (", under the plugin" if self.args.insnprof else ""))
        rows = self.measure("real", self.cfg["real"], self.cfg["modes"], self.cfg["hz"])()
        output.write_csv(os.path.join(self.args.out, "real.csv"), rows, output.MODE_KEYS)
        self.say("\n" + output.table(rows))
        return {"hz": self.cfg["hz"], "suite": [" ".join(p) for p in self.cfg["real"]],
                "rows": rows}

    # --- the curves -----------------------------------------------------
    def curve(self, name, points, cpus=lambda x: 1):
        """points: [(x, progs, hz)]; cpus(x): the CPUs to boot with. One
        CSV and one plot per curve (output.CURVE_PLOTS has its title)."""
        self.say(f"{name}: " + output.CURVE_PLOTS[name][0].format(hz=points[0][2]))
        measured = [(x, self.measure(f"{name}-{x}", progs, curve_modes(self.cfg, name), hz, cpus(x),
                                     baseline=name in CURVE_SLOWDOWN))
                    for x, progs, hz in points]
        rows = []
        for x, rows_of in measured:
            for r in rows_of():
                r.update(curve=name, x=x)
                rows.append(r)
        rows.sort(key=lambda r: (ALL_MODES.index(r["mode"]), r["x"]))
        output.write_curve(self.args.out, name, rows)
        broken = sorted({f"{r['mode']}: {r['status']}" for r in rows if r["status"] != "ok"})
        for b in broken:
            self.say(f"  {b}")
        return rows

    def depth(self):
        n = str(self.cfg["depth_rounds"])
        pts = [(d, [["/bin/chain", str(d), n]], self.cfg["hz"]) for d in self.cfg["depth"]]
        return self.curve("depth", pts)

    def funcs(self):
        """The curve, then each point again in both formats with the rule
        cache off, beside chain 64's cost with it off (the cache part's
        program): what a lookup through the FDE index costs as the table
        grows, and the index's kernel memory and build (funcs_index)."""
        n, hz = str(self.cfg["funcs_rounds"]), self.cfg["hz"]
        pts = [(f, [[f"/bin/funcs-{f}", n]], hz) for f in self.cfg["funcs"]]
        off = {(f, m): self.boot(f"funcs-{f}-{m}-nocache", progs, m, hz, extra="unwind.rule_cache=0")
               for f, progs, _ in pts for m in INDEX_MODES}
        ref = {m: self.boot(f"funcs-chain-{m}-nocache", [self.cfg["cache"]], m, hz,
                            extra="unwind.rule_cache=0") for m in INDEX_MODES}
        rows = self.curve("funcs", pts)
        self.funcs_index = self.index_rows(pts, off, ref)
        return rows

    def index_rows(self, pts, off, ref):
        """funcs_index: per point, format and rule cache, the instructions
        a frame (all, and with the index's build left out), the build, and
        the index's memory, against chain 64's per frame with the cache off."""
        base = {m: metrics.index_metrics(self.stats(ref[m])["kernel"]) for m in INDEX_MODES}
        out = []
        for f, _, _ in pts:
            for m in INDEX_MODES:
                for cache, name in (("on", f"funcs-{f}-{m}"), ("off", off[(f, m)])):
                    r = metrics.index_metrics(self.stats(name)["kernel"])
                    ref_frame = base[m]["per_frame_no_build"]
                    r.update(funcs=f, mode=m, cache=cache,
                             x_chain64=r["per_frame_no_build"] / ref_frame
                             if cache == "off" and r["per_frame_no_build"] and ref_frame else None)
                    out.append(r)
        output.write_csv(os.path.join(self.args.out, "funcs-index.csv"), out, output.INDEX_KEYS)
        self.say("\n" + output.table(out, output.INDEX_COLUMNS))
        return {"what": f"/bin/funcs-N {self.cfg['funcs_rounds']} at {self.cfg['hz']} Hz, "
                        f"reference {' '.join(self.cfg['cache'])} with unwind.rule_cache=0",
                "ref": [{"mode": m, **base[m]} for m in INDEX_MODES], "rows": out}

    def kentry(self):
        hz = self.cfg["kentry_hz"]
        cpb = self.kentry_cycles_per_byte()
        period = 1e9 / hz
        pts = []
        for k in self.cfg["kentry"]:
            chunk = int(round(k * period / cpb))
            if chunk > 4 << 20:
                raise guest.GuestError(f"kentry: {k} NMIs per entry needs {chunk} bytes per read, "
                                       "more than /data/blob holds")
            reads = max(1, int(self.cfg["kentry_cycles"] / (k * period)))
            pts.append((k, [["/bin/kentry", str(chunk), str(reads)]], hz))
        self.calibration["kentry_cycles_per_byte"] = cpb
        return self.curve("kentry", pts)

    def kentry_cycles_per_byte(self):
        """Guest cycles one byte of read() costs, from /bin/kentry's own
        RDTSC measurement in a run without sampling (deterministic too)."""
        chunk = 1 << 20
        s = self.prerequisite(self.boot("kentry-calibrate", [["/bin/kentry", str(chunk), "8"]],
                                        "none", 1000))
        with open(self.path("kentry-calibrate", "console.txt"), errors="replace") as f:
            m = re.search(r"kentry: chunk=\d+ reads=\d+ cycles_per_read=(\d+)", f.read())
        if not m or s["stitch"]["samples"]:
            raise guest.GuestError("kentry calibration: no cycles_per_read line")
        return int(m.group(1)) / chunk

    def rate(self):
        n = str(self.cfg["rate_rounds"])
        pts = [(hz, [["/bin/chain", "32", n]], hz) for hz in self.cfg["rate"]]
        return self.curve("rate", pts)

    def cpus(self):
        """N CPUs, N copies of /bin/chain 32 at once: what a sample and an
        unwind cost when the CPUs share the kernel (locks, one run queue,
        irq work and task work across CPUs)."""
        n = str(self.cfg["cpus_rounds"])
        pts = [(c, [["/bin/chain", "32", n]] * c, self.cfg["hz"]) for c in self.cfg["cpus"]]
        return self.curve("cpus", pts, cpus=lambda x: x)

    # --- the rule cache on and off -----------------------------------------
    def cache(self):
        """One program, sframe and eh-frame modes with the rule cache on
        (the default) and off (unwind.rule_cache=0), and fp-deferred on its
        frame-pointer build: the steady per-frame cost of each at the same
        depth."""
        prog = self.cfg["cache"]
        hz = self.cfg["hz"]
        plugin = bool(self.args.insnprof)
        self.say(f"cache: {' '.join(prog)} at {hz} Hz, the rule cache on and off"
                 + (", under the plugin" if plugin else ""))
        rows_of = self.measure("cache", [prog], ["sframe", "fp-deferred", "eh-frame"], hz,
                               plugin=plugin)
        nocache = {mode: self.boot(f"cache-{mode}-nocache", [prog], mode, hz,
                                   self.kind(mode, plugin), extra="unwind.rule_cache=0")
                   for mode in ("sframe", "eh-frame")}
        by_mode = {r["mode"]: r for r in rows_of()}
        base = by_mode["none"]["workloads"]
        offs = {mode: metrics.run_metrics(mode, (self.profile(n)[1] if plugin else self.stats(n)),
                                          [comm(prog)], base)
                for mode, n in nocache.items()}
        off, eh_off = offs["sframe"], offs["eh-frame"]
        out = []
        for label, r, st in (("sframe, rule cache on", by_mode["sframe"], "cache-sframe"),
                             ("sframe, rule cache off", off, "cache-sframe-nocache"),
                             ("fp-deferred, frame-pointer build", by_mode["fp-deferred"],
                              "cache-fp-deferred"),
                             ("eh-frame, rule cache on", by_mode["eh-frame"], "cache-eh-frame"),
                             ("eh-frame, rule cache off", eh_off, "cache-eh-frame-nocache")):
            k = self.stats(st)["kernel"]
            out.append({"run": label, "mode": r["mode"],
                        "program": " ".join(fp_build([prog])[0] if r["mode"] in FP_MODES else prog),
                        **metrics.cache_metrics(r, k)})
            if plugin:
                u = breakdown.unwind_row(self.profile(st)[0], {"kernel": k, "stitch": {"samples": None}})
                frames = u["frames_per_unwind"]
                out[-1]["plugin_insns_per_frame"] = u["unwind_insns"] / frames if frames else None
                out[-1]["modelled_per_frame"] = u["unwind_cycles"] / frames if frames else None
        # The switch must have done what it says, or the comparison is void.
        if (not out[0]["rule_cache_hits"] or out[1]["rule_cache_hits"] or
                not out[3]["rule_cache_hits"] or out[4]["rule_cache_hits"]):
            raise guest.GuestError("cache: the rule cache was not hit with it on, or was with "
                                   "unwind.rule_cache=0 (a kernel without the switch?)")
        output.write_csv(os.path.join(self.args.out, "cache.csv"), out, output.CACHE_KEYS)
        self.say("\n" + output.table(out, output.CACHE_COLUMNS))
        return out

    # --- the record stream against the stack map ---------------------------
    def stackmap(self):
        """Each program set without sampling, then sframe mode at each rate
        once with the stream alone and once with the map alone: what goes
        to the channel, the guest instructions a sample costs in all (the
        workloads' cycles under -icount, less the run without sampling),
        with --insnprof the modelled cycles too (the whole run's, less the
        run without sampling, a sample), and what is lost (records, and
        the map's drops)."""
        c = self.cfg["stackmap"]
        plugin = bool(self.args.insnprof)
        self.say(f"stackmap: stream against map, sframe, {c['hz'][0]} to {c['hz'][-1]} Hz, "
                 f"on {', '.join(c['progs'])}" + (", under the plugin" if plugin else ""))
        base = {name: self.baseline(f"stackmap-{name}-none", progs, c["hz"][0], plugin=plugin)
                for name, progs in c["progs"].items()}
        runs = [(name, hz, consumer, self.boot(f"stackmap-{name}-{consumer}-{hz}", progs, "sframe",
                                               hz, self.kind("sframe", plugin),
                                               extra=f"profile.consumer={consumer}"))
                for name, progs in c["progs"].items() for hz in c["hz"]
                for consumer in ("stream", "map")]
        rows = []
        for name, hz, consumer, boot in runs:
            progs = c["progs"][name]
            _, cycles, none_prof = self.base_numbers(base[name], progs, plugin)
            prof, s = self.profile(boot) if plugin else (None, self.stats(boot))
            rows.append({"programs": name, "hz": hz, "consumer": consumer,
                         **metrics.stackmap_metrics(s, [comm(p) for p in progs], cycles)})
            if prof:
                whole = prof[breakdown.WHOLE]["cycles"] - none_prof[breakdown.WHOLE]["cycles"]
                rows[-1]["modelled_per_sample"] = metrics.ratio(whole, rows[-1]["samples"])
        output.write_csv(os.path.join(self.args.out, "stackmap.csv"), rows, output.STACKMAP_KEYS)
        self.say("\n" + output.table(rows, output.STACKMAP_COLUMNS))
        return {"what": "; ".join(f"{n}: {' '.join(' '.join(p) for p in progs)}"
                                  for n, progs in c["progs"].items()), "rows": rows}

    # --- where the instructions go ----------------------------------------
    def breakdown(self):
        """The suite again under the insnprof plugin, once per mode listed:
        guest instructions per kernel function inside the deferred unwind,
        the NMI handler and the page fault, checked against the kernel's own
        counts of the same boot (tools/bench/breakdown.py); and once more
        without sampling, whose whole-run counts, subtracted from each
        mode's, say what a sample costs in all and where."""
        if not self.args.insnprof:
            raise guest.GuestError("the breakdown part needs --insnprof (build/bin/insnprof.so)")
        self.say(f"breakdown: the suite under the insnprof plugin, {self.cfg['hz']} Hz")
        modes = ["none"] + self.cfg["breakdown"]
        names = {mode: self.boot(f"breakdown-{mode}",
                                 fp_build(self.cfg["suite"]) if mode in FP_MODES else self.cfg["suite"],
                                 mode, self.cfg["hz"], self.kind(mode, True))
                 for mode in modes}
        rows, profs = [], {}
        for mode in modes:
            fp = mode in FP_MODES
            p, s = self.profile(names[mode])
            profs[mode] = p
            if mode == "none":
                continue
            got = breakdown.rows(mode, p, s["kernel"])
            # The frame-pointer builds run without sampling in no boot here:
            # their whole run is not the usual builds'.
            if not fp:
                got += breakdown.per_sample(mode, p, profs["none"], s["stitch"]["samples"])
            self.say("\n" + output.breakdown_text(got))
            rows += got
        output.write_csv(os.path.join(self.args.out, "breakdown.csv"), rows, output.BREAKDOWN_KEYS)
        return rows

    # --- a cost model that charges memory ----------------------------------
    def profiled(self, name, progs, mode, hz, extra="", parallel=None, initrd=None):
        """One boot under the plugin with its cost model (mode none: the
        whole run only, else the kernel's windows too); profile() gives
        the plugin's counts, checked against the kernel's, and stitch's
        numbers."""
        if not self.args.insnprof:
            part = name.split("-")[0]
            raise guest.GuestError(f"the {part} part needs --insnprof (build/bin/insnprof.so)")
        return self.boot(name, progs, mode, hz, self.kind(mode, True), extra=extra,
                         parallel=parallel, initrd=initrd)

    def memory(self):
        """/bin/chain at several depths, without sampling and in each mode
        listed (sframe, eh-frame, stack-copy), under the plugin with its
        cost model: what a sample costs in instructions and in modelled
        cycles (cache misses charged, rep strings by bytes), in the NMI, the
        unwind and in all (the whole run minus that of the boot without
        sampling). Then copy_prog, a stack deeper than chain's (/bin/deepstack,
        1 KiB a frame), in sframe mode and in stack-copy mode with each copy
        size of copy_kib (profile.stack_copy; the chain rows copy 8 KiB,
        perf's default): chain 256's stack in use is only about 4 KiB."""
        m = self.cfg["memory"]
        hz = self.cfg["hz"]
        self.say(f"memory: /bin/chain D {m['rounds']} at {hz} Hz under the plugin's cost model, "
                 f"depths {m['depths']}")
        rows = []
        # (program, its label and depth, [(run name, mode, stack copy bytes or None)])
        progs = [(["/bin/chain", str(d), str(m["rounds"])], "chain", d,
                  [(mode, mode, None) for mode in m["modes"]]) for d in m["depths"]]
        if m.get("copy_prog"):
            cp = m["copy_prog"]
            progs.append((cp, comm(cp), int(cp[1]),
                          [("sframe", "sframe", None)] +
                          [(f"stack-copy-{k}k", "stack-copy", k << 10) for k in m["copy_kib"]]))
        names = [{run: self.profiled(
                      (f"memory-{depth}" if label == "chain" else f"memory-{label}-{depth}") + f"-{run}",
                      [prog], mode, hz, extra=f"profile.stack_copy={copy}" if copy else "")
                  for run, mode, copy in [("none", "none", None)] + runs}
                 for prog, label, depth, runs in progs]
        for (prog, label, depth, runs), named in zip(progs, names):
            profs, stats = {}, {}
            for run, n in named.items():
                profs[run], stats[run] = self.profile(n)
            for run, mode, copy in runs:
                r = breakdown.memory_row(depth, mode, profs[run], profs["none"], stats[run])
                r["program"] = label
                r["stack_copy"] = copy or (DEFAULT_STACK_COPY if mode == "stack-copy" else None)
                rows.append(r)
        output.write_csv(os.path.join(self.args.out, "memory.csv"), rows, output.MEMORY_KEYS)
        self.say("\n" + output.table(rows, output.MEMORY_COLUMNS))
        return {"program": f"/bin/chain D {m['rounds']}" +
                (f"; {' '.join(m['copy_prog'])}" if m.get("copy_prog") else ""),
                "hz": hz, "rows": rows}

    # --- FDE search, hot and cold -----------------------------------------
    def fdesearch(self):
        """/bin/funcs-N beside /bin/evict under the plugin's cost model,
        evict's buffer small (hot) and bigger than the last-level cache
        (cold): what a deferred unwind costs in instructions and in modelled
        cycles, and its cache misses (FDESEARCH says how)."""
        f = self.cfg["fdesearch"]
        self.say(f"fdesearch: /bin/funcs-N {f['rounds']} beside /bin/evict KIB {f['lines']} "
                 f"at {f['hz']} Hz, {f['extra']}, N in {f['funcs']}")
        points = [(n, run, kib, self.profiled(f"fdesearch-{n}-{run}",
                                              [[f"/bin/funcs-{n}", str(f["rounds"])],
                                               ["/bin/evict", str(kib), str(f["lines"])]],
                                              "sframe", f["hz"], extra=f["extra"], parallel=True))
                  for n in f["funcs"] for run, kib in f["kib"].items()]
        rows = [{"funcs": n, "run": run, "evict_kib": kib, **breakdown.unwind_row(*self.profile(b))}
                for n, run, kib, b in points]
        output.write_csv(os.path.join(self.args.out, "fdesearch.csv"), rows, output.FDESEARCH_KEYS)
        self.say("\n" + output.table(rows, output.FDESEARCH_COLUMNS))
        return {"what": f"/bin/funcs-N {f['rounds']} beside /bin/evict KIB {f['lines']}, "
                        f"{f['hz']} Hz, {f['extra']}", "rows": rows}

    # --- the rule cache when its working set does not fit -----------------
    def rulecache(self):
        """/bin/spread-K under the plugin's cost model, sframe mode, the
        rule cache on and off (unwind.rule_cache=0): what a deferred unwind
        costs when its pcs are K + a few, fewer than the cache's entries or
        many more (RULECACHE says how)."""
        c = self.cfg["rulecache"]
        self.say(f"rulecache: /bin/spread-K {c['rounds']} at {c['hz']} Hz, the rule cache on "
                 f"and off, K in {c['callers']}")
        points = [(k, cache, self.profiled(f"rulecache-{k}-{cache}",
                                           [[f"/bin/spread-{k}", str(c["rounds"])]],
                                           "sframe", c["hz"], extra=extra))
                  for k in c["callers"] for cache, extra in (("on", ""), ("off", "unwind.rule_cache=0"))]
        rows = [{"callers": k, "cache": cache, **breakdown.unwind_row(*self.profile(b))}
                for k, cache, b in points]
        # The switch must have done what it says, or the comparison is void.
        if any(bool(r["rule_cache_hits"]) != (r["cache"] == "on") for r in rows
               if r["callers"] == min(c["callers"])):
            raise guest.GuestError("rulecache: the rule cache was not hit with it on, or was "
                                   "with unwind.rule_cache=0")
        output.write_csv(os.path.join(self.args.out, "rulecache.csv"), rows, output.RULECACHE_KEYS)
        self.say("\n" + output.table(rows, output.RULECACHE_COLUMNS))
        return {"what": f"/bin/spread-K {c['rounds']}, {c['hz']} Hz, sframe", "rows": rows}

    # --- SFrame version 1 (ld 2.40's), 2 and 3 -------------------------------
    def sframe_v3(self):
        """The suite and the real suite in sframe mode under the plugin,
        once on each initrd of --sframe-initrds: the same programs whose
        .sframe build/bin/sframe rewrote as version 2 and 3
        (mk/usersframe.mk). A deferred unwind's instructions and
        modelled cycles per frame, and each program's .sframe in each
        version beside its .eh_frame + .eh_frame_hdr (sizes.py)."""
        initrds = dict(v.split("=", 1) for v in (self.args.sframe_initrds or "").split(",") if v)
        if sorted(initrds) != list(SFRAME_VERSIONS):
            raise guest.GuestError(f"the sframe-v3 part needs --sframe-initrds "
                                   f"{'=...,'.join(SFRAME_VERSIONS)}=...")
        hz = self.cfg["hz"]
        suites = {"suite": self.cfg["suite"], "real": self.cfg["real"]}
        self.say(f"sframe-v3: the suite and the real suite at {hz} Hz, sframe mode, with the "
                 f"programs' .sframe as ld 2.40 wrote it (v1) and rewritten as v2 and v3")
        boots = [(name, v, self.profiled(f"sframe-{name}-{v}", progs, "sframe", hz, initrd=initrds[v]))
                 for name, progs in suites.items() for v in SFRAME_VERSIONS]
        programs = []
        for name, progs in suites.items():
            programs += [{"suite": name, "program": p[0], **self.sframe_sizes(initrds, p[0])}
                         for p in progs]
        rows = []
        for name, v, b in boots:
            u = breakdown.unwind_row(*self.profile(b))
            f = u["frames_per_unwind"]
            mine = [p for p in programs if p["suite"] == name]
            rows.append({"suite": name, "sframe": v, "samples": u["samples"], "unwinds": u["unwinds"],
                         "frames_per_unwind": f,
                         "insns_per_frame": u["unwind_insns"] / f if f else None,
                         "cycles_per_frame": u["unwind_cycles"] / f if f else None,
                         "fault_cycles": u["fault_cycles"],
                         "sframe_bytes": sum(p[f"sframe_{v}"] for p in mine),
                         "eh_bytes": sum(p["eh_bytes"] for p in mine)})
        output.write_csv(os.path.join(self.args.out, "sframe-v3.csv"), rows, output.SFRAMEV_KEYS)
        output.write_csv(os.path.join(self.args.out, "sframe-v3-sizes.csv"), programs,
                         output.SFRAMEV_SIZE_KEYS)
        self.say("\n" + output.table(rows, output.SFRAMEV_COLUMNS))
        self.say("\n" + output.table(programs, output.SFRAMEV_SIZE_COLUMNS))
        return {"hz": hz, "suites": {n: [" ".join(p) for p in progs] for n, progs in suites.items()},
                "rows": rows, "programs": programs}

    def sframe_sizes(self, initrds, prog):
        """prog's .sframe in each version and .eh_frame + .eh_frame_hdr,
        in bytes: version 1 from the symbol tree (the full ELF files, the
        same sections), the others from the copies' stage directories
        (mk/usersframe.mk: DIR/stage beside DIR/initrd.cpio)."""
        out = {}
        for v, initrd in sorted(initrds.items()):
            root = self.args.symfs if v == "v1" else os.path.join(os.path.dirname(initrd), "stage")
            unconverted = os.path.join(os.path.dirname(initrd), "unconverted.txt")
            if v != "v1" and os.path.exists(unconverted) and \
                    prog.lstrip("/") in open(unconverted).read().split():
                raise guest.GuestError(f"{prog}: its {v} copy kept version 1 (no room for the section)")
            s = sizes.sizes(os.path.join(root, prog.lstrip("/")))
            out[f"sframe_{v}"] = s[".sframe"]
            out["eh_bytes"] = s[".eh_frame"] + s[".eh_frame_hdr"]
        return out
    # --- the table designs: time, memory, conversion, file size ----------
    def tables(self):
        """The suite, the real suite (the modes and real parts' boots
        where they are the same) and the funcs curve's programs, once per
        design of TABLE_DESIGNS, and
        again with the rule cache off (unwind.rule_cache=0: every step a
        lookup in a table, a miss): a deferred unwind's guest instructions
        (1 TSC cycle = 1 instruction) and, under the plugin, modelled
        cycles, per frame (cache on) and per miss (cache off); the longest
        unwind (the first, which opens, indexes or converts); the kernel
        memory the rows hold per table and per FDE; a conversion's
        instructions per table and per FDE; the programs' .sframe and
        .eh_frame + .eh_frame_hdr bytes (sizes.py)."""
        hz, plugin = self.cfg["hz"], bool(self.args.insnprof)
        self.say(f"tables: the suite, the real suite and /bin/funcs-N at {hz} Hz, the rule cache on and off, "
                 "once per design: " + ", ".join(label for label, _, _ in self.cfg["tables"]))
        def pair(name, nocache, progs, mode, extra):
            """The design's boot of progs with the rule cache and without."""
            return [self.boot(n, progs, mode, hz, self.kind(mode, plugin), extra=(extra + off).strip())
                    for n, off in ((name, ""), (nocache, " unwind.rule_cache=0"))]
        suites = {"suite": self.cfg["suite"], "real": self.cfg["real"]}
        named = {(suite, label): pair(f"{suite}-{label}", f"tables-{suite}-{label}-nocache",
                                      suites[suite], mode, extra)
                 for suite in suites for label, mode, extra in self.cfg["tables"]}
        # The funcs curve's programs (10 to 100 000 functions), each design.
        n = str(self.cfg["funcs_rounds"])
        funcs = {(f, label): pair(f"tables-funcs-{f}-{label}", f"tables-funcs-{f}-{label}-nocache",
                                  [[f"/bin/funcs-{f}", n]], mode, extra)
                 for f in self.cfg["funcs"] for label, mode, extra in self.cfg["tables"]}
        # A program that dlopens: its registrations by system call.
        dlopen = {label: self.boot(f"tables-dlopen-{label}", [TABLES_DLOPEN], mode, hz,
                                   self.kind(mode, plugin), extra=extra)
                  for label, mode, extra in self.cfg["tables"]}
        rows = [{**self.table_row(suite, suites[suite], label, *names),
                 **self.register_cost(dlopen[label])}
                for (suite, label), names in named.items()]
        funcs_rows = [{"funcs": f, **self.table_row("funcs", [[f"/bin/funcs-{f}", n]], label, *names)}
                      for (f, label), names in funcs.items()]
        output.write_csv(os.path.join(self.args.out, "tables.csv"), rows, output.TABLES_KEYS)
        output.write_csv(os.path.join(self.args.out, "tables-funcs.csv"), funcs_rows,
                         output.TABLES_FUNCS_KEYS)
        self.say("\n" + output.table(rows, output.TABLES_COLUMNS))
        self.say(output.table(funcs_rows, output.TABLES_FUNCS_COLUMNS))
        return {"hz": hz, "dlopen": " ".join(TABLES_DLOPEN), "rows": rows,
                "funcs_what": f"/bin/funcs-N {n}", "funcs": funcs_rows}

    def table_row(self, suite, progs, label, name, nocache):
        """One design's row for progs: name with the rule cache, nocache without."""
        got = [self.profile(n) if self.args.insnprof else (None, self.stats(n))
               for n in (name, nocache)]
        (prof, s), (prof0, s0) = got
        k, k0 = s["kernel"], s0["kernel"]
        r = metrics.run_metrics(s["stream"]["mode"], s, [comm(p) for p in progs], None)

        def ratio(a, b):
            return a / b if a is not None and b else None
        convert = label == "eh-convert"
        files = [sizes.sizes(os.path.join(self.args.symfs, p[0].lstrip("/"))) for p in progs]
        table = (".sframe",) if label.startswith("sframe") else (".eh_frame", ".eh_frame_hdr")
        return {
            "suite": suite, "design": label, "status": r["status"],
            "samples": r["samples"], "user_frames_per_sample": r["user_frames_per_sample"],
            "unwind_insns_per_frame": r["unwind_cycles_per_frame"],
            "unwind_modelled_per_frame": ratio(prof and prof["unwind_user"]["cycles"],
                                               k.get("frames_unwound")),
            # Without the cache each frame is a lookup: a miss.
            "unwind_insns_per_miss": ratio(k0.get("unwind_cycles_total"), k0.get("frames_unwound")),
            "unwind_modelled_per_miss": ratio(prof0 and prof0["unwind_user"]["cycles"],
                                              k0.get("frames_unwound")),
            "first_unwind_insns": r["unwind_cycles_max"],
            "rows_answered_pct": ratio(100 * k0.get("ehrows_lookups", 0), k0.get("ehframe_lookups")),
            "bytes_per_table": (ratio(k.get("ehrows_whole_bytes"), k.get("ehrows_converted"))
                                if convert else ratio(k.get("ehrows_bytes"), k.get("ehrows_caches"))),
            "bytes_per_fde": ratio(k.get("ehrows_whole_bytes"), k.get("ehrows_fdes")) if convert else None,
            "convert_insns_per_table": ratio(k.get("ehrows_cycles"), k.get("ehrows_converted")) if convert else None,
            "convert_insns_per_fde": ratio(k.get("ehrows_cycles"), k.get("ehrows_fdes")) if convert else None,
            "fallbacks": k.get("ehrows_fallback"),
            "fallbacks_nocache": k0.get("ehrows_fallback"),
            "evicted": k0.get("ehrows_evicted") if label == "eh-rowcache" else None,
            "file_bytes": sum(f[x] for f in files for x in table),
        }
    def register_cost(self, name):
        """What a registration of an unwind table costs at exec (the
        loader's) and by the system call (dlopen's), in boot NAME: guest
        instructions (the kernel's count) and modelled cycles (the
        plugin's windows of the same doors, breakdown.REGISTER_WINDOWS)."""
        prof, s = self.profile(name) if self.args.insnprof else (None, self.stats(name))
        k, out = s["kernel"], {}
        for (window, cycles_key, count_key), at in zip(breakdown.REGISTER_WINDOWS, ("exec", "dlopen")):
            n = k.get(count_key)
            if not n:
                raise guest.GuestError(f"{name}: no registration {at} ({count_key} 0)")
            out[f"register_{at}_insns"] = k.get(cycles_key, 0) / n
            out[f"register_{at}_modelled"] = prof[window]["cycles"] / n if prof else None
        return out

    # --- 32-bit programs ---------------------------------------------------
    def compat(self):
        """The i386 builds of the workloads, without frame pointers and
        with, once per mode (COMPAT), under the plugin: per build and mode,
        how many samples' user stacks end at _start, how many equal libdw's
        unwind of the stack copy of the same sample (the validate modes),
        and what a sample and a frame cost; then one boot of a 64-bit and a
        32-bit program at once, per program the same shares."""
        c = self.cfg["compat"]
        hz, plugin = self.cfg["hz"], bool(self.args.insnprof)
        self.say(f"compat: the i386 programs at {hz} Hz, each build once per mode"
                 + (", under the plugin" if plugin else ""))
        builds = {"i386": c["suite"], "i386-fp": [[p[0] + "-fp"] + p[1:] for p in c["suite"]]}
        runs = [(build, mode, self.boot("compat" + ("-fp" if "-fp" in build else "") + f"-{mode}",
                                        progs, mode, hz, self.kind(mode, plugin)))
                for build, progs in builds.items() for mode in c["modes"]]
        m = c["mixed"]
        mixed = self.boot("compat-mixed", m["progs"], m["mode"], hz, self.kind(m["mode"], plugin),
                          parallel=True)
        rows = [{"build": build, **self.compat_row(mode, name, [comm(p) for p in builds[build]])}
                for build, mode, name in runs]
        s = self.stats(mixed)
        mixed_rows = [{"program": " ".join(p), "mode": m["mode"],
                       **compat_reach(s, [comm(p)])} for p in m["progs"]]
        output.write_csv(os.path.join(self.args.out, "compat.csv"), rows, output.COMPAT_KEYS)
        self.say("\n" + output.table(rows, output.COMPAT_COLUMNS))
        self.say(output.table(mixed_rows, output.COMPAT_MIXED_COLUMNS))
        return {"hz": hz, "suite": [" ".join(p) for p in c["suite"]], "rows": rows,
                "mixed": {"mode": m["mode"], "programs": [" ".join(p) for p in m["progs"]],
                          "rows": mixed_rows}}

    def compat_row(self, mode, name, names):
        """One boot of the compat part: the modes table's numbers of its
        programs, and how far their stacks reached (compat_reach)."""
        prof, s = self.profile(name) if self.plan[name]["plugin"] else (None, self.stats(name))
        r = metrics.run_metrics(mode, s, names, None)
        if prof and r["status"] == "ok":
            r.update(breakdown.model_columns(prof, None, s))
        # validate on a 32-bit process must have walked by frame pointers,
        # or its row would compare another walk than it says.
        if mode == "validate" and not s["kernel"].get("unwind_compat_no_sframe"):
            raise guest.GuestError(f"{name}: no compat walk by frame pointers in validate mode "
                                   "(unwind_compat_no_sframe 0: a kernel without compat unwinds?)")
        # Why the unwinds stopped where they did (docs/BENCHMARKS.md quotes them).
        k = s["kernel"]
        why = {key: k.get(key, 0) for key in ("unwinds_run", "unwind_stop_end", "unwind_stop_no_info",
                                              "unwind_stop_bad_frame", "ehframe_unsupported",
                                              "unwind_compat_no_sframe")}
        return {**{key: r.get(key) for key in output.COMPAT_KEYS if key in r}, **why,
                **compat_reach(s, names)}

    # --- host-side comparison -------------------------------------------
    def host(self):
        """Our SFrame unwinder, a frame-pointer walk, libunwind and libdw on
        the stack copies of the suite's stack-copy run: bench-unwind's rows."""
        name = self.boot("suite-stack-copy", self.cfg["suite"], "stack-copy", self.cfg["hz"],
                         self.kind("stack-copy", self.args.insnprof))
        self.stats(name)  # the plan has run
        records = self.path(name, "records.bin")
        out = os.path.join(self.args.out, "host-unwind.csv")
        cmd = [self.args.unwind, "--symfs", self.args.symfs, "--csv", out, records]
        self.say("host: " + " ".join(cmd))
        r = subprocess.run(cmd, stdout=subprocess.PIPE, text=True)
        self.say(r.stdout)
        if r.returncode != 0:
            raise guest.GuestError(f"bench-unwind exit {r.returncode}")
        with open(out) as f:
            return [{k: output.number(v) for k, v in r.items()} for r in csv.DictReader(f)]


def compat_reach(s, names):
    """The samples of the processes named names (stitch --stats): with a
    user stack, its outermost frame _start, main among its frames, and
    those whose deferred chain was compared with libdw's unwind of the
    stack copy (validate modes) and equal; in percent of the samples with
    a user stack (of those compared: libdw %)."""
    procs = [p for p in s["processes"] if p["comm"] in names]
    n = {k: sum(p[k] for p in procs) for k in ("samples", "user_samples", "at_start", "has_main",
                                               "validated", "agree")}
    return {**n, "start_pct": metrics.ratio(100 * n["at_start"], n["user_samples"]),
            "main_pct": metrics.ratio(100 * n["has_main"], n["user_samples"]),
            "libdw_pct": metrics.ratio(100 * n["agree"], n["validated"])}


PARTS = ("modes", "real", "depth", "funcs", "kentry", "rate", "cpus", "cache", "breakdown",
         "memory", "fdesearch", "rulecache", "stackmap", "host", "sframe-v3", "tables",
         "compat")


def run_part(b, part, results):
    """Part's code: in the planning pass, up to its first wish for numbers."""
    b.part = part
    if part in ("modes", "real", "breakdown", "memory", "fdesearch", "rulecache", "cache",
                "stackmap", "tables", "compat"):
        results[part] = getattr(b, part)()
    elif part == "host":
        results["host"] = b.host()
    elif part == "sframe-v3":
        results[check.result_key(part)] = b.sframe_v3()
    else:
        results.setdefault("curves", {})[part] = getattr(b, part)()
        if part == "funcs":
            results["funcs_index"] = b.funcs_index


def plan_parts(b, parts):
    """The planning pass: every boot the parts ask for, in b.plan."""
    b.planning = True
    for part in parts:
        try:
            run_part(b, part, {})
        except Planned:
            pass
    b.planning = False
    return list(b.plan.values())


def write_jobs(path, specs, booted, insnprof, initrd):
    """The plan as a job file: one boot a line, a shell command run from
    the top of the tree (GNU parallel runs each line), which checks the
    images' SHA-256 (initrd: the plan's, make bench SFRAME=v3's copy or
    build/initrd.cpio) and prints the boot's line for --collect."""
    sha = f"{booted['kernel']},{booted['initrd']}"
    with open(path + ".tmp", "w") as f:
        for s in specs:
            f.write(f"python3 tools/bench/job.py --sha256 {sha} --initrd {shlex.quote(initrd)}"
                    + (f" --insnprof {shlex.quote(insnprof)}" if s["plugin"] else "")
                    + f" --spec {shlex.quote(json.dumps(s, sort_keys=True))}\n")
    os.replace(path + ".tmp", path)


def unpack_streams(path, runs):
    """Each line of the streams GNU parallel returned into runs/NAME/:
    the boots' names, or GuestError on a line that is not a boot's."""
    names = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            try:
                names.append(job.unpack(line, runs)["spec"]["name"])
            except ValueError as e:
                raise guest.GuestError(f"{path}:{n}: {e}") from None
    return names


# The columns of the wall-time table: guest.PHASES, stitch, the tables.
WALL_KEYS = [k for k, _ in guest.PHASES] + ["stitch_s"]


def wall_parts(b, parts, tables):
    """Per part, where its boots' wall time went, summed over its boots
    (the boots ran side by side: the sums exceed the elapsed time), and
    the seconds its tables took once the boots were done."""
    out = {}
    for part in parts:
        names = [n for n, p in b.part_of.items() if p == part and n in b.walls]
        out[part] = {"boots": len(names),
                     "plugin_boots": sum(bool(b.plan[n]["plugin"]) for n in names),
                     **{k: round(sum(b.walls[n].get(k, 0) for n in names), 1) for k in WALL_KEYS},
                     "tables_s": round(tables[part], 1)}
    return out


def commit():
    """The commit of the tree the bench runs in, "-dirty" if it has
    changes ("unknown" outside a git checkout)."""
    here = os.path.dirname(os.path.abspath(__file__))
    r = subprocess.run(["git", "-C", here, "rev-parse", "HEAD"], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, text=True)
    if r.returncode != 0:
        return "unknown"
    dirty = subprocess.run(["git", "-C", here, "diff", "--quiet", "HEAD"]).returncode != 0
    return r.stdout.strip() + ("-dirty" if dirty else "")


def clock(seconds):
    return f"{int(seconds // 60)}:{int(seconds % 60):02d}"


def jobs_default():
    """BENCH_JOBS, or N of `make -jN` that runs us (GNU make 4.3 puts
    -jN in MAKEFLAGS), or the number of cores."""
    env = os.environ.get("BENCH_JOBS")
    if env:
        return int(env)
    m = re.search(r"(?:^|\s)-j(\d+)\b", os.environ.get("MAKEFLAGS", ""))
    return int(m.group(1)) if m else os.cpu_count() or 1


def qemu_version():
    r = subprocess.run(["qemu-system-x86_64", "--version"], stdout=subprocess.PIPE, text=True)
    return r.stdout.splitlines()[0] if r.stdout else "unknown"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--config", choices=sorted(CONFIGS), default="full")
    ap.add_argument("--parts", default=",".join(PARTS))
    ap.add_argument("--reuse", action="store_true",
                    help="do not boot again what DIR/runs/ holds of the same boot and images")
    ap.add_argument("--jobs", type=int, default=jobs_default(),
                    help="boots side by side (default: BENCH_JOBS, make's -jN, or the cores)")
    ap.add_argument("--plan", metavar="FILE", help="write the plan as a job file, boot nothing "
                    "but what decides the plan (kentry's calibration)")
    ap.add_argument("--collect", metavar="FILE", help="the streams the job file's lines printed: "
                    "the tables from them, booting nothing")
    ap.add_argument("--check", metavar="RESULTS", help="compare the numbers with a committed "
                    "results.json (check.py); its configuration is used")
    ap.add_argument("--sample", type=int, help="with --check: boot this many of its boots, "
                    "chosen by --seed, instead of parts")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--qemu-run", required=True)
    ap.add_argument("--stitch", required=True)
    ap.add_argument("--symfs", required=True)
    ap.add_argument("--kernel", required=True)
    ap.add_argument("--initrd", required=True, help="the initrd qemu-run boots (build/initrd.cpio)")
    ap.add_argument("--unwind", help="build/bin/bench-unwind, for the host part")
    ap.add_argument("--insnprof", help="build/bin/insnprof.so, for the breakdown part")
    ap.add_argument("--sframe-initrds", help="v1=PATH,v2=PATH,v3=PATH: the initrds of the "
                    "sframe-v3 part (mk/usersframe.mk)")
    args = ap.parse_args()
    if args.jobs < 1:
        ap.error("--jobs: at least 1")
    committed = None
    if args.check:
        committed = check.load(args.check)
        args.config = committed["config"]

    os.makedirs(args.out, exist_ok=True)
    b = Bench(args)
    t0 = time.time()
    if args.check and args.sample:
        return check.sample(b, committed, args.sample, args.seed)
    parts = [p for p in args.parts.split(",") if p]
    results = {"config": args.config, "qemu": qemu_version(), "commit": commit(),
               "guest_clock": "QEMU -icount shift=0,sleep=off: 1 TSC cycle = 1 instruction",
               "sha256": b.booted}
    # Parts run alone replace theirs in an earlier results.json of the same
    # configuration and the same kernel and initrd, and keep the others.
    path = os.path.join(args.out, "results.json")
    if os.path.exists(path):
        old = job.read_json(path)
        if args.reuse and old.get("sha256") != b.booted:
            print("bench: --reuse: the stored runs come from another kernel or initrd", file=sys.stderr)
            return 1
        if old.get("config") == args.config and old.get("sha256") == b.booted:
            results = {**old, **results}
    unknown = [p for p in parts if p not in PARTS]
    if unknown:
        ap.error(f"unknown parts {unknown}")
    # A configuration may leave parts out (tiny: the table only).
    parts = [p for p in parts if p == "modes" or p in b.cfg]
    if "host" in parts and not args.unwind:
        ap.error("the host part needs --unwind")
    try:
        if args.collect:
            b.say(f"collect: {len(unpack_streams(args.collect, b.runs))} boots in {args.collect}")
        specs = plan_parts(b, parts)
        if args.plan:
            write_jobs(args.plan, specs, b.booted, args.insnprof, args.initrd)
            b.say(f"bench: {len(specs)} boots of {', '.join(parts)} written to {args.plan}")
            return 0
        b.say(f"bench: {', '.join(parts)}: {len(specs)} boots"
              + ("" if args.collect else f", {args.jobs} side by side"))
        b.run_plan(specs)
        tables = {}
        for part in parts:
            t = time.time()
            run_part(b, part, results)
            tables[part] = time.time() - t
    except guest.GuestError as e:
        b.planning = False
        b.say(f"bench: {e}")
        return 1
    results.setdefault("calibration", {}).update(b.calibration)
    # Each boot's guest numbers (check.py --sample compares them) and its
    # wall time, apart: the only numbers that depend on the host.
    results["boots"] = {**results.get("boots", {}),
                        **{s["name"]: {**{k: v for k, v in s.items() if k != "name"},
                                       **job.guest_numbers(b.path(s["name"], ""))}
                           for s in specs}}
    wall = results.get("wall", {})
    results["wall"] = {"jobs": args.jobs, "seconds": round(time.time() - t0, 1),
                       "boots": {**wall.get("boots", {}), **b.walls},
                       "parts": {**wall.get("parts", {}), **wall_parts(b, parts, tables)}}
    b.say("wall time, summed over each part's boots:\n" + output.wall_table(results))
    output.write_tables(args.out, results)
    with open(path, "w") as f:
        json.dump(output.rounded(results), f, indent=1, sort_keys=True)
        f.write("\n")
    b.say(f"bench: {', '.join(parts)} in {time.time() - t0:.0f} s wall; "
          f"wrote {args.out}/results.json")
    if args.check:
        return check.parts(committed, json.loads(json.dumps(output.rounded(results))), parts,
                           [s["name"] for s in specs])
    return 0


if __name__ == "__main__":
    sys.exit(main())
