#!/usr/bin/env bash
# lrc-bisect3.sh - which GPCs' reads of another sector of a line stop the
# merges of its readers (findings §2f; after lrc-bisect2.sh, where group 0's
# 8 SMs on GPCs 0, 4 and 5 reading sector 0 of 256 lines merged all they
# can alone, and ~8% with group 1's SMs on GPCs 5, 6 and 7 reading sector
# 1 of the same lines). Group 0 (sector 0) with, reading another sector:
#   x-p1       SMs of GPCs 1 and 2 (the other L2 partition, findings §7)
#   x-g6       SMs of GPC 6 (group 0's partition, none of group 0's GPCs)
#   x-g4       SMs 9 41 71 99 of GPC 4 (one of group 0's own GPCs)
#   x-g6s2     GPC 6 reading sector 2 (the line's other 64-byte half)
#   x-g6same   GPC 6 reading sector 0 (control: the same sector)
#   x-tb1      lrc-bisect2's sg-tb with one warp an SM
# RUNS runs each (default 2). On the GPU machine, after make -C kernels:
#   kernels/probes/lrc-bisect3.sh DEST
set -u -o pipefail
DEST=${1:?usage: lrc-bisect3.sh DEST}
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
    run x-p1     strideg 16 2 4 $G0 $(sm_off 8 2 34 64 92 4 36 66 94)
    run x-g6     strideg 16 2 4 $G0 $(sm_off 8 12 44 74 102)
    run x-g4     strideg 16 2 4 $G0 $(sm_off 8 9 41 71 99)
    run x-g6s2   strideg 16 2 4 $G0 $(sm_off 16 12 44 74 102)
    run x-g6same strideg 16 2 4 $G0 12 44 74 102
    run x-tb1    strideg 16 2 1 $(sm_off 0 $G0) $(sm_off 8 $G1) $(sm_off 16 $G2) $(sm_off 24 $G3)
}
python3 kernels/probes/lrc-summary.py "$DEST" "*.csv"
