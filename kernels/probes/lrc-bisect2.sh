#!/usr/bin/env bash
# lrc-bisect2.sh - the second step of findings §2f's bisection. lrc-bisect.sh
# found transtimed's readers merging all they can with only the first 16
# CTAs launched (two GPCs, 2 readers each) and ~8% of what they can with
# 128 (32 readers on 8 GPCs, each line's four sectors read by four groups
# of 8 SMs). These runs rebuild that pattern with lrcpair's strideg (one
# CTA an SM, meeting first, zeros), on the SMs the H200 gave transtimed's
# reading CTAs (traces/h200-probes/lrc-bisect/summary.txt), so that each
# part of it can be taken away:
#   sg-tb      all 32 SMs, group g reading sector g of the same 256 lines
#   sg-same    all 32 SMs, every one sector 0
#   sg-lines   all 32 SMs, group g the next g-th lines (no line shared)
#   sg-g0      group 0's 8 SMs alone, sector 0
#   sg-g01     groups 0 and 1 (sectors 0 and 1)
#   sg-gpc4    SMs 8 40 70 98 (one GPC by the cluster map) alone
#   p-A-B      SMs A and B alone: whether they merge (which GPC SM 128 is in;
#              transtimed's clock64 values put it beside SM 8)
#   t-c32      transtimed's first 32 CTAs, QMASK 1 (group 0's 8 readers)
# RUNS runs each (default 2). On the GPU machine, after make -C kernels:
#   kernels/probes/lrc-bisect2.sh DEST
set -u -o pipefail
DEST=${1:?usage: lrc-bisect2.sh DEST}
. kernels/probes/ncu-run.sh
. kernels/probes/lrc-groups.sh
mkdir -p "$DEST"
M=$(probe_metrics kernels/probes/lrchits.txt)
run() { # NAME ARGS... (lrcpair's)
    local name=$1
    shift
    probe_runs "$DEST" "$name" "$M" build/kernels/lrcpair "$@"
}
# shellcheck disable=SC2046,SC2086 # the SM lists split on purpose
{
    run sg-tb    strideg 16 2 4 $(sm_off 0 $G0) $(sm_off 8 $G1) $(sm_off 16 $G2) $(sm_off 24 $G3)
    run sg-same  strideg 16 2 4 $G0 $G1 $G2 $G3
    run sg-lines strideg 16 2 4 $(sm_off 0 $G0) $(sm_off 32 $G1) $(sm_off 64 $G2) $(sm_off 96 $G3)
    run sg-g0    strideg 16 2 4 $G0
    run sg-g01   strideg 16 2 4 $(sm_off 0 $G0) $(sm_off 8 $G1)
    run sg-gpc4  strideg 16 2 4 8 40 70 98
    run p-0-128  strideg 16 2 4 0 128
    run p-8-128  strideg 16 2 4 8 128
    run p-0-124  strideg 16 2 4 0 124
    run p-8-124  strideg 16 2 4 8 124
}
probe_runs "$DEST" t-c32 "$M" build/kernels/transtimed @STAMPS 0 32 1
xz -9 "$DEST"/*.txt 2>/dev/null
python3 kernels/probes/lrc-summary.py "$DEST" "*.csv"
