#!/usr/bin/env bash
# tail.sh - how evenly one-wave and several-wave streams load the DRAM
# channels, L2 slices and SMs (docs/findings.md §25): the counters of
# kernels/probes/tail.txt (sums, and the largest and smallest instance) on
# kernels/probes/tail.exp, two runs each, and captures of its vecAdd cases
# for the model. On the GPU machine, from the repository root:
#   kernels/probes/tail.sh DEST
# DEST/measure.txt: measure.sh's lines; DEST/cap: the captures and their CSVs.
set -u -o pipefail
DEST=${1:?usage: tail.sh DEST}
mkdir -p "$DEST"
status=0
make -s -C kernels "$PWD/build/kernels/vecAdd" "$PWD/build/kernels/torchop" || exit 1
kernels/measure.sh --metrics kernels/probes/tail.txt --experiments kernels/probes/tail.exp \
    --only . --reps 2 --dest "$DEST/runs" >"$DEST/measure.txt" 2>"$DEST/measure.err" || status=1
make -s capture || exit 1
kernels/capture-all.sh --no-build --no-source --experiments kernels/probes/tail.exp --only '^wv_' \
    --dest "$DEST/cap" >"$DEST/capture.txt" 2>&1 || status=1
cat "$DEST/measure.txt"
tail -12 "$DEST/capture.txt"
exit $status
