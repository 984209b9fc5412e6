#!/usr/bin/env bash
# lrc-hits.sh - does the L2 request coalescer merge reads whose data L2 already
# holds, and how far apart may they be (findings §2e)? On the GPU machine,
# from the repository root, after make -C kernels:
#   kernels/probes/lrc-hits.sh DEST [KIB]
# `lrcpair passes P KIB SPR STAGGER SM...`: SMs 0 and 16 (GPC 0) read one
# buffer P times, meeting before each pass, SM 16 starting each pass STAGGER
# cycles after; the first pass misses in L2, the others hit. A launch of P
# passes against one of P - 1 says what the last pass merged. SMs 0 and 2
# (two GPCs) are the control that merges nothing. Writes DEST/NAME.{csv,log}
# and prints one line per launch (the log's skews: each pass's start on SM 16
# against SM 0, ns).
set -u -o pipefail
DEST=${1:?usage: lrc-hits.sh DEST [KIB]} KIB=${2:-256}
. kernels/probes/ncu-run.sh
BIN=build/kernels/lrcpair
mkdir -p "$DEST"
M=$(probe_metrics kernels/probes/lrchits.txt)
prof() { probe_run "$DEST" "$1" "$M" "$BIN" "${@:2}"; } # NAME ARGS...: one ncu run of lrcpair
for spr in 1 4; do
    for p in 1 2 3 4 6; do
        prof "p-$spr-$p-0" passes "$p" "$KIB" "$spr" 0 0 16
    done
    prof "p-$spr-2-0-b" passes 2 "$KIB" "$spr" 0 0 16
    prof "p-$spr-3-0-b" passes 3 "$KIB" "$spr" 0 0 16
    for st in 25 50 100 200 400 800 1600; do
        prof "p-$spr-1-$st" passes 1 "$KIB" "$spr" "$st" 0 16
        prof "p-$spr-2-$st" passes 2 "$KIB" "$spr" "$st" 0 16
    done
    prof "p-$spr-2-0-cross" passes 2 "$KIB" "$spr" 0 0 2
done
python3 kernels/probes/lrc-summary.py "$DEST" "p-*.csv"
