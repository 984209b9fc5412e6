#!/usr/bin/env bash
# lrc-transchip.sh - transtimed's merges on a machine whose L2 partitions
# are measured in the same call (findings §2f): kernels/probes/lrc-chip.sh
# (the GPU's UUID, farlat's partitions, group 0 beside each GPC), then
# transtimed under ncu with its stamps (each CTA's SM): t-base (128 CTAs,
# QMASK 1) three times, the whole grid twice. The model's side, here:
# trace-ctas.py cuts traces/h200/torch_transpose.trace (the same geometry)
# to the launch's CTAs and puts each on the SM the stamps say.
#   kernels/probes/lrc-transchip.sh DEST
set -u -o pipefail
DEST=${1:?usage: lrc-transchip.sh DEST}
. kernels/probes/ncu-run.sh
mkdir -p "$DEST"
RUNS=2 kernels/probes/lrc-chip.sh "$DEST/chip" || exit 1
M=$(probe_metrics kernels/probes/lrchits.txt)
RUNS=3 probe_runs "$DEST" t-base "$M" build/kernels/transtimed @STAMPS 0 128 1
RUNS=2 probe_runs "$DEST" t-grid "$M" build/kernels/transtimed @STAMPS 0
xz -9 "$DEST"/*.txt 2>/dev/null
python3 kernels/probes/lrc-summary.py "$DEST" "t-*.csv"
