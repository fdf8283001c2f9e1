"""Where the instructions go: build/bin/insnprof.so's counts (a QEMU TCG
plugin, tools/insnprof/) per kernel function inside three windows, the
deferred unwind (unwind_user), the NMI handler (nmi_dispatch) and the page
fault (demand_page), against the kernel's own TSC counts of the same boot;
and what a sample costs in all, wherever it goes: the whole run's counts
(window "*") of a boot with sampling minus those of a boot without,
divided by the samples.

Under -icount one TSC cycle is one instruction, so the plugin's total for a
window and the kernel's count must agree up to what each leaves out: the
kernel's TSC bracket around unwind_user takes the call itself and the
store of its result (a handful of instructions, inside the kernel's count,
outside the window); nmi_dispatch's bracket leaves out its prologue and
the counter updates after its second rdtsc (inside the window). AGREE
is the tolerance test/t/74-bench-insnprof.t and the driver hold them to.
"""
import output

# (window function, the kernel counter of its instructions, of its entries)
WINDOWS = [
    ("unwind_user", "unwind_cycles_total", "unwinds_run"),
    ("nmi_dispatch", "nmi_cycles_total", "nmi_count"),
    ("demand_page", None, None),
]
# The registration of an unwind table, at exec (the loader) and by the
# system call (dlopen): kern/unwind/table.c's two doors, measured beside
# the windows above but not in the breakdown's tables (Bench.tables).
REGISTER_WINDOWS = [
    ("register_at_exec", "unwind_register_exec_cycles", "unwind_register_exec"),
    ("register_by_call", "unwind_register_call_cycles", "unwind_register_call"),
]
# Instructions per entry either side may count that the other does not,
# plus 0.1 % of the total for the faulting instructions the plugin counts
# twice (docs/BENCHMARKS.md).
AGREE_PER_ENTRY = 100
AGREE_FRACTION = 0.001
# The whole run: every kernel instruction, by function (tools/insnprof).
WHOLE = "*"
PER_SAMPLE = output.PER_SAMPLE
# Functions shown per window, and in the per-sample table (a sample's
# cost is spread over more); the rest are summed in one row.
TOP = 12
TOP_PER_SAMPLE = 30


def plugin_arg(so, kernel, out, windows=True):
    """qemu-run --plugin's argument: the whole run, and the windows unless
    windows is False (the boot without sampling)."""
    names = ([w for w, _, _ in WINDOWS + REGISTER_WINDOWS] if windows else []) + [WHOLE]
    return ",".join([so, f"kernel={kernel}"] + [f"window={w}" for w in names] + [f"out={out}"])


def parse(path):
    """{window: {"entries", "insns", "nested", "open", "unbalanced", "cycles",
    "loads", ... (the plugin's cost model, tools/insnprof/insnprof.c),
    "funcs": [(name, n)], "costs": {name: {"cycles", "loads", ...}},
    "inner": {"insns", "cycles", "loads", ...} (the inner windows')}}."""
    out = {}
    with open(path) as f:
        for line in f:
            cells = line.rstrip("\n").split("\t")
            if cells[0] == "window":
                w = out[cells[1]] = {k: int(v) for k, v in zip(cells[2::2], cells[3::2])}
                w["funcs"], w["costs"] = [], {}
            elif cells[0] == "func":
                w = out[cells[1]]
                w["funcs"].append((cells[2], int(cells[3])))
                c = w["costs"].setdefault(cells[2], {})
                for k, v in zip(cells[4::2], cells[5::2]):
                    c[k] = c.get(k, 0) + int(v)  # static twins add up
            elif cells[0] == "nested":
                out[cells[1]]["inner"] = {k: float(v) for k, v in zip(cells[2::2], cells[3::2])}
            elif cells[0] in ("other_vcpu", "code_phys_mismatch"):
                out[cells[0]] = int(cells[1])
    for w in out.values():
        if isinstance(w, dict):
            w["funcs"] = merged(w["funcs"])
    return out


def cycles(w, fn):
    """The modelled cycles of function fn in window w (None: a plugin
    without the cost model)."""
    return w.get("costs", {}).get(fn, {}).get("cycles")


def merged(funcs):
    """One row per name (static functions of one name in two files), most
    instructions first."""
    total = {}
    for name, n in funcs:
        total[name] = total.get(name, 0) + n
    return sorted(total.items(), key=lambda kv: (-kv[1], kv[0]))


def check(prof, kernel):
    """Problems that make the breakdown wrong, as sentences; [] if none."""
    bad = []
    if prof.get("code_phys_mismatch"):
        bad.append(f"{prof['code_phys_mismatch']} kernel instructions whose physical address "
                   "was not where the ELF said (the plugin's code addresses are wrong)")
    if prof.get("other_vcpu"):
        bad.append(f"{prof['other_vcpu']} instructions on other vCPUs (the plugin assumes -smp 1)")
    for name, total_key, entries_key in WINDOWS + REGISTER_WINDOWS:
        w = prof.get(name)
        if w is None:
            bad.append(f"{name}: no window in the plugin's output")
            continue
        if w["open"] or w["unbalanced"]:
            bad.append(f"{name}: {w['open']} left open, {w['unbalanced']} unbalanced")
        if entries_key and w["entries"] != kernel.get(entries_key, 0):
            bad.append(f"{name}: {w['entries']} entries, the kernel counted {kernel.get(entries_key, 0)}")
        if total_key:
            k = kernel.get(total_key, 0)
            slack = AGREE_PER_ENTRY * w["entries"] + AGREE_FRACTION * k
            if abs(w["insns"] - k) > slack:
                bad.append(f"{name}: {w['insns']} instructions, the kernel counted {k} "
                           f"(more than {slack:.0f} apart)")
    return bad


def rows(mode, prof, kernel):
    """One row per (window, function): its instructions, per entry, per
    unwound frame (unwind window), and share of the window."""
    out = []
    frames = kernel.get("frames_unwound", 0)
    for name, total_key, _ in WINDOWS:
        w = prof[name]
        funcs = [(fn, n, cycles(w, fn)) for fn, n in w["funcs"][:TOP]]
        rest = w["funcs"][TOP:]
        if rest:
            cyc = [cycles(w, fn) for fn, _ in rest]
            funcs.append((f"({len(rest)} others)", sum(n for _, n in rest),
                          None if None in cyc else sum(cyc)))
        if w["nested"]:
            funcs.append(("(nested windows)", w["nested"], w.get("nested_cycles")))
        for fn, n, cyc in funcs + [("total", w["insns"], w.get("cycles"))]:
            out.append({
                "mode": mode, "window": name, "function": fn, "insns": n,
                "per_entry": n / w["entries"] if w["entries"] else None,
                "per_frame": n / frames if name == "unwind_user" and frames else None,
                "pct": 100 * n / w["insns"] if w["insns"] else None,
                "entries": w["entries"],
                "kernel_count": kernel.get(total_key) if total_key else None,
                "cycles": cyc,
                "cycles_per_entry": cyc / w["entries"] if cyc is not None and w["entries"] else None,
            })
    return out


def per_sample(mode, prof, none, samples):
    """What a sample costs, by function: the whole run of prof minus that
    of none (the same programs without sampling), over the samples. The
    functions that differ most first, either way: a sampled run also
    schedules a little differently."""
    if not samples:
        return []
    got, base = dict(prof[WHOLE]["funcs"]), dict(none[WHOLE]["funcs"])
    diff = sorted(((fn, got.get(fn, 0) - base.get(fn, 0)) for fn in set(got) | set(base)),
                  key=lambda kv: (-abs(kv[1]), kv[0]))
    diff = [(fn, n) for fn, n in diff if n]
    total = prof[WHOLE]["insns"] - none[WHOLE]["insns"]

    def cyc(fn):
        a, b = cycles(prof[WHOLE], fn), cycles(none[WHOLE], fn)
        if fn not in got:
            a = 0
        if fn not in base:
            b = 0
        return None if a is None or b is None else a - b
    funcs = [(fn, n, cyc(fn)) for fn, n in diff[:TOP_PER_SAMPLE]]
    if diff[TOP_PER_SAMPLE:]:
        c = [cyc(fn) for fn, _ in diff[TOP_PER_SAMPLE:]]
        funcs.append((f"({len(diff) - TOP_PER_SAMPLE} others)",
                      sum(n for _, n in diff[TOP_PER_SAMPLE:]), None if None in c else sum(c)))
    tc = (prof[WHOLE]["cycles"] - none[WHOLE]["cycles"]
          if "cycles" in prof[WHOLE] and "cycles" in none[WHOLE] else None)
    return [{"mode": mode, "window": PER_SAMPLE, "function": fn, "insns": n,
             "per_entry": n / samples, "per_frame": None,
             "pct": 100 * n / total if total else None, "entries": samples,
             "kernel_count": None, "cycles": c,
             "cycles_per_entry": c / samples if c is not None else None}
            for fn, n, c in funcs + [("total", total, tc)]]


def model_columns(prof, none, stats):
    """The modelled cycles beside a boot's instruction counts, from the
    plugin's windows, divided as metrics.run_metrics divides the kernel's
    counts: the NMI handler's per NMI, the deferred unwind's per sample it
    answered and per frame, and their sum; and the whole run against that
    of the boot without sampling (none), in instructions and in modelled
    cycles (the boot is in both, so these are smaller than the workloads'
    own slowdown; None without that boot)."""
    k, st = stats["kernel"], stats["stitch"]
    nmi, unw, w = prof["nmi_dispatch"], prof["unwind_user"], prof[WHOLE]
    base = none[WHOLE] if none else None

    def ratio(a, b):
        return a / b if b else None
    nmi_cycles = ratio(nmi["cycles"], nmi["entries"])
    unwind_cycles = ratio(unw["cycles"], st["samples_deferred"])
    return {
        "nmi_modelled_per_sample": nmi_cycles,
        "unwind_modelled_per_sample": unwind_cycles,
        "unwind_modelled_per_frame": ratio(unw["cycles"], k.get("frames_unwound", 0)),
        "profiler_modelled_per_sample": (nmi_cycles + (unwind_cycles or 0)
                                         if nmi_cycles is not None else None),
        "plugin_slowdown_pct": 100 * (w["insns"] / base["insns"] - 1) if none else None,
        "modelled_slowdown_pct": 100 * (w["cycles"] / base["cycles"] - 1) if none else None,
    }


def memory_row(depth, mode, prof, none, stats):
    """The memory part's row for one boot of /bin/chain at depth: what a
    sample costs, in instructions and in modelled cycles, in the NMI, in
    the deferred unwind, and in all (the whole run minus that of the boot
    without sampling); and the memory behind it."""
    samples = stats["stitch"]["samples"]
    k = stats["kernel"]
    w, base = prof[WHOLE], none[WHOLE]
    nmi, unw = prof["nmi_dispatch"], prof["unwind_user"]

    def per(v):
        return v / samples if samples else None
    d = {key: w.get(key, 0) - base.get(key, 0)
         for key in ("insns", "cycles", "cycles_stores", "loads", "stores", "bytes", "l1d_miss", "llc_miss",
                     "st_llc_miss", "rep_bytes")}
    return {
        "depth": depth, "mode": mode, "samples": samples,
        "frames_per_unwind": k["frames_unwound"] / k["unwinds_run"] if k.get("unwinds_run") else None,
        "nmi_insns": per(nmi["insns"]), "nmi_cycles": per(nmi["cycles"]),
        "unwind_insns": per(unw["insns"]) if unw["entries"] else None,
        "unwind_cycles": per(unw["cycles"]) if unw["entries"] else None,
        "sample_insns": per(d["insns"]), "sample_cycles": per(d["cycles"]),
        "sample_cycles_stores": per(d["cycles_stores"]),
        "cycles_per_insn": d["cycles"] / d["insns"] if d["insns"] else None,
        "sample_bytes": per(d["bytes"]), "sample_rep_bytes": per(d["rep_bytes"]),
        "sample_l1d_miss": per(d["l1d_miss"]), "sample_llc_miss": per(d["llc_miss"]),
        "sample_st_llc_miss": per(d["st_llc_miss"]),
        "nmi_llc_miss": per(nmi["llc_miss"]),
        "unwind_llc_miss": per(unw["llc_miss"]) if unw["entries"] else None,
    }



def unwind_row(prof, stats):
    """A deferred unwind's own cost in one boot under the plugin, per
    unwind: instructions and modelled cycles, and its misses at each
    level, without the page faults taken inside it (their cost apart: the
    first reads of a section's pages)."""
    k = stats["kernel"]
    w = prof["unwind_user"]
    n = w["entries"]
    inner = w["inner"]

    def per(key):
        return (w.get(key, 0) - inner.get(key, 0)) / n if n else None
    own_insns, own_cycles = w["insns"] - inner["insns"], w["cycles"] - inner["cycles"]
    return {
        "samples": stats["stitch"]["samples"], "unwinds": n,
        "frames_per_unwind": k["frames_unwound"] / k["unwinds_run"] if k.get("unwinds_run") else None,
        "unwind_insns": per("insns"), "unwind_cycles": per("cycles"),
        "cycles_per_insn": own_cycles / own_insns if own_insns else None,
        "fault_insns": inner["insns"] / n if n else None,
        "fault_cycles": inner["cycles"] / n if n else None,
        "unwind_loads": per("loads"), "unwind_l1d_miss": per("l1d_miss"),
        "unwind_l2_miss": per("l2_miss"), "unwind_llc_miss": per("llc_miss"),
        "llc_miss": w.get("llc_miss", 0) - inner.get("llc_miss", 0),
        "rule_cache_hits": k.get("rule_cache_hits"), "rule_cache_misses": k.get("rule_cache_misses"),
    }
