#!/usr/bin/env bash
# lrc-xgpc2.sh - does a read of another sector of a line from the other L2
# partition's GPCs stop two reads of one GPC merging (findings §2f)? One
# such read 100 cycles after the first did not (lrc-xgpc.sh, x-1-g1-1); 8
# SMs of GPCs 1 and 2 reading sector 1 of 256 lines while 8 SMs of GPCs 0, 4
# and 5 read sector 0 took most merges away (lrc-bisect3.sh, x-p1).
#   y-C-DC-DB  `lrcpair xgpc 1 1 DC DB 0 16 C`: SM 0 reads sector 0 of 8
#              lines, SM C sector 1 of them DC cycles later, SM 16 (GPC 0)
#              sector 0 DB cycles after the first. C: 2 (GPC 1, the other
#              partition) or 8 (GPC 4, the same partition as GPC 0)
#   q-N        lrc-bisect3's x-p1 with N of its SMs reading sector 1
# PARTS=gap runs only the second step: y-2 with DB - DC from 350 to 500
# cycles (the first step found 300 keeping the merge and 550 voiding it).
# PARTS=gpcs the third: group 0 with one GPC's four SMs reading sector 1,
#   r-G        G: GPC 1, 2, 3 or 7 (the other partition) or 6 (group 0's)
#   r-p1       lrc-bisect3's x-p1 again (GPCs 1 and 2; 456 and 1,381 before)
# RUNS runs each (default 2). On the GPU machine, after make -C kernels:
#   kernels/probes/lrc-xgpc2.sh DEST
set -u -o pipefail
DEST=${1:?usage: lrc-xgpc2.sh DEST}
. kernels/probes/ncu-run.sh
. kernels/probes/lrc-groups.sh
mkdir -p "$DEST"
M=$(probe_metrics kernels/probes/lrchits.txt)
run() { # NAME ARGS... (lrcpair's)
    local name=$1
    shift
    probe_runs "$DEST" "$name" "$M" build/kernels/lrcpair "$@"
}
if [ "${PARTS:-}" = gap ]; then
    for db in 450 500 550 600; do
        run "y-2-100-$db" xgpc 1 1 100 "$db" 0 16 2
    done
    python3 kernels/probes/lrc-summary.py "$DEST" "*.csv"
    exit 0
fi
if [ "${PARTS:-}" = gpcs ]; then
    # shellcheck disable=SC2086 # the SM lists split on purpose
    {
        run r-1 strideg 16 2 4 $G0 2:8 34:8 64:8 92:8
        run r-2 strideg 16 2 4 $G0 4:8 36:8 66:8 94:8
        run r-3 strideg 16 2 4 $G0 6:8 38:8 68:8 96:8
        run r-7 strideg 16 2 4 $G0 14:8 46:8 76:8 104:8
        run r-6 strideg 16 2 4 $G0 12:8 44:8 74:8 102:8
        run r-p1 strideg 16 2 4 $G0 2:8 34:8 64:8 92:8 4:8 36:8 66:8 94:8
    }
    python3 kernels/probes/lrc-summary.py "$DEST" "*.csv"
    exit 0
fi
for c in 2 8; do
    for d in "100 200" "20 200" "50 600" "300 600" "100 1000"; do
        # shellcheck disable=SC2086 # DC DB
        run "y-$c-${d// /-}" xgpc 1 1 $d 0 16 "$c"
    done
done
# shellcheck disable=SC2086 # the SM lists split on purpose
{
    run q-1 strideg 16 2 4 $G0 2:8
    run q-2 strideg 16 2 4 $G0 2:8 34:8
    run q-4 strideg 16 2 4 $G0 2:8 34:8 64:8 92:8
}
python3 kernels/probes/lrc-summary.py "$DEST" "*.csv"
