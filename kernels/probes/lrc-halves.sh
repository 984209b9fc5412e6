#!/usr/bin/env bash
# lrc-halves.sh - do requests for a line's two halves (sectors 0-1 and 2-3,
# as matrixMul_naive's and wmma_gemm's) stop each other's merges as
# one-sector requests for other sectors do (findings §2f, lrc-bisect3.sh),
# and do reads that hit L2 stop them as misses do? lrcpair stridegs on
# lrc-bisect2.sh's groups 0 and 1 (8 SMs each on GPCs 0, 4, 5 and 5, 6, 7):
#   c-*   L2 emptied by ncu (as the suite's runs); w-*: L2 filled by a first
#         run of the same kernel (ncu --cache-control none, the second run)
#   *-s01     one-sector requests, group 0 sector 0, group 1 sector 1
#   *-hsame   two-sector requests, both groups sectors 0-1
#   *-h01     two-sector requests, group 0 sectors 0-1, group 1 sectors 2-3
# RUNS runs each (default 2). On the GPU machine, after make -C kernels:
#   kernels/probes/lrc-halves.sh DEST
set -u -o pipefail
DEST=${1:?usage: lrc-halves.sh DEST}
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
for warm in 0 1; do
    p=c
    if [ "$warm" = 1 ]; then
        p=w
        export PROBE_NCU_ARGS="--cache-control none --launch-skip 1 --launch-count 1"
    fi
    run "$p-s01" stridegs 1 "$warm" 16 2 4 $G0 $(sm_off 8 $G1)
    run "$p-hsame" stridegs 2 "$warm" 16 2 4 $G0 $G1
    run "$p-h01" stridegs 2 "$warm" 16 2 4 $G0 $(sm_off 16 $G1)
done
unset PROBE_NCU_ARGS
python3 kernels/probes/lrc-summary.py "$DEST" "*.csv"
