#!/usr/bin/env bash
# lrc-gather.sh - do identical requests that two SMs' gathers make by chance
# merge in the LRC, as identical streams do (findings §2e)? On the GPU
# machine, after make -C kernels: kernels/probes/lrc-gather.sh DEST
# `lrcpair gather KIB SAME SM...` over 2, 4 and 8 SMs of GPC 0, the same
# sequence on every SM (SAME 1) or each its own (0), two runs each, and at
# 32 KiB with every other SM streaming 512 KiB from DRAM meanwhile (load512);
# bench/lrcgroup-trace.py K gather-same|gather-own KIB writes the model's
# trace of each. DEST/NAME.{csv,log}; one line per launch at the end.
set -u -o pipefail
DEST=${1:?usage: lrc-gather.sh DEST}
. kernels/probes/ncu-run.sh
mkdir -p "$DEST"
M=$(probe_metrics kernels/probes/lrchits.txt)
SMS=(0 16 32 48 1 17 33 49)
for kib in 32 128; do
    for k in 2 4 8; do
        for same in 1 0; do
            for r in 1 2; do
                probe_run "$DEST" "g-$kib-$k-$same-r$r" "$M" build/kernels/lrcpair gather "$kib" "$same" 0 "${SMS[@]:0:$k}"
            done
        done
    done
done
# the same with every other SM streaming 512 KiB of its own from DRAM meanwhile
for k in 4 8; do
    for same in 1 0; do
        for r in 1 2; do
            probe_run "$DEST" "g-32-$k-$same-load512-r$r" "$M" build/kernels/lrcpair gather 32 "$same" 512 "${SMS[@]:0:$k}"
        done
    done
done
python3 kernels/probes/lrc-summary.py "$DEST" "g-*.csv"
