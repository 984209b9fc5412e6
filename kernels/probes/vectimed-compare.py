#!/usr/bin/env python3
"""vectimed-compare.py - a one-wave stream's data arrival on the H200 beside
the model's (docs/findings.md §25).

usage: kernels/probes/vectimed-compare.py STAMPS[.xz] TIMELINE.csv [STAMPS ...]

STAMPS: kernels/vectimed.cu's output (cta sm warp g0 g1 g2 c0 c1 c2); TIMELINE:
`gpumemsim run --timing --timeline` of a capture of the same launch
(kernels/probes/vectimed.exp). Prints, in SM cycles, ventiles of when each
warp's data is in (from the grid's first warp start; the H200's nanoseconds
times its own cycles per nanosecond, the median over its warps) and of each
warp's wait (its start to its data: the H200's clock64, the model's first
record to its last load's data).
"""
import csv
import lzma
import statistics
import sys
from collections import defaultdict


def ventiles(v):
    v = sorted(v)
    n = len(v)
    return " ".join("%6d" % v[min(n - 1, q * n // 20)] for q in range(0, 21, 2))


def hardware(path):
    opener = lzma.open if path.endswith(".xz") else open
    with opener(path, "rt") as f:
        rows = [line.split() for line in f][1:]
    ratio = statistics.median((int(r[8]) - int(r[6])) / (int(r[5]) - int(r[3]))
                              for r in rows if int(r[5]) - int(r[3]) > 500)
    g_first = min(int(r[3]) for r in rows)
    data_in = [(int(r[4]) - g_first) * ratio for r in rows]
    wait = [int(r[7]) - int(r[6]) for r in rows]
    return ratio, data_in, wait


def model(path):
    warps = defaultdict(list)
    with open(path) as f:
        for r in csv.DictReader(f):
            warps[(r["cta"], r["warp"])].append((int(r["issue"]), int(r["done"]), r["op"]))
    t0 = min(x[0] for v in warps.values() for x in v)
    data_in, wait = [], []
    for v in warps.values():
        loads = [x for x in v if x[2] == "ld.global"]
        if not loads:
            continue
        d = max(x[1] for x in loads)
        data_in.append(d - t0)
        wait.append(d - min(x[0] for x in v))
    return data_in, wait


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__.strip())
    timeline = argv[2]
    stamps = [argv[1]] + argv[3:]
    print("%-34s %s" % ("data in, cycles (ventiles 0..100)", ""))
    m_in, m_wait = model(timeline)
    rows = []
    for s in stamps:
        ratio, h_in, h_wait = hardware(s)
        print("%-34s %s" % ("H200 %s (%.3f cycles/ns)" % (s.split("/")[-1], ratio), ventiles(h_in)))
        rows.append((s, h_wait))
    print("%-34s %s" % ("model " + timeline.split("/")[-1], ventiles(m_in)))
    print("warp wait, cycles (mean, ventiles)")
    for s, h_wait in rows:
        print("%-34s %6d | %s" % ("H200 " + s.split("/")[-1], statistics.mean(h_wait), ventiles(h_wait)))
    print("%-34s %6d | %s" % ("model", statistics.mean(m_wait), ventiles(m_wait)))


if __name__ == "__main__":
    main(sys.argv)
