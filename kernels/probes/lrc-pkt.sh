#!/usr/bin/env bash
# lrc-pkt.sh - does an identical request merge by its own line, or only when
# the other lines of its instruction match too? (docs/findings.md §2e). On
# the GPU machine, after make -C kernels: kernels/probes/lrc-pkt.sh DEST
# `lrcpair pkt OFF_A OFF_B 0 16`: SMs 0 and 16 (GPC 0) read, 64 times in
# step, line 64i and line 64i + OFF with one instruction each; the first
# lines are the same (256 sectors), the second the same or not, in the first
# line's 2 KiB (its L2 slice: OFF < 16) or not. Two runs each. DEST/NAME.{csv,log}
# and kernels/probes/lrc-summary.py's line per run.
set -u -o pipefail
DEST=${1:?usage: lrc-pkt.sh DEST}
. kernels/probes/ncu-run.sh
mkdir -p "$DEST"
M=$(probe_metrics kernels/probes/lrchits.txt)
for v in "1 1" "1 2" "2 3" "16 16" "16 32" "1 16" "16 1" "1 32"; do
    for r in 1 2; do
        # shellcheck disable=SC2086
        probe_run "$DEST" "p-${v// /-}-r$r" "$M" build/kernels/lrcpair pkt $v 0 16
    done
done
python3 kernels/probes/lrc-summary.py "$DEST" "*.csv"
