#!/usr/bin/env bash
# l1sets.sh - L1's sets, line by line (kernels/l1sets.cu; docs/findings.md
# §3f): the sets of lines 1-17 within 2 MiB, of lines 1 and 2 within 8 MiB
# (with the first ten lines of each set loaded twice: how many stay), and the
# set-index bits that line bits 14-23 flip, in three allocations. On the GPU
# machine, after make -C kernels:
#   kernels/probes/l1sets.sh DEST     (then kernels/probes/l1sets-fold.py DEST/*.txt)
# A target whose reduction stalls at L1's capacity ("ways 1525") is not a set:
# the pool's capacity evictions hid its set conflicts; the fold script skips it.
set -u -o pipefail
DEST=${1:?usage: l1sets.sh DEST}
mkdir -p "$DEST"
status=0
build/kernels/l1sets 8192 16384 auto 16 >"$DEST/sets-auto.txt" || status=1
GMS_CHAIN=10 build/kernels/l1sets 8192 65536 1 2 64 >"$DEST/pages.txt" || status=1
for r in 1 2 3; do
    build/kernels/l1sets high $((r * 37)) 23 >"$DEST/high-r$r.txt" || status=1
done
exit $status
