#!/usr/bin/env python3
"""spmv-stamps.py GHZ FILE... - how far apart spmv's warps run (findings §2e).

Each FILE is the stdout of `spmv scalar-timed [ROWS]` (kernels/spmv.cu): per
warp "warp start mid end sm", times in ns from the earliest start. Prints,
in SM cycles at GHZ (the H200 runs ncu's kernels at ~1.755), the spread of
the warps' middles and ends, and how far apart in time the middles of the
same warp of two neighbouring CTAs are when their SMs share a GPC (the SMs
whose identical x requests the LRC could merge)."""
import sys


def gpc_of(sm):
    """configs/h200.ini [gpu] sm_gpc (findings §2b)"""
    if sm < 64:
        return (sm // 2) % 8
    if sm < 120:
        return (sm - 64) // 2 % 7 + 1
    if sm < 122:
        return 6
    if sm < 124:
        return 7
    return 0


def q(values, f):
    values = sorted(values)
    return values[int(f * (len(values) - 1))]


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: spmv-stamps.py GHZ FILE...")
    ghz = float(sys.argv[1])
    for path in sys.argv[2:]:
        with open(path) as f:
            rows = [list(map(int, line.split())) for line in f if line.strip()]
        warps = {r[0]: (r[2] * ghz, r[3] * ghz, r[4]) for r in rows}
        gaps = [abs(warps[w + 2][0] - mid) for w, (mid, _, sm) in warps.items()
                if w + 2 in warps and gpc_of(warps[w + 2][2]) == gpc_of(sm)]
        if not gaps:
            sys.exit(f"{path}: no two neighbouring CTAs on SMs of one GPC")
        mids = [v[0] for v in warps.values()]
        ends = [v[1] for v in warps.values()]
        print(f"{path}: {len(warps)} warps; middle p10 {q(mids, .1):.0f} p50 {q(mids, .5):.0f} p90 {q(mids, .9):.0f}"
              f" cycles, end p50 {q(ends, .5):.0f} max {max(ends):.0f}; neighbours in one GPC ({len(gaps)} pairs):"
              f" middles apart p25 {q(gaps, .25):.0f} p50 {q(gaps, .5):.0f} p75 {q(gaps, .75):.0f} cycles")


if __name__ == "__main__":
    main()
