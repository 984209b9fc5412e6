#!/usr/bin/env python3
"""trace-ctas.py N [QMASK] - a text trace (gpumemsim trace dump) on stdin with only the
records of CTAs below N, and of those only CTAs b whose bit b mod 4 is set in QMASK
(default 15), on stdout: what kernels/transtimed.cu's CTAS and QMASK arguments launch,
cut from a capture of the whole grid (findings §2f; the first CTAs run on the same SMs,
§2d). Each kernel's grid becomes N and its record count the records kept."""
import re
import sys


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__.split("\n")[0])
    n = int(sys.argv[1])
    qmask = int(sys.argv[2]) if len(sys.argv) == 3 else 15
    kept = 0
    for line in sys.stdin:
        if line.startswith("kernel "):
            kept = 0
            line = re.sub(r"grid=\d+,", f"grid={n},", line, count=1)
        elif line.startswith(("ld ", "st ")):
            m = re.search(r"\bcta=(\d+)", line)
            cta = int(m.group(1)) if m else 0
            if cta >= n or not (qmask >> (cta % 4)) & 1:
                continue
            kept += 1
        elif line.startswith("end kernel"):
            line = re.sub(r"mem=\d+", f"mem={kept}", line, count=1)
        sys.stdout.write(line)


if __name__ == "__main__":
    main()
