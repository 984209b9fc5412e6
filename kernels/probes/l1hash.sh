#!/usr/bin/env bash
# l1hash.sh - how L1 spreads lines over its sets: kernels/l1hash.cu on the
# layouts of l1hash.tests and l1hash-capacity.tests, twice each: with the
# driver's own carveout for this one-thread kernel (64 KiB: L1 192 KiB), and
# the capacity tests also with 1 KiB of dynamic shared memory (carveout
# 100 KiB: L1 156 KiB; l1-carveouts.sh says which carveout ncu reports).
# On the GPU machine, after make -C kernels:
#   kernels/probes/l1hash.sh DEST      (DEST/l1hash-*.txt; docs/findings.md §3f)
set -u -o pipefail
DEST=${1:?usage: l1hash.sh DEST}
mkdir -p "$DEST"
status=0
for run in 1 2; do
    build/kernels/l1hash kernels/probes/l1hash.tests >"$DEST/l1hash-r$run.txt" || status=1
    build/kernels/l1hash kernels/probes/l1hash-capacity.tests >"$DEST/capacity-r$run.txt" || status=1
    GMS_SMEM=1024 build/kernels/l1hash kernels/probes/l1hash-capacity.tests >"$DEST/capacity-smem1k-r$run.txt" ||
        status=1
done
exit $status
