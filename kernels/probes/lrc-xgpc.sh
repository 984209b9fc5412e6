#!/usr/bin/env bash
# lrc-xgpc.sh - does a read of another GPC to the same line, between two
# reads of one GPC, stop them merging? (docs/findings.md §2f)
# `lrcpair xgpc SPR C_OFF 100 200 0 16 [SM_C]`: SM 0 reads the first SPR
# sectors of 8 lines, SM_C 100 cycles later sectors C_OFF .. C_OFF + SPR - 1
# of the same lines (SM 2: GPC 1; SM 32: GPC 0), SM 16 (GPC 0) SM 0's
# sectors 200 cycles after the meeting (within the ~300 cycles such a read
# stays mergeable, lrc-evict.sh). Merged: L1 miss sectors less L2 read
# sectors. RUNS runs each (default 2); names x-SPR-C-C_OFF-rR; h-...: below.
# On the GPU machine, after make -C kernels: kernels/probes/lrc-xgpc.sh DEST
set -u -o pipefail
DEST=${1:?usage: lrc-xgpc.sh DEST}
. kernels/probes/ncu-run.sh
mkdir -p "$DEST"
M=$(probe_metrics kernels/probes/lrchits.txt)
run() { # NAME ARGS...
    local name=$1
    shift
    for r in $(seq "${RUNS:-2}"); do
        probe_run "$DEST" "$name-r$r" "$M" build/kernels/lrcpair xgpc "$@"
    done
}
for spr in 4 2 1; do
    run "x-$spr-none-0" "$spr" 0 100 200 0 16
    run "x-$spr-g1-0" "$spr" 0 100 200 0 16 2
    run "x-$spr-g0-0" "$spr" 0 100 200 0 16 32
done
for spr in 2 1; do
    run "x-$spr-g1-$spr" "$spr" "$spr" 100 200 0 16 2
    run "x-$spr-g0-$spr" "$spr" "$spr" 100 200 0 16 32
done
# The other way round: SM 2 (GPC 1) reads first, at 0, so that SM 0's read
# of the same sectors at DELAY_C finds them on their way into L2 (or, at
# 600, in it), and SM 16 reads them at DELAY_C + 100: does it merge with
# SM 0's? Names h-SPR-DELAY_C-rR.
for spr in 1 4; do
    for c in 50 100 600; do
        run "h-$spr-$c" "$spr" 0 "$c" $((c + 100)) 2 16 0
    done
done
python3 kernels/probes/lrc-summary.py "$DEST" "[xh]-*.csv"
