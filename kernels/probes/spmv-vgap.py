#!/usr/bin/env python3
"""spmv-vgap.py STAMPS... - how far apart the two warps of each CTA of
`spmv vector-timed` (kernels/spmv.cu) store y, and when the CTAs of each SM
start (docs/findings.md §16). STAMPS: its stdout, "warp start store sm"
(SM clock cycles), plain or gzipped."""
import bisect, gzip, sys


def quart(a):
    a = sorted(a)
    return a[len(a) // 4], a[len(a) // 2], a[3 * len(a) // 4]


for path in sys.argv[1:]:
    opener = gzip.open if path.endswith('.gz') else open
    with opener(path, 'rt') as f:
        d = {int(r[0]): (int(r[1]), int(r[2]), int(r[3])) for r in (l.split() for l in f if l[:1].isdigit())}
    gaps = sorted(abs(d[2 * k][1] - d[2 * k + 1][1]) for k in range(len(d) // 2) if d[2 * k][2] == d[2 * k + 1][2])
    dur = [v[1] - v[0] for v in d.values()]
    by_sm = {}
    for t0, _, sm in d.values():
        by_sm.setdefault(sm, []).append(t0)
    spans = [max(v) - min(v) for v in by_sm.values()]
    within = ', '.join('%d: %d' % (lim, bisect.bisect_right(gaps, lim)) for lim in (10, 20, 50, 100, 200, 500))
    print('%s: %d CTAs; store gap p25/median/p75 %s cycles; gaps within (cycles: CTAs) %s; '
          'warp start to store %s; per-SM start span %s' % (path, len(gaps), quart(gaps), within, quart(dur),
                                                             quart(spans)))
