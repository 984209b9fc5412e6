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
NCU=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
mkdir -p "$DEST"
M=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' kernels/probes/lrchits.txt | paste -sd, -)
for p in 1 2; do
    for st in 0 100 200 300 400 500 600 700 800 1000 1500; do
        for r in 1 2; do
            name="w-$p-$st-r$r"
            timeout --kill-after=10 120 "$NCU" --csv --clock-control none --metrics "$M" \
                build/kernels/lrcpair passes "$p" 1 4 "$st" 0 16 >"$DEST/$name.csv" 2>"$DEST/$name.log" ||
                echo "$name: failed (rc $?)" >&2
        done
    done
done
python3 kernels/probes/lrc-summary.py "$DEST" "w-*.csv"
