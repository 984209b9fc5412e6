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
NCU=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
mkdir -p "$DEST"
M=lts__t_requests_srcunit_tex_op_read.sum,lts__t_requests_srcunit_tex_op_read.max,lrc__request_sectors_op_read_coalescing_achieved_type_hardware.sum
for sms in 1 2 3 4 8 16 32 64 66 132; do
    echo "[$(date +%T)] l2bw 1 132 1 $sms" >&2
    timeout --kill-after=10 240 "$NCU" --csv --clock-control none --metrics "$M" \
        build/kernels/l2bw 1 132 1 "$sms" >"$DEST/sms-$sms.csv" 2>"$DEST/sms-$sms.log" ||
        echo "sms-$sms: failed (rc $?)" >&2
done
M2=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' kernels/probes/lrchits.txt | paste -sd, -)
for spr in 4 1; do
    for st in 200 225 250 275 300 325 350 375; do
        echo "[$(date +%T)] lrcpair passes 2 256 $spr $st 0 16" >&2
        timeout --kill-after=10 240 "$NCU" --csv --clock-control none --metrics "$M2" \
            build/kernels/lrcpair passes 2 256 "$spr" "$st" 0 16 >"$DEST/p-$spr-2-$st.csv" 2>"$DEST/p-$spr-2-$st.log" ||
            echo "p-$spr-2-$st: failed (rc $?)" >&2
    done
done
python3 kernels/probes/l2slice-summary.py "$DEST"
