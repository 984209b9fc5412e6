#!/usr/bin/env bash
# lrc-bisect.sh - which difference between kernels/transtimed.cu (whose
# readers of a sector merge 1-9% with one CTA an SM) and lrcpair's strideg
# (whose identical readers merge all they can) stops the H200's L2 request
# coalescer merging (docs/findings.md §2f, "Later the same day"). Prepared
# in the twenty-third session, run in the twenty-fourth
# (traces/h200-probes/lrc-bisect/summary.txt; lrc-bisect2.sh goes on).
# Each run: the L1 miss sectors less the L2 read sectors ("l1-l2" of
# kernels/probes/lrc-summary.py) against what the LRC's rule allows.
#   t-base     transtimed, 128 CTAs, QMASK 1 (today's 101-729 of 8,192)
#   t-gpc0     the same with GPC 0's 16 CTAs only (4 readers a sector, no other GPC)
#   t-cta      128 CTAs, QMASK 1, meeting, 200 KiB, 4 idle warps: lrcpair's CTA shape
#   t-zeros    128 CTAs, QMASK 1, the matrix zeros from cudaMemset
#   t-all      GPC 0 only, lrcpair's CTA shape and zeros together
#   g-gpc0     strideg 16 2 4 over SMs 0 16 32 48 (768 of 1,024 today)
#   g-gpc01    the same lines read by four SMs of GPC 1 as well
# RUNS runs each (default 2). On the GPU machine, after make -C kernels:
#   kernels/probes/lrc-bisect.sh DEST
set -u -o pipefail
DEST=${1:?usage: lrc-bisect.sh DEST}
. kernels/probes/ncu-run.sh
mkdir -p "$DEST"
M=$(probe_metrics kernels/probes/lrchits.txt)
run() { # NAME PROGRAM ARGS... (transtimed's stamps go to DEST/NAME-rR.txt)
    local name=$1 prog=$2
    shift 2
    if [ "$prog" = transtimed ]; then
        probe_runs "$DEST" "$name" "$M" build/kernels/transtimed @STAMPS 0 "$@"
    else
        probe_runs "$DEST" "$name" "$M" build/kernels/lrcpair "$@"
    fi
}
#                       CTAS QMASK MEET SMEM IDLE ZEROS
run t-base  transtimed  128  1
run t-gpc0  transtimed  16   1
run t-cta   transtimed  128  1     1    200  4
run t-zeros transtimed  128  1     0    0    0    1
run t-all   transtimed  16   1     1    200  4    1
run g-gpc0  lrcpair strideg 16 2 4 0 16 32 48
run g-gpc01 lrcpair strideg 16 2 4 0 16 32 48 2 3 18 19
xz -9 "$DEST"/*.txt 2>/dev/null
python3 kernels/probes/lrc-summary.py "$DEST" "[tg]-*.csv"
