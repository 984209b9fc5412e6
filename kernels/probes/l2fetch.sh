#!/usr/bin/env bash
# l2fetch.sh - what an L2 read miss fetches from DRAM (docs/findings.md §15).
# On the GPU machine, after make -C kernels: kernels/probes/l2fetch.sh DEST
#   l2fetch LINES PHASES: one SM reads sector PHASES[k] of 8,192 cold lines,
#   phase after phase, under the driver's L2 fetch granularity and under
#   GMS_L2_FETCH=32, 64 and 128 (common.cuh); then lrcpair's gathers of
#   findings §2e (2 and 8 SMs, own and same sequences, 32 KiB) under 32 and
#   128, to see whether the LRC's merges of chance meetings follow the fetch;
#   and spmv and the naive product of the suite under the same three.
# DEST/NAME.{csv,log}; kernels/probes/l2fetch-summary.py DEST prints a table.
set -u -o pipefail
DEST=${1:?usage: l2fetch.sh DEST}
. kernels/probes/ncu-run.sh
mkdir -p "$DEST"
M=$(probe_metrics kernels/probes/l2fetch.txt)
for fetch in "" 32 64 128; do
    for phases in 0 01 02 0123; do
        export GMS_L2_FETCH=$fetch
        probe_run "$DEST" "f${fetch:-def}-$phases" "$M" build/kernels/l2fetch 8192 "$phases"
    done
done
export GMS_L2_FETCH=""
probe_run "$DEST" "fdef-01-c32" "$M" build/kernels/l2fetch 8192 01 32
G=$(probe_metrics kernels/probes/lrchits.txt)
SMS=(0 16 32 48 1 17 33 49)
for fetch in "" 32 128; do
    for k in 2 8; do
        for same in 0 1; do
            export GMS_L2_FETCH=$fetch
            probe_run "$DEST" "g${fetch:-def}-32-$k-$same" "$G" \
                build/kernels/lrcpair gather 32 "$same" 0 "${SMS[@]:0:$k}"
        done
    done
done
# the suite's kernels whose L2 reads depend on the LRC (tests/validate-known.txt)
for fetch in "" 32 128; do
    export GMS_L2_FETCH=$fetch
    probe_run "$DEST" "s${fetch:-def}-spmv_scalar" "$G,dram__sectors_read.sum" build/kernels/spmv scalar
    probe_run "$DEST" "s${fetch:-def}-spmv_vector" "$G,dram__sectors_read.sum" build/kernels/spmv vector
    probe_run "$DEST" "s${fetch:-def}-matrixMul_naive" "$G,dram__sectors_read.sum" build/kernels/matrixMul naive
done
