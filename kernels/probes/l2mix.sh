#!/usr/bin/env bash
# l2mix.sh - do reads and writes that stay in L2 pass L2's intake at the rate
# of either alone (docs/findings.md §25b)? kernels/dramrate.cu's read, write
# and copy streams over buffers that L2 holds (16 and 24 MiB: the copy's
# writes stay under L2's ~26 MiB dirty limit, §3b) and one that it does not
# (1,024 MiB), under ncu as the suite measures (caches flushed). The slope
# between sizes is the rate without the launch's fixed cost. On the GPU
# machine, from the repository root:   kernels/probes/l2mix.sh DEST
set -u -o pipefail
DEST=${1:?usage: l2mix.sh DEST}
NCU=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
mkdir -p "$DEST"
make -s -C kernels "$PWD/build/kernels/dramrate" || exit 1
M=sm__cycles_elapsed.avg,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum
status=0
for mode in read write copy; do
    for mib in 16 24 1024; do
        "$NCU" --clock-control none --cache-control all --metrics "$M" --csv \
            build/kernels/dramrate "$mode" "$mib" >"$DEST/$mode-$mib.csv" 2>"$DEST/$mode-$mib.log" || status=1
        awk -F'","' -v m="$mode" -v s="$mib" 'NR > 1 && $13 != "" { gsub(/"/, "", $15); gsub(/,/, "", $15);
            gsub(/"/, "", $1); k = $1 + 0; v[k] = v[k] " " $13 "=" $15 } END { for (k in v) print m, s, "launch", k, v[k] }' \
            "$DEST/$mode-$mib.csv" | sort -k4n
    done
done
exit $status
