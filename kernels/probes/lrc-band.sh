#!/usr/bin/env bash
# lrc-band.sh - spmv's gathers in miniature: do SMs whose bands of x overlap
# merge their chance-identical requests as the model says (findings §2e)?
# On the GPU machine, after make -C kernels: kernels/probes/lrc-band.sh DEST
# `lrcpair band KIB BAND SHIFT WARPS SM...` on the first K SMs of GPC 0 (each
# reads KIB x 32 sectors of its band of BAND sectors, starting SHIFT x rank
# in), two runs each; bench/lrcgroup-trace.py K band KIB BAND SHIFT WARPS
# writes the model's trace of each. DEST/b-*.{csv,log}; a line each at the end.
set -u -o pipefail
DEST=${1:?usage: lrc-band.sh DEST}
. kernels/probes/ncu-run.sh
mkdir -p "$DEST"
M=$(probe_metrics kernels/probes/lrchits.txt)
GPC0=(0 16 32 48 1 17 33 49 124 125 126 127 128 129 130 131)
# K KIB BAND SHIFT WARPS
for cfg in "8 64 136 8 2" "8 64 136 8 8" "8 64 136 0 2" "8 64 1024 0 8" "16 64 136 8 2" "8 16 136 8 2" "8 64 512 32 2"; do
    # shellcheck disable=SC2086 # K KIB BAND SHIFT WARPS, split on purpose
    set -- $cfg
    for r in 1 2; do
        probe_run "$DEST" "b-$1-$2-$3-$4-$5-r$r" "$M" build/kernels/lrcpair band "$2" "$3" "$4" "$5" "${GPC0[@]:0:$1}"
    done
done
python3 kernels/probes/lrc-summary.py "$DEST" "b-*.csv"
