#!/usr/bin/env python3
"""dram-summary.py - DRAM's bytes per SM cycle in kernels/dramrate.cu's ncu
CSVs (kernels/probes/dram.sh; docs/findings.md §18).

usage: kernels/probes/dram-summary.py DIR   (DIR/dramrate-{read,write,copy}.csv)
One line per launch: the kernel, SM cycles, DRAM bytes read and written, and
(read + written) / sm__cycles_elapsed.avg. Exit 1 when a file is missing or
holds no launch, 2 on a usage error."""
import csv
import os
import sys

SCALE = {"byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9}


def launches(path):
    """{launch id: {metric: value}} and the kernel names, from ncu --csv."""
    with open(path, newline="") as f:
        rows = list(csv.DictReader(line for line in f if line.startswith('"')))
    by, names = {}, {}
    for r in rows:
        v = float(r["Metric Value"].replace(",", ""))
        v *= SCALE.get(r["Metric Unit"], 1)
        by.setdefault(r["ID"], {})[r["Metric Name"]] = v
        names[r["ID"]] = r["Kernel Name"].split("(")[0]
    return by, names


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: dram-summary.py DIR")
    rc = 0
    for mode in ("read", "write", "copy"):
        path = os.path.join(sys.argv[1], f"dramrate-{mode}.csv")
        if not os.path.exists(path):
            print(f"dram-summary.py: {path}: missing", file=sys.stderr)
            rc = 1
            continue
        by, names = launches(path)
        if not by:
            print(f"dram-summary.py: {path}: no launch", file=sys.stderr)
            rc = 1
        for lid in sorted(by, key=int):
            m = by[lid]
            cyc = m["sm__cycles_elapsed.avg"]
            rd, wr = m["dram__bytes_read.sum"], m["dram__bytes_write.sum"]
            print(f"{mode:5} {names[lid]:26} cycles {cyc:9.0f}  read {rd / 1e6:7.1f} MB  "
                  f"written {wr / 1e6:7.1f} MB  {(rd + wr) / cyc:6.0f} B/cycle  "
                  f"({m['dram__throughput.avg.pct_of_peak_sustained_elapsed']:.1f}% of peak)")
    return rc


if __name__ == "__main__":
    sys.exit(main())
