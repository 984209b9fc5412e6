#!/usr/bin/env python3
"""cta-renumber.py - renumber a text trace's warps into CTAs of W warps.

usage: gpumemsim trace dump T | bench/cta-renumber.py W > OUT.trace

Every record keeps its place in capture order, its addresses and its PC; only
(cta, warp, sm) change: flat warp g = cta x warps_per_cta + warp becomes CTA
g // W, warp g % W, and the launch's grid and block say so. A new CTA runs on
the SM of its first original CTA (for W above the captured CTA size, new CTAs
join original ones that ran on other SMs). This is how docs/timing.md sweeps
the CTA size of writeSegment_off11 (findings §6) from one capture: the same
stores, as CTAs of another size would make them, but at the captured times
and places, not those of a real launch of that size."""
import re
import sys


def main():
    if len(sys.argv) != 2 or not sys.argv[1].isdigit() or not 1 <= int(sys.argv[1]) <= 32:
        sys.exit("usage: gpumemsim trace dump T | cta-renumber.py W (1..32) > OUT")
    w_new = int(sys.argv[1])
    lines = sys.stdin.read().splitlines()
    per_cta = None
    sm_of = {}
    rec = re.compile(r'^(ld|st|atom|red|bar)\b.*\bcta=(\d+) warp=(\d+) sm=(-?\d+)')
    for ln in lines:
        if ln.startswith('kernel '):
            if per_cta is not None:
                sys.exit("cta-renumber.py: one kernel per trace only")
            block = [int(x) for x in re.search(r'block=(\d+),(\d+),(\d+)', ln).groups()]
            per_cta = block[0] * block[1] * block[2] // 32
            continue
        m = rec.match(ln)
        if m:
            sm_of.setdefault(int(m.group(2)), m.group(4))
    if per_cta is None:
        sys.exit("cta-renumber.py: no kernel in the trace")
    out = []
    for ln in lines:
        if ln.startswith('kernel '):
            total = per_cta * eval_grid(ln)
            ln = re.sub(r'grid=\d+,\d+,\d+', 'grid=%d,1,1' % ((total + w_new - 1) // w_new), ln)
            ln = re.sub(r'block=\d+,\d+,\d+', 'block=%d,1,1' % (32 * w_new), ln)
        else:
            m = rec.match(ln)
            if m:
                g = int(m.group(2)) * per_cta + int(m.group(3))
                cta, warp = g // w_new, g % w_new
                sm = sm_of.get(cta * w_new // per_cta, m.group(4))
                ln = re.sub(r'\bcta=\d+ warp=\d+ sm=-?\d+', 'cta=%d warp=%d sm=%s' % (cta, warp, sm), ln)
        out.append(ln)
    sys.stdout.write('\n'.join(out) + '\n')


def eval_grid(ln):
    g = [int(x) for x in re.search(r'grid=(\d+),(\d+),(\d+)', ln).groups()]
    return g[0] * g[1] * g[2]


if __name__ == '__main__':
    main()
