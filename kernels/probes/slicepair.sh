#!/usr/bin/env bash
# slicepair.sh - which 1 KiB chunks of a 2 MiB page share an L2 slice
# (kernels/slicepair.cu, docs/findings.md §21): for SM S and base chunk B, 66
# launches each asking whether two of the chunks B, B^1, B^2, ..., B^1024 are
# on one slice of S's near partition. On the GPU machine, after
# make -C kernels $PWD/build/kernels/slicepair:
#   kernels/probes/slicepair.sh DEST
#   DEST/pairs-S-B.{csv,log}  ncu's rows (launch 1 on, the warm-up skipped) and the pairs
#   DEST/summary.txt          per run, the pairs on one slice ("same"): the busiest
#                             slice took 3/4 or more of the requests (an SM's reads
#                             of one line in flight together reach L2 as one, so a
#                             launch sends ~128 requests, not 512: one slice ~128,
#                             two ~64 each)
set -u -o pipefail
DEST=${1:?usage: slicepair.sh DEST}
. kernels/probes/ncu-run.sh
mkdir -p "$DEST"
M=lts__t_requests_srcunit_tex_op_read.max,lts__t_requests_srcunit_tex_op_read.sum
for sb in 0-0 0-5 0-1234 2-0 8-0; do
    s=${sb%-*} b=${sb#*-}
    probe_run "$DEST" "pairs-$s-$b" "$M" --launch-skip 1 build/kernels/slicepair "$s" "$b"
done
for f in "$DEST"/pairs-*.csv; do
    name=$(basename "$f" .csv)
    echo "== $name"
    grep '^pair ' "${f%.csv}.log" >"$DEST/$name.pairs"
    grep -E '"lts__t_requests_srcunit_tex_op_read.max"' "$f" | awk -F'","' '{gsub(/[",]/, "", $NF); print $NF}' |
        paste -d' ' "$DEST/$name.pairs" - |
        paste -d' ' - <(grep -E '"lts__t_requests_srcunit_tex_op_read.sum"' "$f" | awk -F'","' '{gsub(/[",]/, "", $NF); print $NF}') |
        awk '{same = ($(NF - 1) >= 0.75 * $NF); n++; s += same
              if (same) printf "  same: chunk %s chunk %s (%s of %s)\n", $4, $6, $(NF - 1), $NF}
             END {printf "  %d of %d pairs on one slice\n", s, n}'
    rm -f "$DEST/$name.pairs"
done | tee "$DEST/summary.txt"
