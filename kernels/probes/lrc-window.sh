#!/usr/bin/env bash
# lrc-window.sh - how long a read waiting for DRAM, and one hitting in L2,
# stays mergeable in the LRC, without the partner catching up (findings
# §2e). SMs 0 and 16 (GPC 0) each send ONE warp instruction of 8 whole-line
# requests (`lrcpair passes P 1 4 STAGGER 0 16`: 1 KiB, so only warp 0
# reads), SM 16 STAGGER cycles after SM 0; pass 1 misses in L2, pass 2 hits.
# ncu's merged counter less lrcpair's 96-sector prologue is 0 to 32.
# On the GPU machine: kernels/probes/lrc-window.sh DEST
set -u -o pipefail
DEST=${1:?usage: lrc-window.sh DEST}
. kernels/probes/ncu-run.sh
mkdir -p "$DEST"
M=$(probe_metrics kernels/probes/lrchits.txt)
for p in 1 2; do
    for st in 0 100 200 300 400 500 600 700 800 1000 1500; do
        for r in 1 2; do
            probe_run "$DEST" "w-$p-$st-r$r" "$M" build/kernels/lrcpair passes "$p" 1 4 "$st" 0 16
        done
    done
done
python3 kernels/probes/lrc-summary.py "$DEST" "w-*.csv"
