#!/usr/bin/env bash
# lrc-gather.sh - do identical requests that two SMs' gathers make by chance
# merge in the LRC, as identical streams do (findings §2e)? On the GPU
# machine, after make -C kernels: kernels/probes/lrc-gather.sh DEST
# `lrcpair gather KIB SAME SM...` over 2, 4 and 8 SMs of GPC 0, the same
# sequence on every SM (SAME 1) or each its own (0), two runs each, and at
# 32 KiB with every other SM streaming 512 KiB from DRAM meanwhile (load512);
# bench/lrcgroup-trace.py K gather-same|gather-own KIB writes the model's
# trace of each. DEST/NAME.{csv,log}; one line per launch at the end.
set -u -o pipefail
DEST=${1:?usage: lrc-gather.sh DEST}
NCU=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
mkdir -p "$DEST"
M=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' kernels/probes/lrchits.txt | paste -sd, -)
SMS=(0 16 32 48 1 17 33 49)
for kib in 32 128; do
    for k in 2 4 8; do
        for same in 1 0; do
            for r in 1 2; do
                name="g-$kib-$k-$same-r$r"
                echo "[$(date +%T)] $name" >&2
                timeout --kill-after=10 240 "$NCU" --csv --clock-control none --metrics "$M" \
                    build/kernels/lrcpair gather "$kib" "$same" 0 "${SMS[@]:0:$k}" >"$DEST/$name.csv" 2>"$DEST/$name.log" ||
                    echo "$name: failed (rc $?)" >&2
            done
        done
    done
done
# the same with every other SM streaming 512 KiB of its own from DRAM meanwhile
for k in 4 8; do
    for same in 1 0; do
        for r in 1 2; do
            name="g-32-$k-$same-load512-r$r"
            echo "[$(date +%T)] $name" >&2
            timeout --kill-after=10 240 "$NCU" --csv --clock-control none --metrics "$M" \
                build/kernels/lrcpair gather 32 "$same" 512 "${SMS[@]:0:$k}" >"$DEST/$name.csv" 2>"$DEST/$name.log" ||
                echo "$name: failed (rc $?)" >&2
        done
    done
done
python3 kernels/probes/lrc-summary.py "$DEST" "g-*.csv"
