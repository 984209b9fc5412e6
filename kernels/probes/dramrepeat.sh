#!/bin/bash
# dramrepeat.sh - the probes of docs/findings.md §19 on the GPU machine: whether a
# DRAM line's latency belongs to the line or to the moment (kernels/dramrepeat.cu),
# and what a first touch of a page costs (kernels/tlb.cu):
#   DEST/dramrepeat.txt          summaries: L2 emptied by writes or by reads, a warp
#                                step of L = 1, 4 and 32 lines, four passes each
#   DEST/rep-FLUSH-L.txt         the steps themselves (pass step line start cycles)
#   DEST/tlb.txt                 chases over pages 2 MiB and 64 MiB apart; first loads
#                                of 132 CTAs at once
# After make -C kernels build/kernels/{dramrepeat,tlb}:
#   kernels/probes/dramrepeat.sh DEST
# kernels/probes/dramrepeat-summary.py DEST reads them back.
set -u -o pipefail
DEST=${1:?usage: dramrepeat.sh DEST}
mkdir -p "$DEST" || exit 2
status=0
for flush in write read; do
    for L in 1 4 32; do
        build/kernels/dramrepeat "$DEST/rep-$flush-$L.txt" "$flush" "$L" 2>&1 | grep '^dramrepeat ' || status=1
    done
done >"$DEST/dramrepeat.txt"
for stride in 1 32; do
    build/kernels/tlb "$stride" 2>&1 | grep '^tlb ' || status=1
done >"$DEST/tlb.txt"
cat "$DEST/dramrepeat.txt" "$DEST/tlb.txt"
exit $status
