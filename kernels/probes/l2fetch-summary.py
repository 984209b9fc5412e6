#!/usr/bin/env python3
"""l2fetch-summary.py DIR - one line per ncu CSV (and its .log) of kernels/probes/l2fetch.sh's
l2fetch runs (f*) in DIR: the fetch limit the program reported, the L2 read sectors from the
SMs, their lookup hits and misses, the L2's fills from DRAM and the DRAM read sectors
(findings §15). The gathers (g*) are summarised by lrc-summary.py DIR 'g*.csv'."""
import csv, glob, os, sys
dest = sys.argv[1]
print(f"{'run':14s} {'limit':>5s} {'lts read':>8s} {'hit':>7s} {'miss':>7s} {'fill':>7s} {'dram rd':>7s}")
for path in sorted(glob.glob(os.path.join(dest, "f*.csv"))):
    with open(path) as f:
        lines = [l for l in f if l.startswith('"')]
    m = {}
    for r in csv.DictReader(lines):
        m[r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))
    g = lambda k: m.get(k, 0)
    limit = "?"
    with open(path[:-4] + ".log") as f:
        for l in f:
            if l.startswith("l2fetch: limit"):
                limit = l.split()[-1]
    print(f"{os.path.basename(path)[:-4]:14s} {limit:>5s}"
          f" {g('lts__t_sectors_srcunit_tex_op_read.sum'):8.0f}"
          f" {g('lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum'):7.0f}"
          f" {g('lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum'):7.0f}"
          f" {g('lts__d_sectors_fill_device.sum'):7.0f}"
          f" {g('dram__sectors_read.sum'):7.0f}")
