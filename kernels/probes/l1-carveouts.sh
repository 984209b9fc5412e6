#!/usr/bin/env bash
# l1-carveouts.sh - which shared-memory carveout (so which L1 size) the driver
# gave the L1 probes: ncu's LaunchStats of kernels/l1hash.cu with 0 to 32 KiB
# of dynamic shared memory (and its capacity tests beside each), and of
# kernels/l1keep.cu's launch shapes (docs/findings.md §3f). On the GPU machine:
#   kernels/probes/l1-carveouts.sh      (DEST: $OUT/ls)
set -u -o pipefail
OUT=${OUT:-/tmp}
make -C kernels $PWD/build/kernels/l1hash $PWD/build/kernels/l1keep >/dev/null
mkdir -p $OUT/ls
for s in 0 1024 8192 16384 32768; do
  GMS_SMEM=$s ncu --csv --clock-control none --section LaunchStats --section Occupancy -k regex:l1Hash -c 1 build/kernels/l1hash kernels/probes/l1hash-capacity.tests > $OUT/ls/l1hash-smem$s.csv 2>/dev/null
  echo "== smem $s: $(grep -h '"Shared Memory Configuration Size"\|"Block Limit Shared Mem"\|"Driver Shared Memory Per Block"' $OUT/ls/l1hash-smem$s.csv | awk -F'","' '{printf "%s=%s ", $(NF-2), $NF}')"
  GMS_SMEM=$s build/kernels/l1hash kernels/probes/l1hash-capacity.tests 2>/dev/null | awk '{printf "%s:%s/%s ", $1"x"$2, $4, $3} END {print ""}'
done
for e in "st 56 0" "st 16 50000 2048 128 line nosync" "st 12 50000 2048 128 line nosync" "st 16 50000 528 512 line nosync"; do
  ncu --csv --clock-control none --section LaunchStats --section Occupancy build/kernels/l1keep $e 2>/dev/null > $OUT/ls/l1keep.csv
  echo "l1keep $e: $(grep -h '"Shared Memory Configuration Size"\|"Block Limit Shared Mem"\|"Driver Shared Memory Per Block"' $OUT/ls/l1keep.csv | awk -F'","' '{printf "%s=%s ", $(NF-2), $NF}')"
done
for e in "st 16 50000 528 512 line nosync"; do
  GMS_SMEM=12288 ncu --csv --clock-control none --section LaunchStats --section Occupancy build/kernels/l1keep $e 2>/dev/null > $OUT/ls/l1keep-smem.csv
  echo "l1keep smem12k $e: $(grep -h '"Shared Memory Configuration Size"\|"Block Limit Shared Mem"\|"Driver Shared Memory Per Block"' $OUT/ls/l1keep-smem.csv | awk -F'","' '{printf "%s=%s ", $(NF-2), $NF}')"
done
