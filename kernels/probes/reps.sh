#!/usr/bin/env bash
# reps.sh - the suite's toleranced counters (kernels/probes/reps.txt) measured
# REPS more times on every experiment of kernels/experiments.txt, one round
# over the whole suite after another, so that a run cut short by BUDGET
# seconds still covers every kernel evenly. Writes DEST/NAME.rK.ncu.csv
# (measure.sh's names, which kernels/runs-spread.py reads) and prints, last,
# how many runs each kernel got.
# On the GPU machine, after make -C kernels:
#   kernels/probes/reps.sh DEST [REPS [BUDGET [FIRST]]]
# FIRST: the number of the first round (default 1), to add rounds to a DEST.
set -u -o pipefail
DEST=${1:?usage: reps.sh DEST [REPS [BUDGET [FIRST]]]}
REPS=${2:-3} BUDGET=${3:-500} FIRST=${4:-1}
mkdir -p "$DEST/tmp" || exit 2
start=$(date +%s)
for k in $(seq "$FIRST" $((FIRST + REPS - 1))); do
    while read -r name _; do
        case $name in ''|'#'*) continue ;; esac
        if [ $(($(date +%s) - start)) -ge "$BUDGET" ]; then
            echo "reps.sh: budget of $BUDGET s spent; stopping before $name round $k" >&2
            break 2
        fi
        echo "[$(date +%T)] $name round $k" >&2
        kernels/measure.sh --metrics kernels/probes/reps.txt --only "^$name\$" --dest "$DEST/tmp" >/dev/null &&
            mv "$DEST/tmp/$name.r1.ncu.csv" "$DEST/$name.r$k.ncu.csv"
        cat "$DEST/tmp/measure.log" >>"$DEST/measure.log" 2>/dev/null
        rm -f "$DEST/tmp/measure.log"
    done < kernels/experiments.txt
done
rmdir "$DEST/tmp" 2>/dev/null
echo "runs per kernel: $(ls "$DEST" | sed -n 's/\.r[0-9]*\.ncu\.csv$//p' | sort | uniq -c | awk '{print $1}' | sort | uniq -c | awk '{printf "%s kernels with %s; ", $1, $2}')"
