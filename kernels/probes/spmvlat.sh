#!/bin/bash
# spmvlat.sh - how long spmv_vector's gathers of x take on the H200 (kernels/spmv.cu,
# mode vector-lat; docs/findings.md §21), on the GPU machine after
# make -C kernels $PWD/build/kernels/spmv:
#   kernels/probes/spmvlat.sh DEST
#   DEST/stamps-warm-ROWS-REP.txt  "warp sm t0 t1 t2 g0 g3 t3" (SM cycles; g: the GPU's ns) of the stamped launch, which
#                                  follows a first launch and a 96 MiB read that empties L2 (as
#                                  the suite's ncu passes find a kernel: translations warm, data
#                                  in DRAM); ROWS 8,192 (every SM full) and 1,024; three
#                                  processes each (a launch's state varies, findings §20)
#   DEST/stamps-cold-ROWS-REP.txt  the stamped launch alone
#   DEST/ncu-KIND-ROWS.{csv,txt}  the stamped launch under ncu (four metrics, its own cache flush;
#                                  KIND warm: --launch-skip 2), its stamps beside its cycles
#   DEST/*.log                     spmv's stderr
# kernels/probes/spmvlat-compare.py puts the stamps beside the model's timeline of the same
# kernel (kernels/probes/spmvlat-capture.exp).
set -u -o pipefail
DEST=${1:?usage: spmvlat.sh DEST}
mkdir -p "$DEST" || exit 2
status=0
for rows in 8192 1024; do
    for warm in 1 0; do
        kind=$([ "$warm" = 1 ] && echo warm || echo cold)
        for rep in 1 2 3; do
            echo "[$(date +%T)] $kind-$rows-$rep" >&2
            build/kernels/spmv vector-lat "$rows" "$warm" >"$DEST/stamps-$kind-$rows-$rep.txt" \
                2>"$DEST/$kind-$rows-$rep.log" || status=1
        done
    done
done
. "$(dirname "$0")/ncu-run.sh"
one=sm__cycles_elapsed.avg,sm__cycles_active.avg,sm__cycles_active.max,gpu__time_duration.sum
for rows in 8192 1024; do
    probe_run "$DEST" ncu-cold-$rows "$one" build/kernels/spmv vector-lat "$rows" 0
    mv "$DEST/ncu-cold-$rows.csv" "$DEST/ncu-cold-$rows.all" && grep '^"' "$DEST/ncu-cold-$rows.all" >"$DEST/ncu-cold-$rows.csv"
    grep -E '^[0-9]' "$DEST/ncu-cold-$rows.all" >"$DEST/ncu-cold-$rows.txt"
    probe_run "$DEST" ncu-warm-$rows "$one" --launch-skip 2 --launch-count 1 build/kernels/spmv vector-lat "$rows" 1
    mv "$DEST/ncu-warm-$rows.csv" "$DEST/ncu-warm-$rows.all" && grep '^"' "$DEST/ncu-warm-$rows.all" >"$DEST/ncu-warm-$rows.csv"
    grep -E '^[0-9]' "$DEST/ncu-warm-$rows.all" >"$DEST/ncu-warm-$rows.txt"
    rm -f "$DEST"/ncu-*-"$rows".all
done
exit $status
