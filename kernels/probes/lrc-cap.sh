#!/usr/bin/env bash
# lrc-cap.sh - does the LRC track only so many read requests in flight?
# (docs/findings.md §2e). On the GPU machine, after make -C kernels:
# kernels/probes/lrc-cap.sh DEST
# `lrcpair cap M FILLER_SM DELAY_A DELAY_B 0 16`: SMs 0 and 16 (GPC 0) read
# the same 8 lines (32 sectors) while M one-sector reads to other lines are
# in flight, sent by SM 0 itself just before (filler 0), by SM 32 of the same
# GPC, or by SM 2 of another GPC. Two runs each. DEST/NAME.{csv,log} and
# kernels/probes/lrc-summary.py's line per run (merged: of the 32).
set -u -o pipefail
DEST=${1:?usage: lrc-cap.sh DEST}
. kernels/probes/ncu-run.sh
mkdir -p "$DEST"
M=$(probe_metrics kernels/probes/lrchits.txt)
run() { # NAME ARGS...
    local name=$1
    shift
    for r in 1 2; do
        probe_run "$DEST" "$name-r$r" "$M" build/kernels/lrcpair cap "$@" 0 16
    done
}
run base 0 0 0 200
for m in 64 256 1024; do
    run "selfA-$m" "$m" 0 0 $((m + 300))
    run "gpc-$m" "$m" 32 $((m + 100)) $((m + 300))
done
for m in 256 1024; do
    run "other-$m" "$m" 2 $((m + 100)) $((m + 300))
done
python3 kernels/probes/lrc-summary.py "$DEST" "*.csv"
