#!/usr/bin/env bash
# slicemap.sh - do SMs of different GPCs find the same lines of a small buffer
# in the same L2 slices (docs/findings.md §21)? One SM reading 32 KiB past L1
# spreads its reads evenly over 16 slices (§12a), but with 132 SMs the
# busiest slice takes only 1.55-1.61 times the mean of the 96, where 16
# slices a partition would give 3. ncu gives no per-slice values for L2
# counters (--print-metric-instances shows none), so sets of SMs of distinct
# GPCs (whose identical reads the LRC never merges) read the same buffer
# (kernels/l2bw.cu, one warp a reading SM, GMS_L2BW_SMS=LIST) and the busiest
# slice's share of the reads says how many slices they share: each SM
# 1/16 alone; two SMs of one partition on the same 16 slices 1/16, on
# disjoint ones 1/32. On the GPU machine, after make -C kernels $PWD/build/kernels/l2bw:
#   kernels/probes/slicemap.sh DEST
#   DEST/set-LIST.csv   ncu's values for the SMs of LIST (the line pattern's measured launch)
#   DEST/stride-N-S.csv SM 0 alone reading N lines S lines apart (GMS_L2BW_STRIDE): a matrix
#                       column, as transpose_naive writes them (1,024 rows: 32 lines 4 KiB apart)
#   DEST/summary.txt    per set: its SMs' GPCs and partitions, the read requests, the busiest
#                       slice's and the least busy one's, and the busiest's share
set -u -o pipefail
DEST=${1:?usage: slicemap.sh DEST}
. kernels/probes/ncu-run.sh
mkdir -p "$DEST"
M=lts__t_requests_srcunit_tex_op_read.sum,lts__t_requests_srcunit_tex_op_read.max,lts__t_requests_srcunit_tex_op_read.min,lrc__request_sectors_op_read_coalescing_achieved_type_hardware.sum
# GPCs (configs/h200.ini sm_gpc): SMs 0,1 GPC 0; 2,3 GPC 1; ... 14,15 GPC 7. Partition 0 holds
# GPCs 0,4,5,6 (SMs 0, 8, 10, 12), partition 1 GPCs 1,2,3,7 (SMs 2, 4, 6, 14) (findings §7).
for set in 0 8 2 0,8 0,10 0,12 8,10 0,8,10,12 0,2 2,4 2,4,6,14 0,2,4,6,8,10,12,14 0,16; do
    GMS_L2BW_SMS=$set probe_run "$DEST" "set-$set" "$M" --launch-skip 1 --launch-count 1 build/kernels/l2bw 1 132 32
done
probe_run "$DEST" set-all "$M" --launch-skip 1 --launch-count 1 build/kernels/l2bw 1 132 32
for ns in 32-1 32-8 32-16 32-32 32-64 32-128 32-256 32-1024 32-8192 256-32 256-64 256-16 1024-32; do
    n=${ns%-*} s=${ns#*-}
    GMS_L2BW_SMS=0 GMS_L2BW_STRIDE=$s probe_run "$DEST" "stride-$ns" "$M" --launch-skip 1 --launch-count 1 \
        build/kernels/l2bw 1 132 $((n / 8))
done
for f in "$DEST"/set-*.csv "$DEST"/stride-*.csv; do
    name=$(basename "$f" .csv)
    awk -F'","' -v n="$name" '/lts__t_requests_srcunit_tex_op_read.sum/ {gsub(/[",]/, "", $NF); s=$NF}
        /lts__t_requests_srcunit_tex_op_read.max/ {gsub(/[",]/, "", $NF); x=$NF}
        /lts__t_requests_srcunit_tex_op_read.min/ {gsub(/[",]/, "", $NF); m=$NF}
        /lrc__request/ {gsub(/[",]/, "", $NF); l=$NF}
        END {printf "%-28s requests %8d busiest %7d least %6d busiest share 1/%.1f lrc merged %d\n", n, s, x, m, (x ? s / x : 0), l}' "$f"
done | tee "$DEST/summary.txt"
