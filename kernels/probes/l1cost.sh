#!/usr/bin/env bash
# l1cost.sh - what a load or store costs the warp that issues it and the SM
# (kernels/l1cost.cu; docs/findings.md §17), plain runs timed by clock64:
#   DEST/plain.txt      lat (one warp's dependent chain), rate (W warps of
#                       independent chains; rate-ca through __ldca) and burst
#                       (W warps of independent loads), W = 1 to 32, twice
#   DEST/placement.txt  burst with chosen warps loading (ACTIVE masks: two or
#                       four warps on one, two or four sub-partitions)
#   DEST/others.txt     lds, sts and stg: shared loads and stores, global stores
# then the kernel captured with its ncu counters for the model
# (kernels/probes/l1cost-capture.exp: DEST/cap). On the GPU machine, after
# make -C kernels build/kernels/l1cost and make capture:
#   kernels/probes/l1cost.sh DEST [plain|placement|others]    (traces/h200-probes/l1cost)
# A second argument runs only that part (no capture).
set -u -o pipefail
DEST=${1:?usage: l1cost.sh DEST [plain|placement|others]} PART=${2:-all}
mkdir -p "$DEST" || exit 2
status=0
part() { [ "$PART" = all ] || [ "$PART" = "$1" ]; }
run() { build/kernels/l1cost "$@" 2>&1 | grep '^l1cost' || status=1; }
if part plain; then
    for r in 1 2; do
        run lat 1024
        for w in 1 2 4 8 16 32; do
            run rate "$w" 256
            run burst "$w" 256
        done
        for w in 1 8; do run rate-ca "$w" 256; done
    done >"$DEST/plain.txt"
fi
if part placement; then
    for a in "2 3" "3 5" "4 9" "5 17" "4 15" "13 4369" "6 51" "8 255"; do # W ACTIVE
        set -- $a
        run burst "$1" 256 "$2"
    done >"$DEST/placement.txt"
fi
if part others; then
    for m in lds sts stg; do
        for w in 1 2 4 8 32; do run "$m" "$w" 256; done
    done >"$DEST/others.txt"
fi
if [ "$PART" = all ]; then
    kernels/capture-all.sh --no-build --no-source --experiments kernels/probes/l1cost-capture.exp \
        --dest "$DEST/cap" --budget 300 || status=1
fi
cat "$DEST"/*.txt 2>/dev/null | grep -c '^l1cost' | sed 's/^/l1cost.sh: lines measured: /'
exit $status
