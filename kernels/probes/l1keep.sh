#!/usr/bin/env bash
# l1keep.sh - does L1 keep what it holds? Lines filled by stores or loads, a
# wait, the same lines loaded again (kernels/l1keep.cu, l1keep.exp,
# l1keep.txt; docs/findings.md §3f). On the GPU machine, after make -C kernels:
#   kernels/probes/l1keep.sh DEST [REPS [REGEX]]
# Experiments named *_smemNk run with GMS_SMEM=N KiB of dynamic shared memory.
set -u -o pipefail
DEST=${1:?usage: l1keep.sh DEST [REPS [REGEX]]}
REPS=${2:-1} ONLY=${3:-.}
EXP=kernels/probes/l1keep.exp
status=0
plain=$(awk -v re="$ONLY" '$1 !~ /^#/ && NF && $1 ~ re && $1 !~ /_smem[0-9]+k$/ {print $1}' "$EXP")
if [ -n "$plain" ]; then
    kernels/measure.sh --metrics kernels/probes/l1keep.txt --experiments "$EXP" \
        --only "^($(paste -sd'|' <<<"$plain"))\$" --reps "$REPS" --dest "$DEST" || status=1
fi
for k in $(awk -v re="$ONLY" '$1 !~ /^#/ && NF && $1 ~ re && match($1, /_smem[0-9]+k$/) {
               print substr($1, RSTART + 5, RLENGTH - 6)}' "$EXP" | sort -un); do
    GMS_SMEM=$((k * 1024)) kernels/measure.sh --metrics kernels/probes/l1keep.txt --experiments "$EXP" \
        --only "_smem${k}k\$" --reps "$REPS" --dest "$DEST" || status=1
done
exit $status
