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
    names = ([w for w, _, _ in WINDOWS] if windows else []) + [WHOLE]
    return ",".join([so, f"kernel={kernel}"] + [f"window={w}" for w in names] + [f"out={out}"])


def parse(path):
    """{window: {"entries", "insns", "nested", "open", "unbalanced", "funcs": [(name, n)]}}."""
    out = {}
    with open(path) as f:
        for line in f:
            cells = line.rstrip("\n").split("\t")
            if cells[0] == "window":
                w = out[cells[1]] = {k: int(v) for k, v in zip(cells[2::2], cells[3::2])}
                w["funcs"] = []
            elif cells[0] == "func":
                out[cells[1]]["funcs"].append((cells[2], int(cells[3])))
            elif cells[0] == "other_vcpu":
                out["other_vcpu"] = int(cells[1])
    for w in out.values():
        if isinstance(w, dict):
            w["funcs"] = merged(w["funcs"])
    return out


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
    if prof.get("other_vcpu"):
        bad.append(f"{prof['other_vcpu']} instructions on other vCPUs (the plugin assumes -smp 1)")
    for name, total_key, entries_key in WINDOWS:
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
        funcs = w["funcs"][:TOP]
        rest = sum(n for _, n in w["funcs"][TOP:])
        if rest:
            funcs.append((f"({len(w['funcs']) - TOP} others)", rest))
        if w["nested"]:
            funcs.append(("(nested windows)", w["nested"]))
        for fn, n in funcs + [("total", w["insns"])]:
            out.append({
                "mode": mode, "window": name, "function": fn, "insns": n,
                "per_entry": n / w["entries"] if w["entries"] else None,
                "per_frame": n / frames if name == "unwind_user" and frames else None,
                "pct": 100 * n / w["insns"] if w["insns"] else None,
                "entries": w["entries"],
                "kernel_count": kernel.get(total_key) if total_key else None,
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
    funcs = diff[:TOP_PER_SAMPLE]
    if diff[TOP_PER_SAMPLE:]:
        funcs.append((f"({len(diff) - TOP_PER_SAMPLE} others)",
                      sum(n for _, n in diff[TOP_PER_SAMPLE:])))
    return [{"mode": mode, "window": PER_SAMPLE, "function": fn, "insns": n,
             "per_entry": n / samples, "per_frame": None,
             "pct": 100 * n / total if total else None, "entries": samples,
             "kernel_count": None} for fn, n in funcs + [("total", total)]]
