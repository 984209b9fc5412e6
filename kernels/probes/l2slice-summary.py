#!/usr/bin/env python3
"""l2slice-summary.py DIR - one line per ncu CSV of kernels/probes/l2slice.sh
and l2slice-sms.sh in DIR: for each measured l2bw launch (pattern line, half,
sect: ncu IDs 1, 3, 5; the even IDs are l2bw's warm-up launches) the L2 read
requests, the busiest slice's (.max) and its share: 1/N when the reads spread
evenly over N slices (findings §12a)."""
import csv
import glob
import os
import sys


def load(path):
    with open(path) as f:
        lines = [l for l in f if l.startswith('"')]
    m = {}
    for r in csv.DictReader(lines):
        m.setdefault(r["ID"], {})[r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))
    return m


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: l2slice-summary.py DIR")
    for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.csv"))):
        m = load(path)
        cells = []
        for launch, name in (("1", "line"), ("3", "half"), ("5", "sect")):
            d = m.get(launch, {})
            s = d.get("lts__t_requests_srcunit_tex_op_read.sum")
            mx = d.get("lts__t_requests_srcunit_tex_op_read.max")
            if s and mx:
                cells.append(f"{name} {s:8.0f} max {mx:7.0f} ({mx / s:.3f})")
            elif d.get("lts__t_tag_requests.sum"):
                t = d["lts__t_tag_requests.sum"]
                cyc = d.get("lts__cycles_elapsed.avg", 0)
                cells.append(f"{name} lookups {t:9.0f} ({t / cyc if cyc else 0:.1f} per L2 cycle) busiest slice"
                             f" {d.get('lts__t_tag_requests.max', 0) / t * 96:.2f} x the mean; LRC merged"
                             f" {d.get('lrc__request_sectors_op_read_coalescing_achieved_type_hardware.sum', 0):.0f}")
        if cells:
            print(f"{os.path.basename(path)[:-4]:10s} " + " | ".join(cells))


if __name__ == "__main__":
    main()
