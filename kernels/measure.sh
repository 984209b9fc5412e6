#!/usr/bin/env bash
# measure.sh - a focused ncu measurement on experiments of the suite: the
# metrics of one list file, each experiment run REPS times, the raw
# `ncu --csv` output kept per run. For questions the capture suite does not
# answer (a hardware unit's own counters, the spread between runs, another
# ncu option); the findings and the command go into docs/.
#
# usage (on the GPU machine, from the repository root, after make -C kernels):
#   kernels/measure.sh --metrics FILE --only REGEX --dest DIR [--reps N]
#                      [--experiments FILE] [-- NCU_OPTIONS...]
# --experiments: "NAME PROGRAM ARGS..." lines as in kernels/experiments.txt (the
# default); kernels/probes/*.exp hold experiments that exist for one question.
# writes DIR/NAME.rK.ncu.csv (K = 1..N) and DIR/measure.log, and prints one
# line per run: NAME, run, then "metric=value" for every metric of FILE.
# ncu always gets --clock-control none. Exit: 0, 1 when a run failed, 2 usage.
set -u -o pipefail
die() { echo "measure.sh: $*" >&2; exit 2; }
LIST="" ONLY="" DEST="" REPS=1 EXTRA=() EXPS=kernels/experiments.txt
while [ $# -gt 0 ]; do
    case $1 in
    --metrics) [ $# -ge 2 ] || die "--metrics needs a file"; LIST=$2; shift 2 ;;
    --only) [ $# -ge 2 ] || die "--only needs a regular expression"; ONLY=$2; shift 2 ;;
    --dest) [ $# -ge 2 ] || die "--dest needs a folder"; DEST=$2; shift 2 ;;
    --experiments) [ $# -ge 2 ] || die "--experiments needs a file"; EXPS=$2; shift 2 ;;
    --reps) [ $# -ge 2 ] && [[ $2 =~ ^[1-9][0-9]*$ ]] || die "--reps needs a positive number"; REPS=$2; shift 2 ;;
    --) shift; EXTRA=("$@"); break ;;
    *) die "unknown argument '$1' (usage: see the header of $0)" ;;
    esac
done
[ -f "$LIST" ] || die "--metrics: no file '$LIST'"
[ -f "$EXPS" ] || die "--experiments: no file '$EXPS'"
[ -n "$ONLY" ] && [ -n "$DEST" ] || die "--only and --dest are required"
NCU=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
[ -x "$NCU" ] || die "ncu not found (set NCU)"
mkdir -p "$DEST" || die "cannot create $DEST"
WANTED=$(sed -e 's/#.*//' -e 's/[[:space:]]//g' -e '/^$/d' "$LIST")
[ -n "$WANTED" ] || die "$LIST: no metric names"
# ncu refuses a whole run over one unknown metric: keep the names whose base
# (before the first '.') this GPU's ncu lists, and say which were dropped.
KNOWN=$("$NCU" --query-metrics 2>/dev/null | awk '{print $1}')
METRICS=""
for m in $WANTED; do
    if [ -n "$KNOWN" ] && ! grep -qxF "${m%%.*}" <<<"$KNOWN"; then
        echo "measure.sh: $LIST: ncu does not know '$m' on this GPU; dropped" >&2
        continue
    fi
    METRICS=${METRICS:+$METRICS,}$m
done
if [ -z "$METRICS" ]; then
    # not one name matched: more likely a --query-metrics format this script
    # does not read than a list of unknown names; let ncu judge them all
    echo "measure.sh: could not match $LIST against ncu --query-metrics; using every name" >&2
    METRICS=$(paste -sd, - <<<"$WANTED")
fi
bad=0 found=0
while read -r name prog args; do
    case $name in ''|'#'*) continue ;; esac
    [[ $name =~ $ONLY ]] || continue
    found=1
    for r in $(seq 1 "$REPS"); do
        out=$DEST/$name.r$r.ncu.csv
        # shellcheck disable=SC2086 # args are words from experiments.txt
        if ! timeout --kill-after=10 120 "$NCU" --csv --clock-control none "${EXTRA[@]}" --metrics "$METRICS" \
            build/kernels/$prog $args </dev/null >"$out" 2>>"$DEST/measure.log"; then
            echo "$name r$r: ncu failed (see $DEST/measure.log)" >&2; bad=1; continue
        fi
        # the CSV's "Metric Name","Metric Unit","Metric Value" columns, as one line
        python3 - "$out" "$name" "$r" <<'PY'
import csv, sys
path, name, r = sys.argv[1:]
rows = [l for l in open(path) if l.startswith('"')]
vals = []
for d in csv.DictReader(rows):
    vals.append(f'{d["Metric Name"]}={d["Metric Value"].replace(",", "")}')
print(name, f"r{r}", " ".join(vals))
PY
    done
done < "$EXPS"
[ $found -eq 1 ] || die "no experiment matches '$ONLY'"
exit $bad
