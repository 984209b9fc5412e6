#!/usr/bin/env bash
# ctastart.sh - when the CTAs of a grid start (kernels/ctastart.cu;
# docs/findings.md §16): grids of 32- to 1,024-thread CTAs, one wave and
# several, CTAs that exit at once (SPIN 0, twice each), and one-wave grids
# whose CTAs stay (SPIN 20,000); then spmv_vector's own warps (spmv
# vector-timed: each warp's start and store on its SM's clock), twice alone
# and once under ncu as the suite measures it. On the GPU machine, after
# make -C kernels build/kernels/ctastart build/kernels/spmv:
#   kernels/probes/ctastart.sh DEST     (traces/h200-probes/ctastart, spmv-vtimed)
#   kernels/probes/spmv-vgap.py DEST/spmv/*.txt   (the two warps of a CTA: store gaps)
set -u -o pipefail
DEST=${1:?usage: ctastart.sh DEST}
NCU=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
mkdir -p "$DEST/spin0" "$DEST/spin" "$DEST/spmv"
status=0
for g in "32 132" "32 1056" "32 4224" "64 4224" "64 4096" "128 2112" "256 1056" "512 528" "1024 132" "1024 264" \
         "32 8448" "32 16896" "64 8192" "128 8192" "256 8192" "512 4096" "1024 2048" "128 16384"; do
    set -- $g
    for r in 1 2; do
        build/kernels/ctastart "$1" "$2" 0 >"$DEST/spin0/cs-$1-$2-r$r.txt" || status=1
    done
done
for g in "64 128" "256 132" "256 264" "1024 264"; do
    set -- $g
    build/kernels/ctastart "$1" "$2" 20000 >"$DEST/spin/cs-$1-$2.txt" || status=1
done
grep -h '^grid' "$DEST"/spin0/*.txt "$DEST"/spin/*.txt
for r in 1 2; do
    build/kernels/spmv vector-timed >"$DEST/spmv/plain-r$r.txt" || status=1
done
"$NCU" --clock-control none --metrics sm__cycles_elapsed.avg,lts__t_sectors_srcunit_tex_op_write.sum \
    --log-file "$DEST/spmv/ncu.log" build/kernels/spmv vector-timed >"$DEST/spmv/ncu-r1.txt" || status=1
exit $status
