#!/usr/bin/env bash
# lrc-pairs.sh - which SMs' reads the L2 request coalescer merges, and within
# how many cycles (docs/findings.md §2b). On the GPU machine, from the
# repository root, after make -C kernels:
#   kernels/probes/lrc-pairs.sh DEST [KIB]
# writes DEST/map.log (the GPC of every SM, from clusters), DEST/sweep-A.{csv,log}
# (SM A with every other SM), DEST/delay-J-D.{csv,log} (SM 0 and SM J, J
# starting D cycles later), then prints kernels/probes/lrc-pairs.py's summary.
set -u -o pipefail
DEST=${1:?usage: lrc-pairs.sh DEST [KIB]} KIB=${2:-256}
. kernels/probes/ncu-run.sh
BIN=build/kernels/lrcpair
mkdir -p "$DEST"
M=$(probe_metrics kernels/probes/lrcpair.txt)
prof() { probe_run "$DEST" "$1" "$M" "$BIN" "${@:2}"; } # NAME ARGS...: one ncu run of lrcpair
timeout 60 "$BIN" map 5 2>"$DEST/map.log" || echo "map: failed" >&2
for a in 0 1 ${ANCHORS:-}; do prof "sweep-$a" sweep "$a" 0 "$KIB"; done
# partners for the delay sweep: the first SM of SM 0's GPC and the first of another
read -r SAME OTHER < <(python3 kernels/probes/lrc-pairs.py --partners "$DEST/map.log")
for d in 0 200 500 1000 2000 4000 8000; do prof "delay-$d" sweep 0 "$d" "$KIB" "$SAME" "$OTHER"; done
python3 kernels/probes/lrc-pairs.py "$DEST"
