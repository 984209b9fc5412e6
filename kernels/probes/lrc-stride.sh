#!/usr/bin/env bash
# lrc-stride.sh - do two SMs' one-sector reads of the same lines merge when a
# load's 32 lines lie 2 KiB apart, as a transpose's column? (docs/findings.md
# §2f) `lrcpair stride S K FA FB DELAY_B 0 16`: warp 0 of SM 0 and of SM 16
# (same GPC) each issue K loads of 32 lines S apart (float FA / FB of each),
# SM 16 DELAY_B cycles later. Merged: L1 miss sectors less L2 read sectors
# (32 x K when all of SM 16's merge). RUNS runs each (default 2); names
# s-S-K-FA-FB-DELAY_B-rR; the strideg part below.
# On the GPU machine, after make -C kernels: kernels/probes/lrc-stride.sh DEST
set -u -o pipefail
DEST=${1:?usage: lrc-stride.sh DEST}
. kernels/probes/ncu-run.sh
mkdir -p "$DEST"
M=$(probe_metrics kernels/probes/lrchits.txt)
[ "${PARTS:-all}" = group ] ||
for s in 1 16; do
    for k in 1 8; do
        for fb in 0 1; do
            for d in 0 100; do
                for r in $(seq "${RUNS:-2}"); do
                    probe_run "$DEST" "s-$s-$k-0-$fb-$d-r$r" "$M" build/kernels/lrcpair stride "$s" "$k" 0 "$fb" "$d" 0 16
                done
            done
        done
    done
done
# strideg: W warps of each of the listed SMs at once, the same lines on every
# SM (K loads a warp); names g-S-K-W-NSMS-rR (this loop alone: PARTS=group)
run_group() { # NAME ARGS...
    local name=$1
    shift
    for r in $(seq "${RUNS:-2}"); do
        probe_run "$DEST" "$name-r$r" "$M" build/kernels/lrcpair strideg "$@"
    done
}
if [ "${PARTS:-all}" = group ] || [ "${PARTS:-all}" = all ]; then
    run_group g-16-2-1-2 16 2 1 0 16
    run_group g-16-2-4-2 16 2 4 0 16
    run_group g-16-2-1-4 16 2 1 0 16 32 48
    run_group g-16-2-4-4 16 2 4 0 16 32 48
    run_group g-1-2-4-4 1 2 4 0 16 32 48
    run_group g-16-8-1-4 16 8 1 0 16 32 48
fi
python3 kernels/probes/lrc-summary.py "$DEST" "[sg]-*.csv"
