#!/usr/bin/env python3
"""banktimed-compare.py - kernels/banktimed.cu's stamps on the H200 beside the
timing model's record timeline of the same kernel (docs/timing.md, "The
record timeline").

usage: kernels/probes/banktimed-compare.py STAMPS [TIMELINE...]
  STAMPS    banktimed's OUTFILE (plain or .xz), e.g.
            traces/h200-probes/banktimed/stamps-ncu-528-1.txt.xz
  TIMELINE  `gpumemsim run --timing [--time-order] --timeline FILE` of the
            kernel's capture (kernels/probes/banktimed-capture.exp); any number

Per warp: when its 16 loads had issued and when its tile was in shared memory
(the H200: the stamps after the loads and after the stores to shared memory;
the model: its last global load's issue and its last shared store's issue),
in SM cycles after the grid's first warp started (the H200's %globaltimer
scaled by its clock64 rate; the model's first record). Printed per round of
CTA numbers (CTA / SMs; not an SM's own order: the H200 gives SM 124 CTAs 0,
84, 192 and 288, findings §20) as mean and deciles, then
each warp's wait from issued to tile in, and the spread of tile-in times
over an SM's warps.
"""
import collections
import csv
import statistics
import sys

from stamps import deciles, open_text

SMS = 132


def h200(path):
    """warps: (cta, sm, issued, tile_in) in cycles after the first start"""
    with open_text(path) as f:
        rows = [line.split() for line in f][1:]
    ratio = statistics.median((int(r[14]) - int(r[9])) / max(1, int(r[8]) - int(r[3])) for r in rows)
    g_first = min(int(r[3]) for r in rows)
    return ratio, [(int(r[0]), int(r[1]), (int(r[4]) - g_first) * ratio, (int(r[5]) - g_first) * ratio) for r in rows]


def model(path):
    first = None
    issued, tile_in, sm = {}, {}, {}
    with open(path) as f:
        for r in csv.DictReader(f):
            key = (int(r["cta"]), int(r["warp"]))
            at = int(r["issue"])
            first = at if first is None else min(first, at)
            sm[key] = int(r["sm"])
            if r["op"] == "ld.global":
                issued[key] = max(issued.get(key, 0), at)
            elif r["op"] == "st.shared":
                tile_in[key] = max(tile_in.get(key, 0), at)
    return [(k[0], sm[k], issued[k] - first, tile_in[k] - first) for k in tile_in if k in issued]


def report(name, warps):
    print("== %s: %d warps" % (name, len(warps)))
    rounds = collections.defaultdict(list)
    per_sm = collections.defaultdict(list)
    for cta, sm, issued, tile_in in warps:
        rounds[min(cta // SMS, 7)].append((issued, tile_in))
        per_sm[sm].append(tile_in)
    for r in sorted(rounds):
        print("  round %d loads issued  %s" % (r, deciles([x[0] for x in rounds[r]])))
        print("  round %d tile in       %s" % (r, deciles([x[1] for x in rounds[r]])))
    print("  issued to tile in     %s" % deciles([w[3] - w[2] for w in warps]))
    print("  SM's tile-in spread   %s" % deciles([max(v) - min(v) for v in per_sm.values()]))


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__.strip().split("\n\n")[1])
    ratio, warps = h200(sys.argv[1])
    report("H200 %s (%.3f cycles a ns)" % (sys.argv[1], ratio), warps)
    for path in sys.argv[2:]:
        report("model %s" % path, model(path))


if __name__ == "__main__":
    main()
