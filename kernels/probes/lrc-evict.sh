#!/usr/bin/env bash
# lrc-evict.sh - do newer requests push a read in flight out of the LRC?
# Or is a request it has no room for left untracked? (docs/findings.md §2f)
# `lrcpair evict SPR M DELAY_F DELAY_A DELAY_B 0 16 FILLERS...`: the 14
# other SMs of GPC 0 each send M one-sector requests to lines of their own
# from DELAY_F cycles after the meeting, SM 0 reads 8 lines (their first SPR
# sectors, one request a line; 4: whole lines; waiting for DRAM) DELAY_A
# cycles after it and SM 16 the same sectors DELAY_B cycles after it. Control: the fillers in GPC 1. RUNS runs each (default
# 2); names e-GPC-M-DELAY_A-DELAY_B-rR (whole lines), pSPR-... (part_partial). PARTS: which parts to run (default
# "between first late partial", below). On the GPU machine, after make -C kernels:
#   kernels/probes/lrc-evict.sh DEST
# shellcheck disable=SC2086 # the SM lists are split into words on purpose
set -u -o pipefail
DEST=${1:?usage: lrc-evict.sh DEST}
. kernels/probes/ncu-run.sh
mkdir -p "$DEST"
M=$(probe_metrics kernels/probes/lrchits.txt)
GPC0="1 17 32 33 48 49 124 125 126 127 128 129 130 131"
GPC1="2 3 18 19 34 35 50 51 64 65 78 79 92 93"
run() { # NAME ARGS...
    local name=$1
    shift
    for r in $(seq "${RUNS:-2}"); do
        probe_run "$DEST" "$name-r$r" "$M" build/kernels/lrcpair evict "$@"
    done
}
# SM 0 first (DELAY_A 0). The window without fillers: how late SM 16 may
# read and still merge; then fillers between the two reads.
part_between() {
    for b in 0 100 200 300 400 500 600; do
        run "e-g0-0-0-$b" 4 0 10 0 "$b" 0 16 $GPC0
    done
    for b in 200 400; do
        for m in 32 64 128 256 512; do
            run "e-g0-$m-0-$b" 4 "$m" 10 0 "$b" 0 16 $GPC0
        done
        for m in 256 512; do
            run "e-g1-$m-0-$b" 4 "$m" 10 0 "$b" 0 16 $GPC1
        done
    done
}
# The fillers first: SM 0 reads once ~14 x 140 or 14 x 240 of them are in
# flight, SM 16 20 cycles after it.
part_first() {
    for a in 150 250; do
        for m in 0 32 64 128 256 512 1024; do
            run "e-g0-$m-$a-$((a + 20))" 4 "$m" 10 "$a" $((a + 20)) 0 16 $GPC0
        done
        for m in 256 1024; do
            run "e-g1-$m-$a-$((a + 20))" 4 "$m" 10 "$a" $((a + 20)) 0 16 $GPC1
        done
    done
}
# The same later, when up to 14 x 890 have been sent (those of the first
# few hundred cycles back already).
part_late() {
    for a in 500 900; do
        for m in 0 512 1024; do
            run "e-g0-$m-$a-$((a + 20))" 4 "$m" 10 "$a" $((a + 20)) 0 16 $GPC0
        done
        run "e-g1-1024-$a-$((a + 20))" 4 1024 10 "$a" $((a + 20)) 0 16 $GPC1
    done
}
# One-sector reads (SPR 1; lines' sector 0) and fillers between them: 1, 2
# or 4 filler SMs sending 32 each, then all 14 sending 32 to 256.
part_partial() {
    run "p1-g0-0-0-200" 1 0 10 0 200 0 16 $GPC0
    run "p1-f1-32-0-200" 1 32 10 0 200 0 16 1
    run "p1-f2-32-0-200" 1 32 10 0 200 0 16 1 17
    run "p1-f4-32-0-200" 1 32 10 0 200 0 16 1 17 32 33
    for m in 32 64 128 256; do
        run "p1-g0-$m-0-200" 1 "$m" 10 0 200 0 16 $GPC0
    done
    run "p1-g1-256-0-200" 1 256 10 0 200 0 16 $GPC1
    run "p2-g0-0-0-200" 2 0 10 0 200 0 16 $GPC0
    run "p2-g0-64-0-200" 2 64 10 0 200 0 16 $GPC0
    run "p4-g0-256-0-200" 4 256 10 0 200 0 16 $GPC0
}
# shellcheck disable=SC2086
for part in ${PARTS:-between first late partial}; do
    "part_$part"
done
python3 kernels/probes/lrc-summary.py "$DEST" "[ep]*.csv"
