#!/usr/bin/env python3
"""trace-ctas.py N [QMASK [STAMPS]] - a text trace (gpumemsim trace dump) on stdin with only the
records of CTAs below N, and of those only CTAs b whose bit b mod 4 is set in QMASK
(default 15), on stdout: what kernels/transtimed.cu's CTAS and QMASK arguments launch,
cut from a capture of the whole grid (findings §2f). Each kernel's grid becomes N and its
record count the records kept. STAMPS (transtimed's OUTFILE, .xz or plain): each CTA's
record gets the SM that CTA ran on in that launch (the whole grid's capture has its CTAs
on other SMs than a launch of fewer CTAs: findings §2f, the twenty-fourth session)."""
import re
import sys

from stamps import open_text


def cta_sms(path):
    """{cta: sm} from transtimed's stamps ("cta sm warp ..." per warp, a header line)"""
    sms = {}
    with open_text(path) as f:
        for line in f:
            fields = line.split()
            if len(fields) >= 2 and fields[0].isdigit():
                sms[int(fields[0])] = int(fields[1])
    return sms


def main():
    if len(sys.argv) not in (2, 3, 4):
        sys.exit(__doc__.split("\n")[0])
    n = int(sys.argv[1])
    qmask = int(sys.argv[2]) if len(sys.argv) >= 3 else 15
    sms = cta_sms(sys.argv[3]) if len(sys.argv) == 4 else {}
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
            if cta in sms:
                line = re.sub(r"\bsm=\d+", f"sm={sms[cta]}", line, count=1)
            kept += 1
        elif line.startswith("end kernel"):
            line = re.sub(r"mem=\d+", f"mem={kept}", line, count=1)
        sys.stdout.write(line)


if __name__ == "__main__":
    main()
