#!/usr/bin/env python3
"""dramrepeat-summary.py DIR - what kernels/probes/dramrepeat.sh measured (docs/findings.md
section 19): from the one-line steps (DIR/rep-FLUSH-1.txt, or .txt.xz) the two modes of a
line's latency (near and far L2 partition, split at 615 cycles) and the spread about them;
then whether independent draws explain the warp loads of 4 and 32 lines (their means from
DIR/dramrepeat.txt): the mean of the slowest of L draws, each a measured one-line latency,
or a line's mode (near with the measured share) plus a residual drawn from the measured
ones, or the modes alone (what a model with one latency per partition gives)."""
import lzma
import os
import random
import re
import statistics
import sys

SPLIT = 615  # cycles: the valley between the near and the far mode


def steps(path):
    opener = lzma.open if path.endswith(".xz") else open
    with opener(path, "rt") as f:
        next(f)
        return [int(l.split()[4]) for l in f if int(l.split()[1]) >= 8]  # the first steps warm the TLB


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: dramrepeat-summary.py DIR")
    d = sys.argv[1]
    one = []
    for flush in ("read", "write"):
        p = os.path.join(d, "rep-%s-1.txt" % flush)
        one += steps(p if os.path.exists(p) else p + ".xz")
    near = [c for c in one if c < SPLIT]
    far = [c for c in one if c >= SPLIT]
    mn, mf = statistics.median(near), statistics.median(far)
    share = len(near) / len(one)
    res = sorted([c - mn for c in near] + [c - mf for c in far])
    mu = statistics.mean(res)
    print("one-line steps: %d, mean %.1f; near %.1f%% (median %d), far (median %d); residual mean %+.1f"
          % (len(one), statistics.mean(one), 100 * share, mn, mf, mu))
    n = len(res)
    print("residual percentiles 50 90 95 99 99.9 max: %s"
          % " ".join("%+d" % res[min(n - 1, int(q * n))] for q in (0.5, 0.9, 0.95, 0.99, 0.999, 1.0)))
    measured = {}
    for line in open(os.path.join(d, "dramrepeat.txt")):
        m = re.match(r"dramrepeat (\w+)\s+L\s+(\d+) pass \d mean ([\d.]+)", line)
        if m:
            measured.setdefault(int(m.group(2)), []).append(float(m.group(3)))
    rng = random.Random(7)
    for L in sorted(measured):
        whole = [max(rng.choice(one) for _ in range(L)) for _ in range(20000)]
        draws = [max((mn if rng.random() < share else mf) + rng.choice(res) for _ in range(L)) for _ in range(20000)]
        modes = [max((mn if rng.random() < share else mf) + mu for _ in range(L)) for _ in range(20000)]
        print("L %2d: measured %.0f; the slowest of L lines drawn independently: whole latencies %.0f, "
              "a mode and a residual %.0f, the modes alone %.0f"
              % (L, statistics.mean(measured[L]), statistics.mean(whole), statistics.mean(draws), statistics.mean(modes)))


if __name__ == "__main__":
    main()
