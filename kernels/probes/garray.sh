#!/usr/bin/env bash
# garray.sh - local_array's pattern in local and in global memory, with and
# without a wait between the stores and the loads (garray.exp, garray.txt;
# docs/findings.md §3e). On the GPU machine, after make -C kernels:
#   kernels/probes/garray.sh DEST [REPS]
set -u -o pipefail
DEST=${1:?usage: garray.sh DEST [REPS]}
REPS=${2:-2}
kernels/measure.sh --metrics kernels/probes/garray.txt --experiments kernels/probes/garray.exp \
    --only '^(la|ga)_n1[678]$' --reps "$REPS" --dest "$DEST"
GMS_SPIN=5000 kernels/measure.sh --metrics kernels/probes/garray.txt --experiments kernels/probes/garray.exp \
    --only '_s5k$' --reps "$REPS" --dest "$DEST"
GMS_SPIN=50000 kernels/measure.sh --metrics kernels/probes/garray.txt --experiments kernels/probes/garray.exp \
    --only '_s50k$' --reps "$REPS" --dest "$DEST"
