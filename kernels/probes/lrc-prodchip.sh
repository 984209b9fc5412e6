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
mkdir -p "$DEST"
make -s -C kernels "$PWD/build/kernels/matrixMul" "$PWD/build/kernels/wmmaGemm" "$PWD/build/kernels/farlat" || exit 1
nvidia-smi --query-gpu=name,uuid --format=csv,noheader | tee "$DEST/chip.txt"
build/kernels/farlat 1024 0 2 4 6 8 10 12 14 2>"$DEST/farlat.txt" >/dev/null
grep -o "A [0-9]* B [0-9]*:\|B slow[^;]*" "$DEST/farlat.txt" | paste - - | sed 's/ B slow (> median + 40)//'
M=$(probe_metrics kernels/probes/lrchits.txt)
for r in $(seq "${RUNS:-3}"); do
    probe_run "$DEST" "naive-r$r" "$M" build/kernels/matrixMul naive
    probe_run "$DEST" "wmma-r$r" "$M" build/kernels/wmmaGemm
done
python3 kernels/probes/lrc-summary.py "$DEST" "*.csv"
