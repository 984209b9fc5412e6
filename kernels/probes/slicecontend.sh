#!/usr/bin/env bash
# slicecontend.sh - the L2 slice of every 1 KiB chunk of a few 2 MiB pages, by
# contention (kernels/slicecontend.cu, docs/findings.md §21). On the GPU
# machine, after make -C kernels $PWD/build/kernels/slicecontend:
#   kernels/probes/slicecontend.sh DEST
#   DEST/pageP.txt   slicecontend's stdout for page P of its buffer: a line per
#                    reference ("ref R median M own O threshold T members N: ..."),
#                    the first launch's latencies ("lat0 c pass0 pass1") and the
#                    class of every chunk ("class c k")
#   DEST/pageP.log   its stderr
#   DEST/global.txt  pages 0-15 of one buffer labelled with page 0's classes (slicecontend
#                    64 0 0 16: "glabel P" and the class of each of its 2,048 chunks), so
#                    that the pages' maps share slice names; DEST/global.log its stderr
# kernels/probes/slicecontend-summary.py DEST prints what the maps share.
set -u -o pipefail
DEST=${1:?usage: slicecontend.sh DEST}
mkdir -p "$DEST" || exit 2
status=0
for p in $(seq 0 15) 50 100 200; do
    echo "[$(date +%T)] page $p" >&2
    timeout 120 build/kernels/slicecontend 64 "$p" >"$DEST/page$p.txt" 2>"$DEST/page$p.log" || status=1
done
echo "[$(date +%T)] global" >&2
timeout 300 build/kernels/slicecontend 64 0 0 16 >"$DEST/global.txt" 2>"$DEST/global.log" || status=1
exit $status
