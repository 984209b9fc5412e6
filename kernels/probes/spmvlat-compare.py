#!/usr/bin/env python3
"""spmvlat-compare.py - spmv vector-lat's stamps on the H200 beside the timing
model's record timeline of the same kernel (docs/findings.md §21).

usage: kernels/probes/spmvlat-compare.py STAMPS... [--model TIMELINE...]
  STAMPS    spmv vector-lat's stdout, "warp sm t0 t1 t2 g0 g3 t3 tb gb" (plain or .xz), e.g.
            traces/h200-probes/spmvlat/stamps-warm-8192-1.txt.xz
  TIMELINE  `gpumemsim run --timing [--time-order] --timeline FILE` of the
            kernel's capture (kernels/probes/spmvlat-capture.exp)

Per warp, in SM cycles:
  to load   from the warp's first instruction to its load of col: the
            H200's t0 - tb, which holds the load of row_ptr and its wait
            (the SASS reads the clock t0 after the IMAD that adds the loaded
            row_ptr to the lane: cuobjdump -sass); the model's load of col
            less its load of row_ptr (the instructions before that load, a
            few tens of cycles on the H200, are not in it)
  col+val   from there to after the shared store that waits for col and val
            (the H200: t1 - t0; the model: the first shared store's issue
            less the load of col's issue)
  gather    from there to after the shared store that waits for its gather
            of x (the H200: t2 - t1; the model: the second shared store's
            issue less the first's)
  x load    the model only: the gather's own issue to data back
printed as mean and deciles, then the gathers by when the warp started
(quarters of the stamped warps by t0 on their own SM: the first warps of an
SM meet an idle memory system, the later ones the queues the first built).
Then, per SM, its warps' span from the first t0 to the last gather in, and
on the grid's time line (the H200: %globaltimer at t0 and after the warp's
stores issued, scaled by the SMs' clock rate t3 - t0 over g3 - g0; the
model: its row_ptr loads' and its last stores' issue): when each SM's
first warp started, when its last warp's stores issued, and the grid's span.
"""
import collections
import csv
import statistics
import sys

import stamps
from stamps import open_text


def deciles(v):
    return "n     0" if not v else "n %5d %s" % (len(v), stamps.deciles(v))


def h200(path):
    """warps: (sm, start, col+val, gather, x load, gather in, global start, global end)"""
    rows = []
    with open_text(path) as f:
        for line in f:
            rows.append([int(x) for x in line.split()])
    ratio = statistics.median((r[7] - r[2]) / max(1, r[6] - r[5]) for r in rows)
    if len(rows[0]) >= 10:  # tb and gb: the warp's start is its first instruction
        g_first = min(r[9] for r in rows)
        return [(r[1], r[2], r[3] - r[2], r[4] - r[3], None, r[4], (r[9] - g_first) * ratio,
                 (r[6] - g_first) * ratio, r[2] - r[8]) for r in rows], ratio
    g_first = min(r[5] for r in rows)
    return [(r[1], r[2], r[3] - r[2], r[4] - r[3], None, r[4], (r[5] - g_first) * ratio, (r[6] - g_first) * ratio,
             None) for r in rows], ratio


def model(path):
    recs = collections.defaultdict(list)
    with open(path) as f:
        for r in csv.DictReader(f):
            recs[(int(r["cta"]), int(r["warp"]))].append((r["op"], int(r["sm"]), int(r["issue"]), int(r["done"])))
    out = []
    for key, rs in recs.items():
        loads = [r for r in rs if r[0] == "ld.global"]
        stores = [r for r in rs if r[0] == "st.shared"]
        gstores = [r for r in rs if r[0] == "st.global"]
        if len(loads) < 4 or len(stores) < 2 or not gstores:
            continue
        # row_ptr, col, val, x in program order (the capture's order per warp)
        rp, col, x = loads[0], loads[1], loads[3]
        out.append((rp[1], col[2], stores[0][2] - col[2], stores[1][2] - stores[0][2], x[3] - x[2], stores[1][2],
                    rp[2], max(g[2] for g in gstores), col[2] - rp[2]))
    first = min(w[6] for w in out) if out else 0
    return [w[:6] + (w[6] - first, w[7] - first, w[8]) for w in out]


def report(name, warps):
    print("== %s: %d warps" % (name, len(warps)))
    if warps and warps[0][8] is not None:
        print("  to load  %s" % deciles([w[8] for w in warps]))
    print("  col+val  %s" % deciles([w[2] for w in warps]))
    print("  gather   %s" % deciles([w[3] for w in warps]))
    if warps and warps[0][4] is not None:
        print("  x load   %s" % deciles([w[4] for w in warps]))
    per_sm = collections.defaultdict(list)
    for w in warps:
        per_sm[w[0]].append(w)
    quarters = collections.defaultdict(list)
    for ws in per_sm.values():
        ws.sort(key=lambda w: w[1])
        for i, w in enumerate(ws):
            quarters[4 * i // len(ws)].append(w[3])
    for q in sorted(quarters):
        print("  gather, quarter %d of an SM's warps by start  %s" % (q + 1, deciles(quarters[q])))
    if not warps:
        return
    print("  an SM's first t0 to its last gather in     %s" % deciles(
        [max(w[5] for w in ws) - min(w[1] for w in ws) for ws in per_sm.values()]))
    print("  grid: an SM's first warp's start           %s" % deciles([min(w[6] for w in ws) for ws in per_sm.values()]))
    print("  grid: an SM's last warp's stores issued    %s" % deciles([max(w[7] for w in ws) for ws in per_sm.values()]))
    print("  grid: an SM's span (first start to last stores)  %s" % deciles(
        [max(w[7] for w in ws) - min(w[6] for w in ws) for ws in per_sm.values()]))


def main():
    args = sys.argv[1:]
    if not args or args[0] in ("-h", "--help"):
        sys.exit(__doc__.strip().split("\n\n")[1])
    stamps, timelines = args, []
    if "--model" in args:
        i = args.index("--model")
        stamps, timelines = args[:i], args[i + 1:]
    for path in stamps:
        warps, ratio = h200(path)
        report("H200 %s (%.3f cycles a ns)" % (path, ratio), warps)
    for path in timelines:
        report("model %s" % path, model(path))


if __name__ == "__main__":
    main()
