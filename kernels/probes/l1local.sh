#!/usr/bin/env bash
# l1local.sh - which L1 set a local word lands in (kernels/l1local.cu;
# docs/findings.md §3f): 4 global lines of every set after a local word, for
# 8 warps and 8 words, twice; then 5, 8 and 16 lines of each set for 2 warps
# and 3 words, and 6, 7 and 8 lines (twice) for 3 warps and 3 words. On the GPU machine, after make -C kernels:
#   kernels/probes/l1local.sh DEST      (traces/h200-probes/l1local)
set -u -o pipefail
DEST=${1:?usage: l1local.sh DEST}
mkdir -p "$DEST"
status=0
build/kernels/l1local 0,1,2,3,4,8,16,31 0,1,2,4,8,16,32,63 >"$DEST/local-r1.txt" || status=1
build/kernels/l1local 0,1,31 0,1,63 >"$DEST/local-r2.txt" || status=1
for n in 5 8 16; do
    GMS_SETLINES=$n build/kernels/l1local 0,1 0,1,63 >"$DEST/local-n$n.txt" || status=1
done
for n in 6 7 8; do
    for r in 1 2; do
        GMS_SETLINES=$n build/kernels/l1local 0,1,5 1,2,63 >"$DEST/local-n$n-r$r.txt" || status=1
    done
done
exit $status
