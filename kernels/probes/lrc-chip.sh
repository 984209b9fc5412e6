#!/usr/bin/env bash
# lrc-chip.sh - whether the GPU machine's chip splits its GPCs into L2
# partitions as configs/h200.ini's gpc_partition says, and whether the reads
# of another sector that end a GPC's kept LRC requests are those of its own
# partition (findings §2f, twenty-fourth session: lrcpair strideg runs with
# the same arguments voided on one call's machine and not on another's).
# Prints the GPU's UUID, farlat from SM 0 to an SM of each GPC and to the
# SMs of lrc-bisect2's groups (B slow: B finds lines far, another
# partition), then group 0 (sector 0) with four SMs of one GPC G reading
# sector 1 (s-G, as lrc-xgpc2.sh's r-G). RUNS runs each (default 2).
#   kernels/probes/lrc-chip.sh DEST
set -u -o pipefail
DEST=${1:?usage: lrc-chip.sh DEST}
. kernels/probes/ncu-run.sh
. kernels/probes/lrc-groups.sh
mkdir -p "$DEST"
farlat_map "$DEST" 2 4 6 8 10 12 14 124 128 40 70 98 42 72 100 44 74 102 46 76 104
M=$(probe_metrics kernels/probes/lrchits.txt)
run() { # NAME ARGS... (lrcpair's)
    local name=$1
    shift
    probe_runs "$DEST" "$name" "$M" build/kernels/lrcpair "$@"
}
# shellcheck disable=SC2086 # the SM lists split on purpose
{
    run s-1 strideg 16 2 4 $G0 2:8 34:8 64:8 92:8
    run s-3 strideg 16 2 4 $G0 6:8 38:8 68:8 96:8
    run s-4 strideg 16 2 4 $G0 9:8 41:8 71:8 99:8
    run s-6 strideg 16 2 4 $G0 12:8 44:8 74:8 102:8
    run s-7 strideg 16 2 4 $G0 14:8 46:8 76:8 104:8
}
python3 kernels/probes/lrc-summary.py "$DEST" "*.csv"
