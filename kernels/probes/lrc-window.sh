#!/usr/bin/env bash
# lrc-window.sh - how long a read waiting for DRAM, and one hitting in L2,
# stays mergeable in the LRC, without the partner catching up (findings
# §2e). SMs 0 and 16 (GPC 0) each send ONE warp instruction of 8 whole-line
# requests (`lrcpair passes P 1 4 STAGGER 0 16`: 1 KiB, so only warp 0
# reads), SM 16 STAGGER cycles after SM 0; pass 1 misses in L2, pass 2 hits.
# ncu's merged counter less lrcpair's 96-sector prologue is 0 to 32.
# KIB=4 SPR=1 in the environment (ninth session): each of 4 warps sends 32
# one-sector requests instead (the gathers' kind, 128 in all), for STAGGERS
# (default the list below) and RUNS runs (default 2); names w-KIB-SPR-P-STAGGER-rR.
# On the GPU machine: kernels/probes/lrc-window.sh DEST
set -u -o pipefail
DEST=${1:?usage: lrc-window.sh DEST}
. kernels/probes/ncu-run.sh
mkdir -p "$DEST"
M=$(probe_metrics kernels/probes/lrchits.txt)
KIB=${KIB:-1} SPR=${SPR:-4}
STAGGERS=${STAGGERS:-0 100 200 300 400 500 600 700 800 1000 1500}
tag=""
[ "$KIB/$SPR" = "1/4" ] || tag="$KIB-$SPR-"
for p in 1 2; do
    for st in $STAGGERS; do
        for r in $(seq "${RUNS:-2}"); do
            probe_run "$DEST" "w-$tag$p-$st-r$r" "$M" build/kernels/lrcpair passes "$p" "$KIB" "$SPR" "$st" 0 16
        done
    done
done
python3 kernels/probes/lrc-summary.py "$DEST" "w-*.csv"
