#!/usr/bin/env bash
# vectimed.sh - when a one-wave stream's warps get their data on the H200
# (kernels/vectimed.cu, docs/findings.md §25): stamped runs in one wave and
# two, plain (cold and warm translations, L2 emptied by a 96 MiB read) and
# under ncu as the suite measures (caches flushed), then captures for the
# model. On the GPU machine, from the repository root:
#   kernels/probes/vectimed.sh DEST
# DEST/*.txt.xz: the stamps (cta sm warp g0 g1 g2 c0 c1 c2); DEST/*.log: the
# summaries; DEST/cap: the captures and their CSVs.
set -u -o pipefail
DEST=${1:?usage: vectimed.sh DEST}
NCU=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
mkdir -p "$DEST"
status=0
make -s -C kernels "$PWD/build/kernels/vectimed" || exit 1
V=build/kernels/vectimed
for waves in "w1 0" "w2 50"; do
    set -- $waves
    for r in 1 2; do
        $V "$DEST/plain-$1-cold-r$r.txt" 262144 "$2" 0 96 2>"$DEST/plain-$1-cold-r$r.log" || status=1
        $V "$DEST/plain-$1-warm-r$r.txt" 262144 "$2" 1 96 2>"$DEST/plain-$1-warm-r$r.log" || status=1
        "$NCU" --clock-control none --cache-control all --metrics sm__cycles_elapsed.avg,sm__cycles_active.avg \
            --csv $V "$DEST/ncu-$1-r$r.txt" 262144 "$2" 0 0 >"$DEST/ncu-$1-r$r.csv" 2>"$DEST/ncu-$1-r$r.log" || status=1
    done
done
grep -H "data in\|SM active\|warp wait" "$DEST"/*.log
grep -h "sm__cycles" "$DEST"/ncu-*.csv
make -s capture || exit 1
kernels/capture-all.sh --no-build --no-source --experiments kernels/probes/vectimed.exp \
    --dest "$DEST/cap" >"$DEST/capture.txt" 2>&1 || status=1
tail -6 "$DEST/capture.txt"
xz -9 "$DEST"/*.txt 2>/dev/null
exit $status
