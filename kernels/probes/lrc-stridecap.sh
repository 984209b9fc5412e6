#!/usr/bin/env bash
# lrc-stridecap.sh - does the LRC hold fewer lines in flight when they are
# 2 KiB apart, as a transpose's columns are (findings §2f)? Four SMs of GPC
# 0 (0 16 32 48) read the same sector of N lines at once (lrcpair strideg S
# K W: N = 32 K W lines S apart), S = 16 (2 KiB, a transpose's column) and
# S = 1 (next to each other), N = 256 to 4,096. All that can merge: 3 N.
# RUNS runs each (default 2). On the GPU machine, after make -C kernels:
#   kernels/probes/lrc-stridecap.sh DEST
set -u -o pipefail
DEST=${1:?usage: lrc-stridecap.sh DEST}
. kernels/probes/ncu-run.sh
mkdir -p "$DEST"
M=$(probe_metrics kernels/probes/lrchits.txt)
for s in 16 1; do
    for kw in "2 4" "4 4" "8 4" "8 8" "16 8"; do
        # shellcheck disable=SC2086 # K and W split on purpose
        set -- $kw
        n=$((32 * $1 * $2))
        probe_runs "$DEST" "c-$s-$n" "$M" build/kernels/lrcpair strideg "$s" "$1" "$2" 0 16 32 48
    done
done
python3 kernels/probes/lrc-summary.py "$DEST" "*.csv"
