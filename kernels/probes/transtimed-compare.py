#!/usr/bin/env python3
"""transtimed-compare.py STAMPS TIMELINE [CONFIG] - kernels/transtimed.cu's warps on the H200
against the model (docs/findings.md §2f).

STAMPS: a stamps file of transtimed (cta sm warp g0 g1 g2 c0 c1 c2; .xz read as is);
TIMELINE: `gpumemsim run --timing --timeline` of its capture; CONFIG (default
configs/h200.ini): its sm_gpc ([gpu]), the GPC of each SM.

A warp's data is in at g2, the stamp after its two stores (which wait for both loads'
data; g1, taken before them, is only their issue: ptxas drops the sum the inline asm
names and hoists the timer read), in SM cycles at 1.98 per ns after the grid's first
start; the model's at the later of its two loads' done. Prints both as deciles; for every
two warps that read the same sectors (the same warp of CTAs 4 apart, 32 a sector group)
on SMs of one GPC, how far apart they issued their loads (g1; the model: its later
load's issue) and had their data; when each SM's CTAs had their data, by the CTA's rank
among its SM's CTAs (by index); and, on the SMs' own clocks, when the H200's ranks
started, issued their loads and had their data."""
import collections, csv, sys

from stamps import open_text

CYCLES_PER_NS = 1.98


def sm_gpc(config):
    for line in open(config):
        if line.split("=")[0].strip() == "sm_gpc":
            return [int(c) for c in line.split("=", 1)[1].split(";")[0].replace(" ", "").strip()]
    sys.exit(f"{config}: no sm_gpc key")


def deciles(x):
    x = sorted(x)
    return [int(x[min(len(x) - 1, i * len(x) // 10)]) for i in range(11)]


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__.split("\n")[0])
    gpc = sm_gpc(sys.argv[3] if len(sys.argv) == 4 else "configs/h200.ini")
    hw, clocks = {}, {}
    for r in csv.DictReader(open_text(sys.argv[1]), delimiter=" "):
        k = (int(r["cta"]), int(r["warp"]))
        hw[k] = (int(r["sm"]), int(r["g0"]) * CYCLES_PER_NS, int(r["g2"]) * CYCLES_PER_NS,
                 int(r["g1"]) * CYCLES_PER_NS)
        clocks[k] = (int(r["c0"]), int(r["c1"]), int(r["c2"]))
    model = collections.defaultdict(lambda: [None, float("inf"), 0, 0])
    for r in csv.DictReader(open(sys.argv[2])):
        if not r["op"].startswith("ld"):
            continue
        e = model[(int(r["cta"]), int(r["warp"]))]
        e[0], e[1], e[2] = int(r["sm"]), min(e[1], int(r["issue"])), max(e[2], int(r["done"]))
        e[3] = max(e[3], int(r["issue"]))  # the later load's issue
    t0 = min(e[1] for e in model.values())
    same_sm = sum(1 for k, v in hw.items() if k in model and model[k][0] == v[0])
    print(f"warps: {len(hw)} stamped, {len(model)} in the timeline, {same_sm} on the same SM in both")
    print("data in, cycles after the first start (deciles)")
    print("  H200 ", deciles([v[2] for v in hw.values()]))
    print("  model", deciles([e[2] - t0 for e in model.values()]))
    gaps_hw, gaps_model, issue_hw, issue_model = [], [], [], []
    ctas = 1 + max(k[0] for k in hw)
    for first in range(0, ctas, 32):
        for q in range(4):
            for w in range(4):
                group = [(first + 4 * j + q, w) for j in range(8) if (first + 4 * j + q, w) in hw]
                by_gpc = collections.defaultdict(list)
                for k in group:
                    by_gpc[gpc[hw[k][0]]].append(k)
                for ks in by_gpc.values():
                    for i, a in enumerate(ks):
                        for b in ks[i + 1:]:
                            gaps_hw.append(abs(hw[a][2] - hw[b][2]))
                            issue_hw.append(abs(hw[a][3] - hw[b][3]))
                            if a in model and b in model:
                                gaps_model.append(abs(model[a][2] - model[b][2]))
                                issue_model.append(abs(model[a][3] - model[b][3]))
    print(f"warps reading the same sectors on SMs of one GPC: {len(gaps_hw)} pairs, |loads issued apart| (deciles)")
    print("  H200 ", deciles(issue_hw))
    print("  model", deciles(issue_model))
    print("... and |data in apart| (deciles)")
    print("  H200 ", deciles(gaps_hw))
    print("  model", deciles(gaps_model))
    # the order an SM serves its CTAs: rank = the CTA's place among its SM's CTAs by index
    ranks = {}
    for sm in {v[0] for v in hw.values()}:
        for r, cta in enumerate(sorted({k[0] for k, v in hw.items() if v[0] == sm})):
            ranks[cta] = r
    by_rank_hw, by_rank_model = collections.defaultdict(list), collections.defaultdict(list)
    for k, v in hw.items():
        by_rank_hw[ranks[k[0]]].append(v[2])
        if k in model:
            by_rank_model[ranks[k[0]]].append(model[k][2] - t0)
    print("data in by the CTA's rank on its SM (by CTA index), median cycles")
    print("  rank ", list(range(len(by_rank_hw))))
    print("  H200 ", [int(sorted(by_rank_hw[r])[len(by_rank_hw[r]) // 2]) for r in range(len(by_rank_hw))])
    print("  model", [int(sorted(by_rank_model[r])[len(by_rank_model[r]) // 2]) for r in range(len(by_rank_model))])
    # the same on each SM's own clock: when the rank's warps start, issue their loads, have the data
    first = collections.defaultdict(lambda: float("inf"))
    for k, v in hw.items():
        first[v[0]] = min(first[v[0]], clocks[k][0])
    cols = [collections.defaultdict(list) for _ in range(3)]
    for k, v in hw.items():
        for i in range(3):
            cols[i][ranks[k[0]]].append(clocks[k][i] - first[v[0]])
    print("H200, SM cycles after the SM's first start, medians by rank: start / loads issued / data in")
    for r in sorted(cols[0]):
        print(f"  {r:2d} {' '.join(f'{sorted(c[r])[len(c[r]) // 2]:6d}' for c in cols)}")


if __name__ == "__main__":
    main()
