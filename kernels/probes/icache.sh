#!/usr/bin/env bash
# icache.sh - what fetching its code costs a warp (kernels/icache.cu;
# docs/findings.md §23): straight-line regions of 8 to 1,024 lines, lines a
# jump apart (1 to 300 lines), loops, one warp alone, several warps of a CTA, one CTA on every
# SM, and a second launch of the same kernel. On the GPU machine, after
# make -C kernels build/kernels/icache:
#   kernels/probes/icache.sh DEST [ncu]    (traces/h200-probes/icache)
# Writes DEST/icache.txt (one line a launch) and DEST/layout.txt (where the
# jumps kernels' executed FFMA lines lie in their SASS). With "ncu": every
# case under ncu --cache-control all (as the suite is measured: caches
# flushed, the code too), one launch each, into DEST/icache-ncu.txt, and the
# constant cache's cases into DEST/const-ncu.txt and DEST/const-cycles.txt
# (about 5 minutes in all).
set -u -o pipefail
DEST=${1:?usage: icache.sh DEST [ncu]}
MODE=${2:-plain}
mkdir -p "$DEST"
status=0
NCU=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
if [ "$MODE" = ncu ]; then
    runn() { "$NCU" --clock-control none --cache-control all --metrics sm__cycles_elapsed.avg \
                 build/kernels/icache "$@" 2>&1 >/dev/null | grep '^icache: [a-z]* [0-9]' || status=1; }
    {
        for c in "1 1" "4 132"; do
            for s in 8 32 128 256; do runn straight "$s" $c; done
            for s in 0 1 2 3 5 8 13 32 40 64 100 128 300 1032 1100; do runn jumps "$s" $c; done
            for s in 1 2 4; do runn loop "$s" $c; done
        done
    } | tee "$DEST/icache-ncu.txt"
    # the constant cache: 16 LDC reads a pass (traces/h200-probes/icache/const-ncu.txt),
    # and whole kernels that read N lines of their parameters (bank 0) or of a
    # __constant__ table (bank 3) at their start: ncu's cycles by kernels/measure.sh
    # (const-cycles.txt; params-ncu.txt and cbank-ncu.txt hold the same runs made
    # by hand, 2 and 3 of each)
    for c in "1 1" "4 132"; do
        for s in 4 32 64 128 256 1024 2048; do runn const "$s" $c; done
    done | sed 's/^icache: //' | tee "$DEST/const-ncu.txt"
    kernels/measure.sh --metrics kernels/probes/cycles.txt --experiments kernels/probes/icache-const.exp \
        --only . --reps 3 --dest "$DEST/const-cycles" | tee "$DEST/const-cycles.txt" || status=1
    exit $status
fi
run() { build/kernels/icache "$@" 2>&1 | grep '^icache' || status=1; }
{
    for s in 8 32 128 256 512 1024; do run straight "$s" 1 1; done
    for s in 0 1 2 3 5 8 13 32 40 64 100 128 300 1032 1100; do run jumps "$s" 1 1; done
    for s in 1 2 4; do run loop "$s" 1 1; done
    for w in 2 4 8 16 32; do run straight 128 "$w" 1; done
    for w in 4 16; do run jumps 32 "$w" 1; done
    run straight 128 1 132
    run straight 128 4 132
    run straight 512 4 132
    run jumps 32 1 132
    run jumps 32 4 132
    run jumps 300 4 132
    run straight 128 1 1 3
    run jumps 32 1 1 3
} | tee "$DEST/icache.txt"
# under ncu as the suite measures (several replay passes): is the code fetched
# again in the pass whose clocks come back (cache control all, and none)?
for cc in all none; do
    echo "ncu --cache-control $cc:"
    "$NCU" --clock-control none --cache-control "$cc" --section SpeedOfLight --section MemoryWorkloadAnalysis \
        --csv build/kernels/icache straight 512 1 1 2>&1 >"$DEST/ncu-$cc.csv" | grep '^icache' || status=1
done | tee -a "$DEST/icache.txt"
CUOBJDUMP=${CUOBJDUMP:-$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)}
"$CUOBJDUMP" -sass build/kernels/icache > "$DEST/icache.sass" 2>&1 || status=1
# per kernel: its size, and the offsets of the runs of FFMA between branches
awk '/Function :/ { if (name) print name, last; name = $3; n = 0 }
     /\/\*[0-9a-f]+\*\// { if (match($0, /\/\*[0-9a-f]+\*\//)) last = substr($0, RSTART + 2, RLENGTH - 4) }
     END { print name, last }' "$DEST/icache.sass" > "$DEST/layout.txt"
grep -A400 'Function : _Z6regionILi1ELi8E' "$DEST/icache.sass" | grep -E 'FFMA|BRA|CS2R|EXIT' | head -80 >> "$DEST/layout.txt"
cat "$DEST/layout.txt" | head -40
exit $status
