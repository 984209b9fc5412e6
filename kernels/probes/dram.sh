#!/usr/bin/env bash
# dram.sh - DRAM's own bandwidth and its latency under load on this GPU
# (docs/findings.md §18):
#   DEST/dramrate-MODE.csv  ncu's counters of kernels/dramrate.cu: read, write
#                           and copy streams of 1 GiB from every SM with 1, 4
#                           and 8 float4 accesses in flight a thread
#   DEST/dramrate.txt       the same programs' event times, twice
#   DEST/dramlat.txt        kernels/dramlat.cu: one thread's DRAM chase while
#                           the other SMs read (or write) at nine load levels, twice;
#                           `shared`: SM 0's other CTAs read too
#   DEST/dramgather.txt     kernels/dramgather.cu: one warp's loads of L cold
#                           lines (L = 1..32), their cycles' distribution, twice
# then, unless `nocap`, the streams captured with their counters (DEST/cap):
# readSegment/writeSegment at 2^18-2^24 floats (kernels/probes/scale.exp)
# and the dramrate streams at 128 MiB (kernels/probes/dramrate-capture.exp),
# about 32 MB of traces, too large for the repository, and dramgather
# (kernels/probes/dramgather-capture.exp). On the GPU machine,
# after make -C kernels build/kernels/{dramrate,dramlat,readSegment,writeSegment}
# and make capture:
#   kernels/probes/dram.sh DEST [nocap]
set -u -o pipefail
DEST=${1:?usage: dram.sh DEST [nocap]}
mkdir -p "$DEST" || exit 2
. "$(dirname "$0")/ncu-run.sh"
status=0
METRICS=sm__cycles_elapsed.avg,sm__cycles_elapsed.max,gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__cycles_elapsed.avg
for mode in read write copy; do
    for r in 1 2; do build/kernels/dramrate "$mode" 2>&1 | grep '^dramrate' || status=1; done
done >"$DEST/dramrate.txt"
for mode in read write copy; do
    probe_run "$DEST" "dramrate-$mode" "$METRICS" build/kernels/dramrate "$mode"
done
for r in 1 2; do
    for args in read write "read shared"; do build/kernels/dramlat $args 2>&1 | grep '^dramlat' || status=1; done
done >"$DEST/dramlat.txt"
for r in 1 2; do build/kernels/dramgather 2>&1 | grep '^dramgather' || status=1; done >"$DEST/dramgather.txt"
if [ "${2:-}" != nocap ]; then
    for exp in scale dramrate-capture dramgather-capture; do
        kernels/capture-all.sh --no-build --no-source --experiments "kernels/probes/$exp.exp" \
            --dest "$DEST/cap" --budget 400 || status=1
    done
fi
cat "$DEST/dramrate.txt" "$DEST/dramlat.txt" "$DEST/dramgather.txt"
exit $status
