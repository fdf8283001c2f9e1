#!/usr/bin/env python3
"""Unwind-table sizes of the user programs: for each ELF file given (by
default every build/userland/root/bin/* and lib/*), the bytes of .text,
.sframe, .eh_frame and .eh_frame_hdr (readelf -SW), and the ratios, as a
Markdown table, with the totals and the published clang figures
("Stack walking: space and time trade-offs", 2025-10-26) below.

    python3 tools/bench/sizes.py [FILE...] > out/bench/sizes.md
"""
import glob
import subprocess
import sys

SECTIONS = (".text", ".sframe", ".eh_frame", ".eh_frame_hdr")
CLANG = {".sframe": 9303875, ".eh_frame": 7408976, ".eh_frame_hdr": 1023004}


def sizes(path):
    out = subprocess.run(["readelf", "-SW", path], capture_output=True, text=True).stdout
    got = dict.fromkeys(SECTIONS, 0)
    for line in out.splitlines():
        f = line.replace("[ ", "[").split()
        if len(f) > 6 and f[1] in got:
            got[f[1]] = int(f[5], 16)
    return got


def ratio(a, b):
    return "%.3f" % (a / b) if b else "-"


def row(name, s):
    eh = s[".eh_frame"] + s[".eh_frame_hdr"]
    return "| %s | %d | %d | %d | %d | %s | %s | %s |" % (
        name, s[".text"], s[".sframe"], s[".eh_frame"], s[".eh_frame_hdr"],
        ratio(s[".sframe"], s[".text"]), ratio(eh, s[".text"]), ratio(s[".sframe"], eh))


def main(files):
    files = files or sorted(glob.glob("build/userland/root/bin/*") +
                            glob.glob("build/userland/root/lib/*"))
    print("| program | .text | .sframe | .eh_frame | .eh_frame_hdr | .sframe/.text "
          "| (.eh_frame+hdr)/.text | .sframe/(.eh_frame+hdr) |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    total = dict.fromkeys(SECTIONS, 0)
    for f in files:
        s = sizes(f)
        for k in SECTIONS:
            total[k] += s[k]
        print(row(f.replace("build/userland/root/", "/"), s))
    print(row("**all %d files**" % len(files), total))
    c = dict(CLANG, **{".text": 0})
    eh = c[".eh_frame"] + c[".eh_frame_hdr"]
    print("| clang (published) | - | %d | %d | %d | - | - | %s |" % (
        c[".sframe"], c[".eh_frame"], c[".eh_frame_hdr"], ratio(c[".sframe"], eh)))


if __name__ == "__main__":
    main(sys.argv[1:])
