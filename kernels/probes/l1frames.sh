#!/usr/bin/env bash
# l1frames.sh - local lines in L1 (kernels/l1frames.cu; docs/findings.md §3g):
# how many of one thread's stored words, and of global lines, one launch
# keeps (sweep, at strides 1-8); whether a word stored in one launch is found
# in the next (persist); local words and global lines in one launch (mix);
# a cold word after one other word, on one warp and
# on rotating warps (pair: L1 keeps local lines across launches). On the GPU
# machine, after make -C kernels build/kernels/l1frames:
#   kernels/probes/l1frames.sh DEST     (traces/h200-probes/l1frames)
set -u -o pipefail
DEST=${1:?usage: l1frames.sh DEST}
B=build/kernels/l1frames
mkdir -p "$DEST"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >"$DEST/gpu.txt"
status=0
GMS_GLOBAL=1 $B sweep >"$DEST/sweep-global.txt" || status=1
for k in 1 2 4 8 3 5; do
    GMS_STRIDE=$k $B sweep >"$DEST/sweep-local-k$k.txt" || status=1
done
$B mix >"$DEST/mix.txt" || status=1
$B persist 300 12 >"$DEST/persist.txt" || status=1
GMS_VERBOSE=1 GMS_HOW=4 $B pair 1 14 >"$DEST/pair-warp0.txt" || status=1
GMS_ROTATE=1 GMS_VERBOSE=1 GMS_HOW=4 $B pair 1 10 >"$DEST/pair-rotate.txt" || status=1
exit $status
