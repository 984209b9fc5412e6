#!/usr/bin/env bash
# lrc-prodchip.sh - the matrix products' L2 reads after the LRC on the GPU
# machine at hand, with its GPU's UUID and farlat's partitions (findings
# §2f): whether the naive product's and wmma_gemm's merges, which the model
# falls short of since the twenty-fourth session's rule, depend on the chip
# (traces/h200-probes/reps: naive's L2 read sectors 35,724-38,842 over seven
# runs of machines not recorded). RUNS runs each (default 3).
#   kernels/probes/lrc-prodchip.sh DEST
set -u -o pipefail
DEST=${1:?usage: lrc-prodchip.sh DEST}
. kernels/probes/ncu-run.sh
. kernels/probes/lrc-groups.sh
mkdir -p "$DEST"
make -s -C kernels "$PWD/build/kernels/matrixMul" "$PWD/build/kernels/wmmaGemm" "$PWD/build/kernels/farlat" || exit 1
farlat_map "$DEST" 2 4 6 8 10 12 14
M=$(probe_metrics kernels/probes/lrchits.txt)
RUNS=${RUNS:-3} probe_runs "$DEST" naive "$M" build/kernels/matrixMul naive
RUNS=${RUNS:-3} probe_runs "$DEST" wmma "$M" build/kernels/wmmaGemm
python3 kernels/probes/lrc-summary.py "$DEST" "*.csv"
