"""Writing what the benchmark measured: the mode table (printed, CSV),
each curve's CSV and PNG plot (gnuplot), and results.json with it all.

Numbers are written with fixed precision so that two runs of the same
configuration give byte-identical files (test/t/72-bench-determinism.t).
"""
import csv
import os
import subprocess

# The mode table: (key in the metrics, column title, format).
COLUMNS = [
    ("mode", "mode", "{}"),
    ("slowdown_pct", "slowdown %", "{:.2f}"),
    ("nmi_cycles_per_sample", "NMI cyc/sample", "{:.0f}"),
    ("nmi_cycles_per_user_sample", "NMI cyc/user sample", "{:.0f}"),
    ("unwind_cycles_per_sample", "unwind cyc/sample", "{:.0f}"),
    ("unwind_cycles_per_frame", "unwind cyc/frame", "{:.0f}"),
    # Under the plugin (tools/bench/breakdown.py, model_columns).
    ("nmi_modelled_per_sample", "NMI modelled/sample", "{:.0f}"),
    ("unwind_modelled_per_sample", "unwind modelled/sample", "{:.0f}"),
    ("unwind_modelled_per_frame", "unwind modelled/frame", "{:.0f}"),
    ("unwind_cycles_max", "max unwind cyc", "{}"),
    ("bytes_per_sample", "bytes/sample", "{:.1f}"),
    ("user_frames_per_sample", "user frames/sample", "{:.2f}"),
    ("samples_per_unwind", "samples/unwind", "{:.2f}"),
    ("samples", "samples", "{}"),
    ("samples_lost", "lost", "{}"),
    ("truncated_pct", "truncated %", "{:.2f}"),
    ("accuracy_pct", "accuracy %", "{:.2f}"),
    # Under the plugin: the whole run's instructions and modelled cycles
    # against mode none's.
    ("plugin_slowdown_pct", "whole run +% (insns)", "{:.2f}"),
    ("modelled_slowdown_pct", "whole run +% (modelled)", "{:.2f}"),
]


def fmt(v, f="{}"):
    if v is None:
        return "-"
    return f.format(v)


def csv_value(v):
    """Floats with 6 decimals (repeatable text), None as an empty cell."""
    if v is None:
        return ""
    if isinstance(v, float):
        return f"{v:.6f}"
    return v


def table(rows, columns=COLUMNS):
    """The rows as an aligned text table, then one line per mode that did
    not work saying why (its numbers are left out, never made up)."""
    head = [title for _, title, _ in columns]
    body = [[fmt(r.get(key), f) for key, _, f in columns] for r in rows]
    widths = [max(len(x) for x in col) for col in zip(head, *body)]
    line = lambda cells: "  ".join(c.rjust(w) if i else c.ljust(w)
                                   for i, (c, w) in enumerate(zip(cells, widths)))
    out = [line(head), line(["-" * w for w in widths])] + [line(b) for b in body]
    for r in rows:
        if r.get("status", "ok") != "ok":
            out.append(f"{r['mode']}: {r['status']}")
    return "\n".join(out) + "\n"


def write_csv(path, rows, keys):
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(keys)
        for r in rows:
            w.writerow([csv_value(r.get(k)) for k in keys])


def rounded(obj):
    """obj with floats rounded the way the CSV files write them."""
    if isinstance(obj, float):
        return round(obj, 6)
    if isinstance(obj, dict):
        return {k: rounded(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [rounded(v) for v in obj]
    return obj


def plot(png, csv_path, title, xlabel, ylabel, series, keys):
    """One PNG: for each (ykey, label, modes) of series, ykey against x,
    one line per mode (label, if any, added to its title); both axes
    logarithmic (the curves span 1..256, 10..100000, 1..64 and
    100..20000). Returns the gnuplot script's path, kept next to the plot."""
    xcol = keys.index("x") + 1
    mcol = keys.index("mode") + 1
    lines = [
        'set terminal pngcairo size 900,560 font "DejaVu Sans,10"',
        f'set output "{png}"',
        'set datafile separator ","',
        f'set title "{title}"',
        f'set xlabel "{xlabel}"',
        f'set ylabel "{ylabel}"',
        "set logscale xy",
        "set key top left box opaque",
        "set grid",
    ]
    plots = [
        f'"{csv_path}" using {xcol}:(strcol({mcol}) eq "{m}" && strcol({col}) ne "" ? '
        f'${col} : NaN) with linespoints title "{m}{label}"'
        for ykey, label, modes in series for col in [keys.index(ykey) + 1] for m in modes
    ]
    lines.append("plot " + ", \\\n     ".join(plots))
    script = os.path.splitext(png)[0] + ".gp"
    with open(script, "w") as f:
        f.write("\n".join(line for line in lines if line) + "\n")
    subprocess.run(["gnuplot", script], check=True)
    return script


def markdown(rows, columns=COLUMNS):
    """The rows as a Markdown table (docs/BENCHMARKS.md pastes these)."""
    out = ["| " + " | ".join(title for _, title, _ in columns) + " |",
           "|" + "|".join(" --- " if i == 0 else " ---: " for i in range(len(columns))) + "|"]
    for r in rows:
        out.append("| " + " | ".join(fmt(r.get(k), f) for k, _, f in columns) + " |")
    return "\n".join(out) + "\n"


def pivot(rows, key, f, xtitle):
    """A curve as a Markdown table: one row per x, one column per mode."""
    modes = [m for m in dict.fromkeys(r["mode"] for r in rows) if m != "none"]
    xs = sorted({r["x"] for r in rows})
    cell = {(r["x"], r["mode"]): r.get(key) for r in rows}
    out = ["| " + xtitle + " | " + " | ".join(modes) + " |",
           "| ---: |" + " ---: |" * len(modes)]
    for x in xs:
        out.append(f"| {x} | " + " | ".join(fmt(cell.get((x, m)), f) for m in modes) + " |")
    return "\n".join(out) + "\n"


def per_workload(rows):
    """Each workload's slowdown in each mode, as a Markdown table."""
    modes = [r for r in rows if r["mode"] != "none"]
    names = list(rows[0]["workloads"]) if rows else []
    out = ["| workload | " + " | ".join(r["mode"] for r in modes) + " |",
           "| --- |" + " ---: |" * len(modes)]
    for n in names:
        out.append(f"| {n} | " + " | ".join(
            fmt((r.get("workload_slowdown_pct") or {}).get(n), "{:.2f}") for r in modes) + " |")
    return "\n".join(out) + "\n"


# The cache part: one row per run (metrics.cache_metrics).
CACHE_COLUMNS = [
    ("run", "run", "{}"),
    ("program", "program", "{}"),
    ("unwind_cycles_per_frame", "unwind cyc/frame", "{:.0f}"),
    # Under the plugin (tools/bench/breakdown.py, model_columns).
    ("nmi_modelled_per_sample", "NMI modelled/sample", "{:.0f}"),
    ("unwind_modelled_per_sample", "unwind modelled/sample", "{:.0f}"),
    ("unwind_modelled_per_frame", "unwind modelled/frame", "{:.0f}"),
    ("unwind_cycles_per_frame_steady", "the costliest left out", "{:.0f}"),
    ("plugin_insns_per_frame", "plugin: insns/frame, no page faults", "{:.0f}"),
    ("modelled_per_frame", "modelled/frame, no page faults", "{:.0f}"),
    ("unwind_cycles_max", "max unwind cyc", "{}"),
    ("frames_per_unwind", "frames/unwind", "{:.2f}"),
    ("unwind_cycles_per_sample", "unwind cyc/sample", "{:.0f}"),
    ("nmi_cycles_per_sample", "NMI cyc/sample", "{:.0f}"),
    ("nmi_cycles_per_user_sample", "NMI cyc/user sample", "{:.0f}"),
    ("rule_cache_hits", "cache hits", "{}"),
    ("rule_cache_misses", "cache misses", "{}"),
    ("slowdown_pct", "slowdown %", "{:.2f}"),
    ("samples", "samples", "{}"),
]
CACHE_KEYS = [key for key, _, _ in CACHE_COLUMNS] + ["status"]

# The breakdown (tools/bench/breakdown.py): one table per mode and window,
# and per mode one of what a sample costs in all (its entries are samples).
PER_SAMPLE = "sample (whole run minus mode none)"
BREAKDOWN_KEYS = ["mode", "window", "function", "insns", "per_entry", "per_frame", "pct",
                  "entries", "kernel_count", "cycles", "cycles_per_entry"]
BREAKDOWN_COLUMNS = [
    ("function", "function", "{}"),
    ("insns", "instructions", "{}"),
    ("per_entry", "per entry", "{:.1f}"),
    ("per_frame", "per frame", "{:.1f}"),
    ("pct", "%", "{:.1f}"),
    ("cycles", "modelled", "{}"),
    ("cycles_per_entry", "modelled per entry", "{:.1f}"),
]

# The memory part (breakdown.memory_row): per depth and mode, what a
# sample costs in instructions and in the plugin's modelled cycles.
MEMORY_COLUMNS = [
    ("program", "program", "{}"),
    ("depth", "depth", "{}"),
    ("mode", "mode", "{}"),
    ("stack_copy", "copy bytes", "{}"),
    ("samples", "samples", "{}"),
    ("nmi_insns", "NMI insns/sample", "{:.0f}"),
    ("nmi_cycles", "NMI modelled/sample", "{:.0f}"),
    ("unwind_insns", "unwind insns/sample", "{:.0f}"),
    ("unwind_cycles", "unwind modelled/sample", "{:.0f}"),
    ("sample_insns", "in all: insns/sample", "{:.0f}"),
    ("sample_cycles", "in all: modelled/sample", "{:.0f}"),
    ("cycles_per_insn", "modelled/insns", "{:.2f}"),
    ("sample_bytes", "bytes accessed/sample", "{:.0f}"),
    ("sample_rep_bytes", "rep bytes/sample", "{:.0f}"),
    ("sample_l1d_miss", "L1D load misses/sample", "{:.1f}"),
    ("sample_llc_miss", "LLC misses/sample (loads, fetches)", "{:.1f}"),
    ("sample_st_llc_miss", "store misses to memory/sample", "{:.1f}"),
    ("sample_cycles_stores", "in all: modelled/sample, stores charged too", "{:.0f}"),
]
MEMORY_KEYS = [key for key, _, _ in MEMORY_COLUMNS] + ["frames_per_unwind", "nmi_llc_miss",
                                                      "unwind_llc_miss"]

# A deferred unwind's own cost, per unwind (breakdown.unwind_row).
UNWIND_COLUMNS = [
    ("samples", "samples", "{}"),
    ("unwinds", "unwinds", "{}"),
    ("frames_per_unwind", "frames/unwind", "{:.1f}"),
    ("unwind_insns", "insns/unwind", "{:.0f}"),
    ("unwind_cycles", "modelled/unwind", "{:.0f}"),
    ("cycles_per_insn", "modelled/insns", "{:.2f}"),
    ("fault_cycles", "page faults in it: modelled/unwind", "{:.0f}"),
    ("unwind_loads", "loads/unwind", "{:.0f}"),
    ("unwind_l1d_miss", "L1d misses/unwind", "{:.1f}"),
    ("unwind_l2_miss", "L2 misses/unwind", "{:.1f}"),
    ("unwind_llc_miss", "LLC misses/unwind", "{:.1f}"),
]
UNWIND_KEYS = ["llc_miss", "fault_insns"]
FDESEARCH_COLUMNS = [("funcs", "N", "{}"), ("run", "caches", "{}")] + UNWIND_COLUMNS
FDESEARCH_KEYS = [key for key, _, _ in FDESEARCH_COLUMNS] + ["evict_kib"] + UNWIND_KEYS
RULECACHE_COLUMNS = [("callers", "K", "{}"), ("cache", "rule cache", "{}")] + UNWIND_COLUMNS + [
    ("rule_cache_hits", "cache hits", "{}"), ("rule_cache_misses", "cache misses", "{}")]
RULECACHE_KEYS = [key for key, _, _ in RULECACHE_COLUMNS] + UNWIND_KEYS


def breakdown_groups(rows):
    """(caption, rows) per mode and window, in the order they came."""
    groups = {}
    for r in rows:
        groups.setdefault((r["mode"], r["window"]), []).append(r)
    for (mode, window), g in groups.items():
        total = g[-1]
        kernel = (f"; the kernel's TSC count: {total['kernel_count']}"
                  if total["kernel_count"] is not None else "")
        unit = "samples" if window == PER_SAMPLE else "entries"
        modelled = (f", {total['cycles']} modelled cycles" if total.get("cycles") is not None
                    else "")
        yield (f"{mode}, {window}: {total['entries']} {unit}, "
               f"{total['insns']} instructions{modelled}{kernel}"), g


def breakdown_text(rows):
    return "\n".join(caption + "\n" + table(g, BREAKDOWN_COLUMNS)
                     for caption, g in breakdown_groups(rows))


def breakdown_markdown(rows):
    return "\n".join(f"*{caption}*\n\n" + markdown(g, BREAKDOWN_COLUMNS)
                     for caption, g in breakdown_groups(rows))
