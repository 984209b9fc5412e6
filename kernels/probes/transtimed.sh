#!/usr/bin/env bash
# transtimed.sh - when each warp of a one-wave transpose gets its data on the
# H200, and how much its L2 request coalescer merges (kernels/transtimed.cu,
# docs/findings.md §2f): stamped runs plain (L2 emptied by a 96 MiB read)
# and under ncu as the suite measures (caches flushed, the LRC's counters),
# then a capture for the model. On the GPU machine, from the repository root:
#   kernels/probes/transtimed.sh DEST
# DEST/*.txt.xz: the stamps (cta sm warp g0 g1 g2 c0 c1 c2); DEST/*.log: the
# summaries; DEST/*.csv: ncu's counters; DEST/cap: the capture and its CSV.
set -u -o pipefail
DEST=${1:?usage: transtimed.sh DEST}
. kernels/probes/ncu-run.sh
mkdir -p "$DEST"
status=0
make -s -C kernels "$PWD/build/kernels/transtimed" || exit 1
T=build/kernels/transtimed
M=$(probe_metrics kernels/probes/lrchits.txt),sm__cycles_elapsed.avg,sm__cycles_active.avg
for r in 1 2; do
    $T "$DEST/plain-r$r.txt" 96 2>"$DEST/plain-r$r.log" || status=1
    "$NCU" --clock-control none --cache-control all --metrics "$M" --csv $T "$DEST/ncu-r$r.txt" 0 \
        >"$DEST/ncu-r$r.csv" 2>"$DEST/ncu-r$r.log" || status=1
done
grep -H "issued\|data in" "$DEST"/*.log
python3 kernels/probes/lrc-summary.py "$DEST" "ncu-*.csv"
make -s capture || exit 1
kernels/capture-all.sh --no-build --no-source --experiments kernels/probes/transtimed.exp \
    --dest "$DEST/cap" >"$DEST/capture.txt" 2>&1 || status=1
tail -6 "$DEST/capture.txt"
xz -9 "$DEST"/*.txt 2>/dev/null
exit $status
