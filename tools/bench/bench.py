#!/usr/bin/python3
"""make bench: every unwinding mode side by side under QEMU -icount, the
scaling curves, and the host-side unwinder comparison. docs/BENCHMARKS.md
says what each number means; mk/bench.mk passes the paths.

    bench.py --out DIR [--config full|quick|tiny] [--parts modes,depth,...]
             [--reuse] --qemu-run P --stitch P --symfs D --kernel P
             --initrd P [--unwind P] [--insnprof P]

Parts: modes (the table: results.csv), depth, funcs, kentry, rate, cpus (curves:
<part>.csv and <part>.png; depth, funcs and rate run eh-frame too), cache
(the deferred SFrame unwind with its rule cache on and off against the
frame-pointer walk, cache.csv), breakdown
(instructions and modelled cycles per kernel function, breakdown.csv),
memory (stack-copy against sframe at several stack depths under the
plugin's cost model that charges memory, memory.csv), fdesearch (a
deferred unwind's FDE searches against section size, caches hot and
emptied by another program between samples, fdesearch.csv), rulecache
(the rule cache on and off when a program's pcs fit it or not,
rulecache.csv), host
(host-unwind.csv);
tables.md has every table in
Markdown. Every boot's stream, console and stitch numbers stay in
DIR/runs/. Each boot prints "[k/N m:ss]": boots done of those planned, and
the wall time since the start.
"""
import argparse
import csv
import hashlib
import json
import os
import re
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # nothing written next to the sources
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import breakdown  # noqa: E402
import guest  # noqa: E402
import metrics  # noqa: E402
import output  # noqa: E402

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

CONFIGS = {
    # make bench
    "full": {
        "modes": ALL_MODES, "suite": SUITE, "hz": 1000,
        "curve_modes": UNWIND_MODES,
        **{f"{c}_modes": UNWIND_MODES + ["eh-frame"] for c in EH_CURVES},
        "depth": [1, 2, 4, 8, 16, 32, 64, 128, 256], "depth_rounds": 4000,
        "funcs": [10, 100, 1000, 10000, 100000], "funcs_rounds": 4000,
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

def curve_modes(cfg, part):
    """The modes a curve runs: its own list (NAME_modes) or curve_modes."""
    return cfg.get(f"{part}_modes", cfg["curve_modes"])


def comm(prog):
    """The name a program's REC_COMM carries: its file name (15 bytes)."""
    return os.path.basename(prog[0])[:15]


class Bench:
    def __init__(self, args):
        self.args = args
        self.cfg = CONFIGS[args.config]
        self.tools = guest.Tools(args.qemu_run, args.stitch, args.symfs, args.kernel)
        self.runs = os.path.join(args.out, "runs")
        os.makedirs(self.runs, exist_ok=True)
        self.log = open(os.path.join(args.out, "log.txt"), "a")
        self.t0, self.done, self.planned = time.time(), 0, 0

    def say(self, text):
        print(text, flush=True)
        self.log.write(text + "\n")
        self.log.flush()

    def boot(self, name, progs, mode, hz, plugin=None, reuse=None, cpus=1, extra="",
             parallel=None):
        t0 = time.time()
        reuse = self.args.reuse if reuse is None else reuse
        s = guest.run(self.tools, self.runs, name, progs, mode, hz, FRAMES, reuse, plugin=plugin,
                      cpus=cpus, extra=extra, parallel=parallel)
        if fingerprint(self.args) != self.booted:
            raise guest.GuestError("the kernel or the initrd changed during the run "
                                   "(a make in the same tree?): its numbers would mix two builds")
        self.done += 1
        self.planned = max(self.planned, self.done)
        e = time.time() - self.t0
        self.say(f"  [{self.done}/{self.planned} {int(e // 60)}:{int(e % 60):02d}] "
                 f"{name}: {s['stitch']['samples']} samples, {time.time() - t0:.1f} s wall")
        return s

    def baseline(self, name, progs, hz, cpus=1, plugin=False):
        """The boot without sampling of progs, each program's cycles, and
        with plugin the plugin's counts of its whole run (else None)."""
        names = [comm(p) for p in progs]
        prof = None
        if plugin:
            prof, s = self.profiled(name, progs, "none", hz, windows=False)
        else:
            s = self.boot(name, progs, "none", hz, cpus=cpus)
        cycles = metrics.workload_cycles(s, names)
        if None in cycles.values():
            raise guest.GuestError(f"{name}: a workload did not finish in mode none")
        return s, cycles, prof

    def measure(self, name, progs, modes, hz, cpus=1, plugin=None):
        """One boot per mode and one without sampling ('none' first: the
        baseline; the fp modes run the frame-pointer builds, against a
        baseline of their own); their metrics. plugin (default: whenever
        --insnprof is given): every boot under the plugin, the guest running
        the same (only the plugin's counts are added, in
        runs/NAME-MODE.insnprof.txt), and the modelled columns beside the
        instruction counts (breakdown.model_columns). The plugin counts one
        vCPU: boots of several CPUs run without it."""
        if plugin is None:
            plugin = bool(self.args.insnprof)
        plugin = plugin and cpus == 1
        base = {False: (progs,) + self.baseline(f"{name}-none", progs, hz, cpus, plugin)}
        fp_progs = fp_build(progs)
        if fp_progs != progs and any(m in FP_MODES for m in modes):
            base[True] = (fp_progs,) + self.baseline(f"{name}-none-fp", fp_progs, hz, cpus, plugin)
            self.fp_build_cost_pct = (metrics.total(base[True][2]) /
                                      metrics.total(base[False][2]) - 1) * 100
        rows = []
        for mode in ["none"] + [m for m in modes if m != "none"]:
            fp = mode in FP_MODES and True in base
            p, s, cycles, none_prof = base[fp]
            prof = None
            if mode != "none" and plugin:
                prof, s = self.profiled(f"{name}-{mode}", p, mode, hz)
            elif mode != "none":
                s = self.boot(f"{name}-{mode}", p, mode, hz, cpus=cpus)
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
        rows = self.measure("suite", self.cfg["suite"], self.cfg["modes"], self.cfg["hz"])
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
        rows = self.measure("real", self.cfg["real"], self.cfg["modes"], self.cfg["hz"])
        output.write_csv(os.path.join(self.args.out, "real.csv"), rows, output.MODE_KEYS)
        self.say("\n" + output.table(rows))
        return {"hz": self.cfg["hz"], "suite": [" ".join(p) for p in self.cfg["real"]],
                "rows": rows}

    # --- the curves -----------------------------------------------------
    def curve(self, name, points, cpus=lambda x: 1):
        """points: [(x, progs, hz)]; cpus(x): the CPUs to boot with. One
        CSV and one plot per curve (output.CURVE_PLOTS has its title)."""
        self.say(f"{name}: " + output.CURVE_PLOTS[name][0].format(hz=points[0][2]))
        rows = []
        for x, progs, hz in points:
            for r in self.measure(f"{name}-{x}", progs, curve_modes(self.cfg, name), hz, cpus(x)):
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
        n = str(self.cfg["funcs_rounds"])
        pts = [(f, [[f"/bin/funcs-{f}", n]], self.cfg["hz"]) for f in self.cfg["funcs"]]
        return self.curve("funcs", pts)

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
        s = self.boot("kentry-calibrate", [["/bin/kentry", str(chunk), "8"]], "none", 1000)
        with open(os.path.join(self.runs, "kentry-calibrate.console.txt"), errors="replace") as f:
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
        rows = self.measure("cache", [prog], ["sframe", "fp-deferred", "eh-frame"], hz,
                            plugin=plugin)
        by_mode = {r["mode"]: r for r in rows}
        base = by_mode["none"]["workloads"]
        offs = {}
        for mode in ("sframe", "eh-frame"):
            name, extra = f"cache-{mode}-nocache", "unwind.rule_cache=0"
            s = (self.profiled(name, [prog], mode, hz, extra=extra)[1] if plugin else
                 self.boot(name, [prog], mode, hz, extra=extra))
            offs[mode] = metrics.run_metrics(mode, s, [comm(prog)], base)
        off, eh_off = offs["sframe"], offs["eh-frame"]
        out = []
        for label, r, st in (("sframe, rule cache on", by_mode["sframe"], "cache-sframe"),
                             ("sframe, rule cache off", off, "cache-sframe-nocache"),
                             ("fp-deferred, frame-pointer build", by_mode["fp-deferred"],
                              "cache-fp-deferred"),
                             ("eh-frame, rule cache on", by_mode["eh-frame"], "cache-eh-frame"),
                             ("eh-frame, rule cache off", eh_off, "cache-eh-frame-nocache")):
            with open(os.path.join(self.runs, st + ".stats.json")) as f:
                k = json.load(f)["kernel"]
            out.append({"run": label, "mode": r["mode"],
                        "program": " ".join(fp_build([prog])[0] if r["mode"] in FP_MODES else prog),
                        **metrics.cache_metrics(r, k)})
            if plugin:
                u = breakdown.unwind_row(
                    breakdown.parse(os.path.join(self.runs, st + ".insnprof.txt")),
                    {"kernel": k, "stitch": {"samples": None}})
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
        rows, profs = [], {}
        for mode in ["none"] + self.cfg["breakdown"]:
            fp = mode in FP_MODES
            progs = fp_build(self.cfg["suite"]) if fp else self.cfg["suite"]
            name = f"breakdown-{mode}"
            prof = os.path.join(self.runs, name + ".insnprof.txt")
            arg = breakdown.plugin_arg(self.args.insnprof, self.args.kernel, prof,
                                       windows=mode != "none")
            s = self.boot(name, progs, mode, self.cfg["hz"], plugin=arg,
                          reuse=self.args.reuse and os.path.exists(prof))
            p = profs[mode] = breakdown.parse(prof)
            if mode == "none":
                continue
            bad = breakdown.check(p, s["kernel"])
            if bad:
                raise guest.GuestError(f"{name}: " + "; ".join(bad))
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
    def profiled(self, name, progs, mode, hz, extra="", parallel=None, windows=True):
        """One boot under the plugin with its cost model (windows: the
        kernel's windows too, else the whole run only): the plugin's
        counts, checked against the kernel's, and stitch's numbers."""
        part = name.split("-")[0]
        if not self.args.insnprof:
            raise guest.GuestError(f"the {part} part needs --insnprof (build/bin/insnprof.so)")
        prof = os.path.join(self.runs, name + ".insnprof.txt")
        arg = breakdown.plugin_arg(self.args.insnprof, self.args.kernel, prof, windows=windows)
        s = self.boot(name, progs, mode, hz, plugin=arg, extra=extra, parallel=parallel,
                      reuse=self.args.reuse and os.path.exists(prof))
        p = breakdown.parse(prof)
        bad = breakdown.check(p, s["kernel"]) if windows else []
        if bad:
            raise guest.GuestError(f"{name}: " + "; ".join(bad))
        return p, s

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
        for prog, label, depth, runs in progs:
            profs, stats = {}, {}
            tag = f"memory-{depth}" if label == "chain" else f"memory-{label}-{depth}"
            for run, mode, copy in [("none", "none", None)] + runs:
                profs[run], stats[run] = self.profiled(
                    f"{tag}-{run}", [prog], mode, hz, windows=mode != "none",
                    extra=f"profile.stack_copy={copy}" if copy else "")
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
        rows = []
        for n in f["funcs"]:
            for run, kib in f["kib"].items():
                progs = [[f"/bin/funcs-{n}", str(f["rounds"])],
                         ["/bin/evict", str(kib), str(f["lines"])]]
                p, s = self.profiled(f"fdesearch-{n}-{run}", progs, "sframe", f["hz"],
                                     extra=f["extra"], parallel=True)
                rows.append({"funcs": n, "run": run, "evict_kib": kib,
                             **breakdown.unwind_row(p, s)})
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
        rows = []
        for k in c["callers"]:
            for cache, extra in (("on", ""), ("off", "unwind.rule_cache=0")):
                p, s = self.profiled(f"rulecache-{k}-{cache}", [[f"/bin/spread-{k}", str(c["rounds"])]],
                                     "sframe", c["hz"], extra=extra)
                rows.append({"callers": k, "cache": cache, **breakdown.unwind_row(p, s)})
        # The switch must have done what it says, or the comparison is void.
        if any(bool(r["rule_cache_hits"]) != (r["cache"] == "on") for r in rows
               if r["callers"] == min(c["callers"])):
            raise guest.GuestError("rulecache: the rule cache was not hit with it on, or was "
                                   "with unwind.rule_cache=0")
        output.write_csv(os.path.join(self.args.out, "rulecache.csv"), rows, output.RULECACHE_KEYS)
        self.say("\n" + output.table(rows, output.RULECACHE_COLUMNS))
        return {"what": f"/bin/spread-K {c['rounds']}, {c['hz']} Hz, sframe", "rows": rows}

    # --- host-side comparison -------------------------------------------
    def host(self):
        """Our SFrame unwinder, a frame-pointer walk, libunwind and libdw on
        the stack copies of the suite's stack-copy run: bench-unwind's rows."""
        records = os.path.join(self.runs, "suite-stack-copy.records.bin")
        if not os.path.exists(records):
            self.boot("suite-stack-copy", self.cfg["suite"], "stack-copy", self.cfg["hz"])
        out = os.path.join(self.args.out, "host-unwind.csv")
        cmd = [self.args.unwind, "--symfs", self.args.symfs, "--csv", out, records]
        self.say("host: " + " ".join(cmd))
        r = subprocess.run(cmd, stdout=subprocess.PIPE, text=True)
        self.say(r.stdout)
        if r.returncode != 0:
            raise guest.GuestError(f"bench-unwind exit {r.returncode}")
        with open(out) as f:
            return [{k: output.number(v) for k, v in r.items()} for r in csv.DictReader(f)]


PARTS = ("modes", "real", "depth", "funcs", "kentry", "rate", "cpus", "cache", "breakdown",
         "memory", "fdesearch", "rulecache", "host")
# The programs each curve boots, for the plan (their arguments do not count).
CURVE_PROGRAM = {"depth": "/bin/chain", "funcs": "/bin/funcs-10", "kentry": "/bin/kentry",
                 "rate": "/bin/chain", "cpus": "/bin/chain"}


def plan(cfg, parts, runs):
    """How many boots the parts take: N of the "[k/N]" progress count."""
    def per_point(progs, modes):
        fp = fp_build(progs) != progs and any(m in FP_MODES for m in modes)
        return 1 + len([m for m in modes if m != "none"]) + fp
    n = 0
    for part in parts:
        if part == "modes":
            n += per_point(cfg["suite"], cfg["modes"])
        elif part == "real":
            n += per_point(cfg["real"], cfg["modes"])
        elif part == "breakdown":
            n += 1 + len(cfg["breakdown"])  # + the boot without sampling
        elif part == "memory":
            m = cfg["memory"]
            n += len(m["depths"]) * (1 + len(m["modes"])) + \
                len(m.get("copy_kib", [])) * (m.get("copy_depth") in m["depths"])
        elif part == "fdesearch":
            n += len(cfg["fdesearch"]["funcs"]) * len(cfg["fdesearch"]["kib"])
        elif part == "rulecache":
            n += 2 * len(cfg["rulecache"]["callers"])
        elif part == "cache":
            n += per_point([cfg["cache"]], ["sframe", "fp-deferred", "eh-frame"]) + 2  # + the caches off
        elif part == "host":
            n += not os.path.exists(os.path.join(runs, "suite-stack-copy.records.bin")) and \
                not ("modes" in parts and "stack-copy" in cfg["modes"])
        else:
            n += len(cfg[part]) * per_point([[CURVE_PROGRAM[part]]], curve_modes(cfg, part))
            n += part == "kentry"  # the calibration boot
    return n


def fingerprint(args):
    """SHA-256 of what every boot runs: the kernel and the initrd."""
    out = {}
    for key in ("kernel", "initrd"):
        with open(getattr(args, key), "rb") as f:
            out[key] = hashlib.sha256(f.read()).hexdigest()
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


def qemu_version():
    r = subprocess.run(["qemu-system-x86_64", "--version"], stdout=subprocess.PIPE, text=True)
    return r.stdout.splitlines()[0] if r.stdout else "unknown"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--config", choices=sorted(CONFIGS), default="full")
    ap.add_argument("--parts", default=",".join(PARTS))
    ap.add_argument("--reuse", action="store_true",
                    help="do not boot again where DIR/runs/ has a run's numbers")
    ap.add_argument("--qemu-run", required=True)
    ap.add_argument("--stitch", required=True)
    ap.add_argument("--symfs", required=True)
    ap.add_argument("--kernel", required=True)
    ap.add_argument("--initrd", required=True, help="the initrd qemu-run boots (build/initrd.cpio)")
    ap.add_argument("--unwind", help="build/bin/bench-unwind, for the host part")
    ap.add_argument("--insnprof", help="build/bin/insnprof.so, for the breakdown part")
    args = ap.parse_args()

    os.makedirs(args.out, exist_ok=True)
    b = Bench(args)
    b.calibration = {}
    b.booted = fingerprint(args)
    parts = [p for p in args.parts.split(",") if p]
    t0 = time.time()
    results = {"config": args.config, "qemu": qemu_version(), "commit": commit(),
               "guest_clock": "QEMU -icount shift=0,sleep=off: 1 TSC cycle = 1 instruction",
               "sha256": b.booted}
    # Parts run alone replace theirs in an earlier results.json of the same
    # configuration and the same kernel and initrd, and keep the others.
    path = os.path.join(args.out, "results.json")
    if os.path.exists(path):
        with open(path) as f:
            old = json.load(f)
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
    b.planned = plan(b.cfg, parts, b.runs)
    try:
        for part in parts:
            if part == "modes":
                results["modes"] = b.modes()
            elif part == "real":
                results["real"] = b.real()
            elif part == "breakdown":
                results["breakdown"] = b.breakdown()
            elif part in ("memory", "fdesearch", "rulecache"):
                results[part] = getattr(b, part)()
            elif part == "cache":
                results["cache"] = b.cache()
            elif part == "host":
                results["host"] = b.host()
            else:
                results.setdefault("curves", {})[part] = getattr(b, part)()
    except guest.GuestError as e:
        b.say(f"bench: {e}")
        return 1
    results.setdefault("calibration", {}).update(b.calibration)
    output.write_tables(args.out, results)
    with open(path, "w") as f:
        json.dump(output.rounded(results), f, indent=1, sort_keys=True)
        f.write("\n")
    b.say(f"bench: {', '.join(parts)} in {time.time() - t0:.0f} s wall; "
          f"wrote {args.out}/results.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
