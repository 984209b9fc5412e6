#!/usr/bin/env bash
# l2slice.sh - over how many L2 slices does a small buffer spread (findings
# §12a)? One SM reads a buffer of KIB KiB (1 to 64) past L1 over and over
# (kernels/l2bw.cu, one warp: `l2bw 1 132 KIB 1`); after l2bw's warm-up launch
# every read hits in the SM's near partition, and ncu's per-instance values of
# the L2 read requests say which slices served them. On the GPU machine:
#   kernels/probes/l2slice.sh DEST
set -u -o pipefail
DEST=${1:?usage: l2slice.sh DEST}
. kernels/probes/ncu-run.sh
mkdir -p "$DEST"
M=lts__t_requests_srcunit_tex_op_read.sum,lts__t_requests_srcunit_tex_op_read.max,lts__t_requests_srcunit_tex_op_read.min,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum
for kib in 1 2 4 8 16 32 64; do
    probe_run "$DEST" "slice-$kib" "$M" build/kernels/l2bw 1 132 "$kib" 1
done
# every SM reading a 32 KiB buffer (spmv's x) against an 8 MiB one: does a
# small buffer reach the same lookup rate (spread over every slice)?
M2=lts__t_tag_requests.sum,lts__t_tag_requests.max,lts__t_requests_srcunit_tex_op_read.sum,lts__cycles_elapsed.avg,gpu__time_duration.sum,lrc__request_sectors_op_read_coalescing_achieved_type_hardware.sum,l1tex__m_xbar2l1tex_read_sectors_mem_lg_op_ld.sum
for kib in 32 8192; do
    probe_run "$DEST" "all-$kib" "$M2" build/kernels/l2bw 32 132 "$kib"
done
python3 kernels/probes/l2slice-summary.py "$DEST"
