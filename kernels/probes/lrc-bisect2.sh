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
mkdir -p "$DEST"
M=$(probe_metrics kernels/probes/lrchits.txt)
G0="124 128 8 40 70 98 10 42"
G1="72 100 12 44 74 102 14 46"
G2="76 104 0 32 2 34 64 92"
G3="4 36 66 94 6 38 68 96"
off() { # OFF SM... -> SM:OFF...
    local o=$1
    shift
    for s in "$@"; do printf '%s:%s ' "$s" "$o"; done
}
run() { # NAME ARGS... (lrcpair's, or transtimed's after the word transtimed)
    local name=$1
    shift
    for r in $(seq "${RUNS:-2}"); do
        if [ "$1" = transtimed ]; then
            probe_run "$DEST" "$name-r$r" "$M" build/kernels/transtimed "$DEST/$name-r$r.txt" 0 "${@:2}"
        else
            probe_run "$DEST" "$name-r$r" "$M" build/kernels/lrcpair "$@"
        fi
    done
}
# shellcheck disable=SC2046,SC2086 # the SM lists split on purpose
{
    run sg-tb    strideg 16 2 4 $(off 0 $G0) $(off 8 $G1) $(off 16 $G2) $(off 24 $G3)
    run sg-same  strideg 16 2 4 $G0 $G1 $G2 $G3
    run sg-lines strideg 16 2 4 $(off 0 $G0) $(off 32 $G1) $(off 64 $G2) $(off 96 $G3)
    run sg-g0    strideg 16 2 4 $G0
    run sg-g01   strideg 16 2 4 $(off 0 $G0) $(off 8 $G1)
    run sg-gpc4  strideg 16 2 4 8 40 70 98
    run p-0-128  strideg 16 2 4 0 128
    run p-8-128  strideg 16 2 4 8 128
    run p-0-124  strideg 16 2 4 0 124
    run p-8-124  strideg 16 2 4 8 124
}
run t-c32 transtimed 32 1
xz -9 "$DEST"/*.txt 2>/dev/null
python3 kernels/probes/lrc-summary.py "$DEST" "*.csv"
