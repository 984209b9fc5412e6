#!/usr/bin/env bash
# l2slice-sms.sh - do SMs of different GPCs read a line from the same L2 slice
# (findings §12a)? The first SMS SMs (1 to 132) read a 1 KiB buffer (8 lines)
# past L1 over and over (`l2bw 1 132 1 SMS`, one warp each); ncu's sum and
# busiest-slice (.max) L2 read requests say over how many slices those reads
# spread. With every SM, the LRC merges some reads of SMs of one GPC; the
# ratio is what counts. And the hit window of the LRC, finer than
# lrc-hits.sh: SMs 0 and 16 read 256 KiB twice, SM 16 STAGGER cycles late.
# On the GPU machine: kernels/probes/l2slice-sms.sh DEST
set -u -o pipefail
DEST=${1:?usage: l2slice-sms.sh DEST}
. kernels/probes/ncu-run.sh
mkdir -p "$DEST"
M=lts__t_requests_srcunit_tex_op_read.sum,lts__t_requests_srcunit_tex_op_read.max,lrc__request_sectors_op_read_coalescing_achieved_type_hardware.sum
for sms in 1 2 3 4 8 16 32 64 66 132; do
    probe_run "$DEST" "sms-$sms" "$M" build/kernels/l2bw 1 132 1 "$sms"
done
M2=$(probe_metrics kernels/probes/lrchits.txt)
for spr in 4 1; do
    for st in 200 225 250 275 300 325 350 375; do
        probe_run "$DEST" "p-$spr-2-$st" "$M2" build/kernels/lrcpair passes 2 256 "$spr" "$st" 0 16
    done
done
python3 kernels/probes/l2slice-summary.py "$DEST"
