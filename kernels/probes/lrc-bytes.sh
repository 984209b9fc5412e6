#!/usr/bin/env bash
# lrc-bytes.sh - do two reads of one sector merge when they ask for other
# bytes of it? (docs/findings.md §2f) `lrcpair bytes FA FB DELAY_B 0 16`:
# SM 0 reads float FA of 8 lines (8 one-sector requests of 4 bytes), SM 16
# (same GPC) float FB of the same lines DELAY_B cycles later: the same
# bytes (0 0), other bytes of the same sector (0 1), another sector (0 8).
# Merged: L1 miss sectors less L2 read sectors (8 when SM 16's all merge).
# RUNS runs each (default 2); names b-FA-FB-DELAY_B-rR.
# On the GPU machine, after make -C kernels: kernels/probes/lrc-bytes.sh DEST
set -u -o pipefail
DEST=${1:?usage: lrc-bytes.sh DEST}
. kernels/probes/ncu-run.sh
mkdir -p "$DEST"
M=$(probe_metrics kernels/probes/lrchits.txt)
for fb in 0 1 8; do
    for d in ${DELAYS:-0 30 100 200}; do
        for r in $(seq "${RUNS:-2}"); do
            probe_run "$DEST" "b-0-$fb-$d-r$r" "$M" build/kernels/lrcpair bytes 0 "$fb" "$d" 0 16
        done
    done
done
python3 kernels/probes/lrc-summary.py "$DEST" "b-*.csv"
