#!/usr/bin/env python3
"""lrc-summary.py DIR GLOB - one line per ncu CSV (and its .log) of kernels/probes/lrc-hits.sh,
l2slice-sms.sh (p-*) and lrc-gather.sh (g-*) in DIR matching GLOB: L1 miss sectors, the
sectors the LRC merged and their share, the L2 read sectors, hits and fabric sectors, the
time, and the pass starts lrcpair printed (findings §2e)."""
import csv, glob, os, sys
dest, pattern = sys.argv[1], sys.argv[2]
for path in sorted(glob.glob(os.path.join(dest, pattern))):
    with open(path) as f:
        lines = [l for l in f if l.startswith('"')]
    m = {}
    for r in csv.DictReader(lines):
        m[r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))
    g = lambda k: m.get(k, 0)
    req = g("l1tex__m_xbar2l1tex_read_sectors_mem_lg_op_ld.sum")
    got = g("lrc__request_sectors_op_read_coalescing_achieved_type_hardware.sum")
    skews = ""
    with open(path[:-4] + ".log") as f:
        for l in f:
            if l.startswith("passes"):
                skews = l.split("skews", 1)[1].strip()
    print(f"{os.path.basename(path)[:-4]:18s} miss {req:7.0f} merged {got:7.0f} ({got / req if req else 0:.3f})"
          f" lts {g('lts__t_sectors_srcunit_tex_op_read.sum'):7.0f}"
          f" hit {g('lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum'):7.0f}"
          f" fabric {g('lts__t_sectors_srcunit_ltcfabric_op_read.sum'):6.0f}"
          f" {g('gpu__time_duration.sum') / 1000:6.1f} us  l1-l2 {req - g('lts__t_sectors_srcunit_tex_op_read.sum'):6.0f}"
          f"  {skews}")
