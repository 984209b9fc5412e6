#!/usr/bin/env bash
# lrc-key.sh - what two identical read requests of SMs of one GPC must share
# to merge in the LRC (docs/findings.md §2e). On the GPU machine, after
# make -C kernels: kernels/probes/lrc-key.sh DEST
# `lrcpair key 16 WARP_A WARP_B ALTPC REV 0 16`: one warp of SM 0 and one of
# SM 16 (GPC 0) read the same 16 KiB, a whole line per instruction (512
# sectors the LRC could merge), from the same or another warp index, the same
# or other PCs, lanes in the same or the reverse order; SMs 0 and 2 (two
# GPCs) as the control. Two runs each. DEST/NAME.{csv,log}, the keyRead SASS
# in DEST/keyRead.sass, and kernels/probes/lrc-summary.py's line per run.
set -u -o pipefail
DEST=${1:?usage: lrc-key.sh DEST}
. kernels/probes/ncu-run.sh
mkdir -p "$DEST"
M=$(probe_metrics kernels/probes/lrchits.txt)
for v in "0 0 0 0" "3 3 0 0" "0 3 0 0" "3 0 0 0" "0 7 0 0" "0 0 1 0" "0 0 0 1" "0 3 1 1"; do
    for r in 1 2; do
        # shellcheck disable=SC2086
        probe_run "$DEST" "k-${v// /-}-r$r" "$M" build/kernels/lrcpair key 16 $v 0 16
    done
done
probe_run "$DEST" "c-0-0-0-0-r1" "$M" build/kernels/lrcpair key 16 0 0 0 0 0 2
cuobjdump -sass build/kernels/lrcpair | awk '/Function : .*keyRead/ {on = 1} on && /Function : / && !/keyRead/ {on = 0} on' >"$DEST/keyRead.sass"
python3 kernels/probes/lrc-summary.py "$DEST" "*.csv"
