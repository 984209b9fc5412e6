#!/bin/sh
# bench/sweep.sh - a design-space sweep: every TRACE on every CONFIG, in
# parallel, merged into one CSV (docs/performance.md, "Sweeps").
#
#   bench/sweep.sh [-j JOBS] [-o OUT.csv] [-b BIN] -c CONFIG [-c CONFIG]... TRACE...
#
# Job i (0-based) runs CONFIG[i / #TRACES] on TRACE[i % #TRACES] with
# `gpumemsim run --format csv`; the merged CSV has the columns
#
#   config,trace,kernel,launch,metric,value
#
# (kernel "total" rows are each run's totals), rows in job order whatever
# order the jobs finish in, so the same sweep gives the same bytes.
# -j defaults to the number of online CPUs; -o to standard output; -b to
# build/gpumemsim. Any other `run` option goes after --run-args, e.g.
# --run-args "--kernel ^transpose".
#
# On a cluster, run one job per task of a job array and merge the parts:
#   bench/sweep.sh --only $TASK_ID -o part.$TASK_ID.csv -c ... TRACE...   (each task)
#   { bench/sweep.sh --header; cat part.*.csv; } > sweep.csv   (in task order)
# --jobs-count prints how many tasks the array needs.
#
# Exit: 0; 2 on bad usage or when a job fails (its message is repeated, with
# the config and the trace it ran).
set -eu

BIN=build/gpumemsim
JOBS=
OUT=
ONLY=
RUN_ARGS=
CONFIGS=
MODE=sweep
NL='
'

usage() {
    echo "usage: bench/sweep.sh [-j JOBS] [-o OUT.csv] [-b BIN] [--run-args ARGS] -c CONFIG... TRACE..." >&2
    echo "       bench/sweep.sh --only I [-o PART.csv] [-b BIN] -c CONFIG... TRACE...   (one job)" >&2
    echo "       bench/sweep.sh --header | --jobs-count -c CONFIG... TRACE..." >&2
    exit 2
}
fail() { echo "sweep: $*" >&2; exit 2; }

while [ $# -gt 0 ]; do
    case $1 in
    -j) [ $# -ge 2 ] || usage; JOBS=$2; shift 2 ;;
    -o) [ $# -ge 2 ] || usage; OUT=$2; shift 2 ;;
    -b) [ $# -ge 2 ] || usage; BIN=$2; shift 2 ;;
    -c) [ $# -ge 2 ] || usage
        case $2 in *"$NL"*) fail "config path with a newline: not supported" ;; esac
        CONFIGS="$CONFIGS$2$NL"; shift 2 ;;
    --run-args) [ $# -ge 2 ] || usage; RUN_ARGS=$2; shift 2 ;;
    --only) [ $# -ge 2 ] || usage; ONLY=$2; MODE=only; shift 2 ;;
    --worker) [ $# -ge 3 ] || usage; WORK=$2; ONLY=$3; MODE=worker; shift 3 ;;
    --header) MODE=header; shift ;;
    --jobs-count) MODE=count; shift ;;
    -h|--help) sed -n '2,26p' "$0"; exit 0 ;;
    --) shift; break ;;
    -*) fail "unknown option $1" ;;
    *) break ;;
    esac
done

HEADER=config,trace,kernel,launch,metric,value
if [ "$MODE" = header ]; then echo "$HEADER"; exit 0; fi

# A worker of a local sweep (below): the lists come in files, so that paths
# with spaces pass through xargs unharmed.
if [ "$MODE" = worker ]; then
    BIN=$(cat "$WORK/bin")
    RUN_ARGS=$(cat "$WORK/run_args")
    CONFIGS=$(cat "$WORK/configs")$NL
    set --
    while IFS= read -r t; do set -- "$@" "$t"; done < "$WORK/traces"
fi

[ -n "$CONFIGS" ] || { echo "sweep: no config given (-c CONFIG)" >&2; usage; }
[ $# -gt 0 ] || { echo "sweep: no trace given" >&2; usage; }
n_configs=$(printf '%s' "$CONFIGS" | wc -l)
n_traces=$#
TRACES=
for t in "$@"; do TRACES="$TRACES$t$NL"; done
n_jobs=$((n_configs * n_traces))
if [ "$MODE" = count ]; then echo "$n_jobs"; exit 0; fi

[ -x "$BIN" ] || fail "$BIN: not an executable (build it first: make)"
set -f # the lists split at newlines only, and are not globbed
old_ifs=$IFS
IFS=$NL
for c in $CONFIGS; do
    [ -f "$c" ] || fail "$c: no such config"
done
IFS=$old_ifs
set +f
for t in "$@"; do
    case $t in *"$NL"*) fail "trace path with a newline: not supported" ;; esac
    [ -f "$t" ] || fail "$t: no such trace"
done

# A CSV field: quoted when it holds a comma, a quote or a space.
csv_field() {
    case $1 in
    *[\",\ ]*) printf '"%s"' "$(printf '%s' "$1" | sed 's/"/""/g')" ;;
    *) printf '%s' "$1" ;;
    esac
}

# Run job $1 (0-based); rows without a header to standard output.
run_job() {
    i=$1
    ci=$((i / n_traces + 1))
    ti=$((i % n_traces + 1))
    config=$(printf '%s' "$CONFIGS" | sed -n "${ci}p")
    trace=$(printf '%s' "$TRACES" | sed -n "${ti}p")
    prefix="$(csv_field "$config"),$(csv_field "$trace"),"
    part=$(mktemp "${TMPDIR:-/tmp}/gms-sweep-job.XXXXXX")
    # shellcheck disable=SC2086 # RUN_ARGS is a list of words by design
    if ! "$BIN" run --config "$config" --format csv -o "$part" $RUN_ARGS "$trace" 2> "$part.err"; then
        echo "sweep: job $i (config $config, trace $trace) failed: $(tail -n 1 "$part.err")" >&2
        rm -f "$part" "$part.err"
        return 2
    fi
    cat "$part.err" >&2
    if [ -t 2 ]; then echo "sweep: job $i of $n_jobs done ($config, $trace)" >&2; fi
    # drop the config dump (# lines) and run's own header; prefix every row
    awk -v p="$prefix" 'NR == 1 && /^#/ { next } /^#/ { next } $0 == "kernel,launch,metric,value" { next } { print p $0 }' "$part"
    rm -f "$part" "$part.err"
}

if [ "$MODE" = only ] || [ "$MODE" = worker ]; then
    case $ONLY in ''|*[!0-9]*) fail "--only $ONLY: expected a job number from 0 to $((n_jobs - 1))" ;; esac
    [ "$ONLY" -lt "$n_jobs" ] || fail "--only $ONLY: expected a job number from 0 to $((n_jobs - 1))"
    [ "$MODE" = worker ] && OUT="$WORK/part.$ONLY"
    if [ -n "$OUT" ]; then run_job "$ONLY" > "$OUT"; else run_job "$ONLY"; fi
    exit 0
fi

if [ -z "$JOBS" ]; then JOBS=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1); fi
case $JOBS in ''|*[!0-9]*|0) fail "-j $JOBS: expected a whole number of jobs, 1 or more" ;; esac

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gms-sweep.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
printf '%s\n' "$BIN" > "$tmp/bin"
printf '%s\n' "$RUN_ARGS" > "$tmp/run_args"
printf '%s' "$CONFIGS" > "$tmp/configs"
for t in "$@"; do printf '%s\n' "$t"; done > "$tmp/traces"
i=0
while [ "$i" -lt "$n_jobs" ]; do echo "$i"; i=$((i + 1)); done > "$tmp/jobs"

# JOBS at a time; xargs appends the job number to each worker's arguments
if ! xargs -P "$JOBS" -n 1 sh "$0" --worker "$tmp" < "$tmp/jobs"; then
    echo "sweep: some jobs failed (above); no CSV written" >&2
    exit 2
fi

# the parts in job order, under one header
merged="$tmp/merged.csv"
echo "$HEADER" > "$merged"
i=0
while [ "$i" -lt "$n_jobs" ]; do cat "$tmp/part.$i" >> "$merged"; i=$((i + 1)); done
if [ -n "$OUT" ]; then cp "$merged" "$OUT"; else cat "$merged"; fi
