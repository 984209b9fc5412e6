#!/bin/bash
# banktimed.sh - when a one-wave streaming load's data comes back on the H200
# (kernels/banktimed.cu; docs/findings.md §20), on the GPU machine after
# make -C kernels build/kernels/banktimed:
#   kernels/probes/banktimed.sh DEST
#   DEST/warm-BLOCKS-LOADS-REP.log BLOCKS CTAs (1 to 1,056) whose warps load LOADS
#                                  lines (1, 4, 16), without a profiler: the kernel
#                                  launched once to warm its address translations,
#                                  L2 emptied by reading 96 MiB, then the stamped
#                                  launch (as the suite's measured ncu passes find
#                                  them, findings §19); the log is banktimed's
#                                  summary; three processes (REP) each
#   DEST/cold-BLOCKS-LOADS-REP.log the same without the first launch: translations cold
#   DEST/flush256-BLOCKS-LOADS-REP.log  warm, L2 emptied by reading 256 MiB
#   DEST/ncu-528-16[-warm].{csv,log} under ncu with four metrics (one pass, ncu's own
#                                  cache flush), the stamped launch the first or second
#   DEST/stamps-*.txt              every warp's stamps (banktimed's OUTFILE)
#   DEST/summary.txt               the summaries, one block per run
# kernels/probes/banktimed-compare.py puts a run's stamps beside the model's
# timeline of the same kernel (kernels/probes/banktimed-capture.exp).
set -u -o pipefail
DEST=${1:?usage: banktimed.sh DEST}
mkdir -p "$DEST" || exit 2
. "$(dirname "$0")/ncu-run.sh"
one=sm__cycles_elapsed.avg,sm__cycles_active.avg,sm__cycles_active.max,gpu__time_duration.sum
status=0
# three processes each: a single launch's stamps vary from run to run
for run in 1-1 1-16 33-16 132-1 132-4 132-16 528-1 528-4 528-16 1056-16; do
    for rep in 1 2 3; do
        echo "[$(date +%T)] warm-$run-$rep" >&2
        build/kernels/banktimed "$DEST/stamps-warm-$run-$rep.txt" "${run%-*}" 1 "${run#*-}" 96 \
            2>"$DEST/warm-$run-$rep.log" || status=1
    done
done
for run in 1-1 132-16 528-16; do
    for rep in 1 2 3; do
        echo "[$(date +%T)] cold-$run-$rep" >&2
        build/kernels/banktimed "$DEST/stamps-cold-$run-$rep.txt" "${run%-*}" 0 "${run#*-}" 96 \
            2>"$DEST/cold-$run-$rep.log" || status=1
        echo "[$(date +%T)] flush256-$run-$rep" >&2
        build/kernels/banktimed "$DEST/stamps-flush256-$run-$rep.txt" "${run%-*}" 1 "${run#*-}" 256 \
            2>"$DEST/flush256-$run-$rep.log" || status=1
    done
done
probe_run "$DEST" ncu-528-16 "$one" build/kernels/banktimed "$DEST/stamps-ncu-528-16.txt" 528 0 16
probe_run "$DEST" ncu-528-16-warm "$one" --launch-skip 1 --launch-count 1 \
    build/kernels/banktimed "$DEST/stamps-ncu-528-16-warm.txt" 528 1 16
for f in "$DEST"/*.log; do
    echo "== $(basename "$f" .log)"
    grep -E '^banktimed ' "$f" || status=1
    c=${f%.log}.csv
    [ -f "$c" ] && grep -E '"sm__cycles_(active|elapsed)\.avg"|gpu__time' "$c" | awk -F'","' '{print $(NF-2), $NF}' | tr -d '"'
done >"$DEST/summary.txt"
cat "$DEST/summary.txt"
exit $status
