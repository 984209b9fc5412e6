#!/usr/bin/env bash
# capture-all.sh - build the kernel suite and, for every experiment of
# kernels/experiments.txt, write into traces/h200/:
#   NAME.trace       its memory trace (build/capture/gpumemsim-capture)
#   NAME.ncu.csv     ncu --csv --metrics <kernels/metrics.txt>, raw ncu stdout
#   NAME.source.csv  ncu's source page (per SASS instruction) as CSV
# then traces/h200/MANIFEST (GPU, driver, CUDA, ncu, flags, every command, date)
# and, when $OUT is set, one archive $OUT/capture-all.tgz.part-* (split in 15 MiB parts) of traces/h200/ and
# the logs (plus $OUT/summary.txt).
#
# Run on the GPU machine from the repository root. It never changes GPU
# settings (ncu always gets --clock-control none), time-limits every step,
# keeps going when an experiment fails, reports progress on stderr and ends
# with a short summary table on stdout. Logs: build/capture-all/logs/.
# Exit status: 0 when every step of every experiment succeeded, 1 otherwise.
#
# usage: kernels/capture-all.sh [--only REGEX] [--budget SECONDS] [--no-build]
#                               [--no-capture] [--no-ncu] [--no-source]
#                               [--experiments FILE] [--dest DIR]
#   --only REGEX   only experiments whose name matches (MANIFEST gets a new section appended)
#   --experiments FILE  experiments to run instead of kernels/experiments.txt (e.g. a
#                  kernels/probes/*.exp file: captures for one question)
#   --dest DIR     where the traces, CSVs and MANIFEST go (default traces/h200)
#   --budget S     start no new experiment once S seconds have passed (default 540,
#                  so the run ends inside a 10-minute job; 0 = no limit)
# Environment: SOURCE_SELECT (ncu options for the source view, e.g. "--set full"),
# CAPTURE_OPTS (options for the capture tool, e.g. "--shuffles"),
# NCU, NVCC, CUOBJDUMP, CAPTURE (tool paths), T_BUILD, T_CAPTURE,
# T_NCU, T_SOURCE, T_EXPORT (per-step time limits in seconds).
set -u -o pipefail

die() { echo "capture-all.sh: $*" >&2; exit 2; }

ONLY="" BUDGET=540 EXPS=kernels/experiments.txt DEST=traces/h200 DO_BUILD=1 DO_CAPTURE=1 DO_NCU=1 DO_SOURCE=1
while [ $# -gt 0 ]; do
    case $1 in
    --only) [ $# -ge 2 ] || die "--only needs a regular expression"; ONLY=$2; shift 2 ;;
    --budget) [ $# -ge 2 ] && [[ $2 =~ ^[0-9]+$ ]] || die "--budget needs a number of seconds"
        BUDGET=$2; shift 2 ;;
    --experiments) [ $# -ge 2 ] && [ -f "$2" ] || die "--experiments needs an existing file"
        EXPS=$2; shift 2 ;;
    --dest) [ $# -ge 2 ] || die "--dest needs a folder"; DEST=$2; shift 2 ;;
    --no-build) DO_BUILD=0; shift ;;
    --no-capture) DO_CAPTURE=0; shift ;;
    --no-ncu) DO_NCU=0; shift ;;
    --no-source) DO_SOURCE=0; shift ;;
    -h|--help) sed -n '2,/^set -u/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
    esac
done

[ -f kernels/experiments.txt ] && [ -f kernels/metrics.txt ] || die "run me from the repository root"

WORK=build/capture-all
LOGS=$WORK/logs
REPS=$WORK/reports
FAILED=$WORK/failed
KBIN=build/kernels
T_BUILD=${T_BUILD:-600} T_CAPTURE=${T_CAPTURE:-180} T_NCU=${T_NCU:-180}
T_SOURCE=${T_SOURCE:-180} T_EXPORT=${T_EXPORT:-60}
mkdir -p "$DEST" "$LOGS/sass" "$REPS" "$FAILED" || die "cannot create the output folders"

START_S=$(date +%s)
elapsed() { echo $(( $(date +%s) - START_S )); }
progress() { printf '[%4ss] %s\n' "$(elapsed)" "$*" >&2; }
now_ms() { date +%s%3N; }
secs() { printf '%d.%d' $(( $1 / 1000 )) $(( $1 % 1000 / 100 )); } # ms -> "12.3"

# ---- tools ----------------------------------------------------------------------
find_tool() { # NAME CANDIDATE... : first executable, else empty
    local name=$1 c; shift
    if command -v "$name" >/dev/null 2>&1; then command -v "$name"; return; fi
    for c in "$@"; do [ -x "$c" ] && { echo "$c"; return; }; done
}
NVCC=${NVCC:-$(find_tool nvcc /usr/local/cuda/bin/nvcc)}
NCU=${NCU:-$(find_tool ncu /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu /usr/local/NVIDIA-Nsight-Compute*/ncu)}
CUOBJDUMP=${CUOBJDUMP:-$(find_tool cuobjdump /usr/local/cuda/bin/cuobjdump)}
CAPTURE=${CAPTURE:-build/capture/gpumemsim-capture}
SIM=build/gpumemsim
[ -n "$NVCC" ] || die "nvcc not found (set NVCC)"
[ -n "$NCU" ] || { DO_NCU=0 DO_SOURCE=0; progress "WARNING: ncu not found (set NCU): no ncu steps"; }
PATH="$(dirname "$NVCC"):$PATH"
export PATH

# step OUT ERR LIMIT CMD... : run CMD with stdin closed, stdout to OUT and stderr
# to ERR (the same file is fine), killed after LIMIT seconds. Sets STEP_RC, STEP_MS.
step() {
    local out=$1 err=$2 lim=$3 t0; shift 3
    t0=$(now_ms)
    if [ "$out" = "$err" ]; then
        timeout --kill-after=10 "$lim" "$@" </dev/null >"$out" 2>&1
    else
        timeout --kill-after=10 "$lim" "$@" </dev/null >"$out" 2>"$err"
    fi
    STEP_RC=$?
    STEP_MS=$(( $(now_ms) - t0 ))
}
rc_text() { # exit status -> short reason
    case $1 in 0) echo ok ;; 124|137) echo "timeout" ;; *) echo "rc $1" ;; esac
}

# ---- build --------------------------------------------------------------------------
MANIFEST_NOTES=()
note() { MANIFEST_NOTES+=("$*"); progress "note: $*"; }

if [ $DO_BUILD -eq 1 ]; then
    progress "building the kernels: make -C kernels"
    step "$LOGS/build-kernels.log" "$LOGS/build-kernels.log" "$T_BUILD" \
        make -k -j"$(nproc)" -C kernels NVCC="$NVCC"
    progress "  kernels: $(rc_text $STEP_RC) in $(secs $STEP_MS)s (log $LOGS/build-kernels.log)"
    [ $STEP_RC -eq 0 ] || note "kernel build failed ($(rc_text $STEP_RC)); programs that did not build fail below"
    if [ $DO_CAPTURE -eq 1 ]; then
        progress "building the capture tool: make capture"
        step "$LOGS/build-capture.log" "$LOGS/build-capture.log" "$T_BUILD" make -j"$(nproc)" capture
        progress "  capture tool: $(rc_text $STEP_RC) in $(secs $STEP_MS)s (log $LOGS/build-capture.log)"
        [ $STEP_RC -eq 0 ] || note "capture tool build failed ($(rc_text $STEP_RC))"
    fi
    if [ -f Makefile ] && [ ! -x "$SIM" ]; then # for record counts only; optional
        step "$LOGS/build-sim.log" "$LOGS/build-sim.log" "$T_BUILD" make -j"$(nproc)" "$SIM"
    fi
fi
[ $DO_CAPTURE -eq 0 ] || [ -x "$CAPTURE" ] || note "no capture tool at $CAPTURE: captures fail"

# ---- metric lists -------------------------------------------------------------------
list_of() { sed -e 's/#.*//' -e 's/[[:space:]]//g' -e '/^$/d' "$1"; }
mapfile -t METRICS < <(list_of kernels/metrics.txt)
mapfile -t SRC_METRICS < <(list_of kernels/source-metrics.txt)
METRICS_DROPPED=()
SRC_MODE=metrics # becomes "section" if ncu refuses the source metrics by name
# SOURCE_SELECT="--set full" (for example) skips the metrics attempt and uses these ncu
# options for the source view instead of --section SourceCounters
if [ -n "${SOURCE_SELECT:-}" ]; then SRC_MODE=section; fi
SRC_HEADER=""
NCU_WARNED=0
join_by_comma() { local IFS=,; echo "$*"; }

# ncu printed an error naming some of our metrics: drop those (at most 5, else
# the error is about something else) and say so. Returns 0 when it dropped any.
drop_refused_metrics() {
    local log=$1 m errs keep=() bad=()
    errs=$(grep '==ERROR==' "$log") || return 1
    for m in "${METRICS[@]}"; do
        if [[ $errs == *"${m%.*}"* ]]; then bad+=("$m"); else keep+=("$m"); fi
    done
    [ ${#bad[@]} -ge 1 ] && [ ${#bad[@]} -le 5 ] || return 1
    METRICS=("${keep[@]}")
    METRICS_DROPPED+=("${bad[@]}")
    note "ncu refused metric(s) ${bad[*]}: dropped from every CSV (see $log)"
    return 0
}

# ---- SASS checks: the compiler did what the experiment needs ----------------------
declare -A SASS_CHECK
sass_check() { # PROG -> sets SASS_CHECK[PROG] to "ok" or "WARN: ..."
    local prog=$1 f="$LOGS/sass/$1.sass" warn=()
    [ -n "${SASS_CHECK[$prog]+x}" ] && return
    if [ -z "$CUOBJDUMP" ] || [ ! -x "$KBIN/$prog" ]; then SASS_CHECK[$prog]="-"; return; fi
    # a wrapper (torchop: python3 and PyTorch's prebuilt kernels) has no SASS of its own
    [ "$(head -c 4 "$KBIN/$prog")" = $'\x7fELF' ] || { SASS_CHECK[$prog]="-"; return; }
    timeout 60 "$CUOBJDUMP" -sass "$KBIN/$prog" >"$f" 2>&1 || { SASS_CHECK[$prog]="WARN: cuobjdump failed"; return; }
    case $prog in
    localMemory) grep -q 'STL' "$f" && grep -q 'LDL' "$f" || warn+=("no STL/LDL") ;;
    readSegment_cg) grep -q 'LDG\.E\.STRONG\.GPU' "$f" || warn+=("no LDG.E.STRONG.GPU (-dlcm=cg)") ;;
    readSegment) grep -q 'LDG\.E\.STRONG' "$f" && warn+=("LDG.E.STRONG in the L1-cached build") ;;
    readOnly) grep -q 'LDG\.E\.CONSTANT' "$f" || warn+=("no LDG.E.CONSTANT (read-only path)") ;;
    atomics) grep -Eq 'RED\.|ATOMG' "$f" || warn+=("no RED/ATOMG")
        grep -Eq 'REDUX|VOTE' "$f" && warn+=("REDUX/VOTE: the compiler aggregated the atomics") ;;
    bankConflict) grep -Eq 'LDS\.(64|128)' "$f" && warn+=("vector LDS: not the seed's 4-byte reads") ;;
    esac
    if [ ${#warn[@]} -eq 0 ]; then SASS_CHECK[$prog]=ok; else SASS_CHECK[$prog]="WARN: ${warn[*]}"; fi
}

# Number of memory records in a trace, when the simulator can say it cheaply.
trace_records() {
    local n
    [ -x "$SIM" ] || { echo "-"; return; }
    n=$(timeout 60 "$SIM" trace info "$1" 2>/dev/null |
        grep -iE 'mem[a-z_ ]*records|records' | head -1 | grep -oE '[0-9]+' | head -1)
    echo "${n:--}"
}

# The program itself printed its PASSED line into this log.
passed() { grep -q ': PASSED$' "$1"; }

# ---- experiments ---------------------------------------------------------------------
declare -a NAMES PROGS ARGSS
while read -r name prog args; do
    case $name in ''|'#'*) continue ;; esac
    [ -z "$ONLY" ] || [[ $name =~ $ONLY ]] || continue
    NAMES+=("$name"); PROGS+=("$prog"); ARGSS+=("$args")
done < "$EXPS"
N=${#NAMES[@]}
[ "$N" -gt 0 ] || die "no experiment matches '${ONLY}'"
progress "$N experiments; budget ${BUDGET}s (0 = none); outputs in $DEST/"

declare -a R_CAPTURE R_NCU R_SOURCE R_SECS R_RECORDS R_CMDS
STOP=0
LOOP_START=$(date +%s)
trap 'STOP=1; progress "interrupted: finishing up"' INT TERM

for ((e = 0; e < N; e++)); do
    name=${NAMES[e]} prog=${PROGS[e]} args=${ARGSS[e]}
    R_CAPTURE[e]="-" R_NCU[e]="-" R_SOURCE[e]="-" R_SECS[e]=0 R_RECORDS[e]="-" R_CMDS[e]=""
    if [ $STOP -eq 1 ]; then R_CAPTURE[e]="skipped"; continue; fi
    if [ "$BUDGET" -gt 0 ] && [ $e -gt 0 ]; then
        # the next experiment should take about the average of those so far
        avg=$(( ($(date +%s) - LOOP_START + e - 1) / e ))
        if [ $(( $(elapsed) + avg )) -gt "$BUDGET" ]; then
            progress "budget: ${BUDGET}s would be passed; skipping $name and the rest"
            for ((s = e; s < N; s++)); do
                R_CAPTURE[s]="skipped" R_NCU[s]="-" R_SOURCE[s]="-" R_SECS[s]=0 R_RECORDS[s]="-" R_CMDS[s]=""
            done
            note "time budget ${BUDGET}s reached: $((N - e)) experiment(s) skipped (rerun with --only)"
            break
        fi
    fi
    read -r -a argv <<<"$args"
    cmd=("$KBIN/$prog" "${argv[@]}")
    progress "[$((e + 1))/$N] $name: ${cmd[*]}"
    rm -f "$DEST/$name.trace" "$DEST/$name.ncu.csv" "$DEST/$name.source.csv"
    t_exp=$(now_ms)
    sass_check "$prog"

    # 1. trace
    if [ $DO_CAPTURE -eq 1 ]; then
        log=$LOGS/$name.capture.log
        # shellcheck disable=SC2206 # CAPTURE_OPTS is a list of options
        c=("$CAPTURE" ${CAPTURE_OPTS:-} -o "$DEST/$name.trace" -- "${cmd[@]}")
        R_CMDS[e]+="capture: ${c[*]}"$'\n'
        step "$log" "$log" "$T_CAPTURE" "${c[@]}"
        if [ $STEP_RC -eq 0 ] && [ -s "$DEST/$name.trace" ]; then
            R_CAPTURE[e]=ok
            R_RECORDS[e]=$(trace_records "$DEST/$name.trace")
            passed "$log" || R_CAPTURE[e]="ok?" # the tool may hide the program's stderr
        else
            R_CAPTURE[e]="FAIL($(rc_text $STEP_RC))"
            [ -e "$DEST/$name.trace" ] && mv -f "$DEST/$name.trace" "$FAILED/"
        fi
        progress "    capture  $(secs $STEP_MS)s ${R_CAPTURE[e]}"
    fi

    # 2. ncu metrics
    if [ $DO_NCU -eq 1 ]; then
        log=$LOGS/$name.ncu.log
        for attempt in 1 2; do
            c=("$NCU" --csv --clock-control none --metrics "$(join_by_comma "${METRICS[@]}")" "${cmd[@]}")
            step "$DEST/$name.ncu.csv" "$log" "$T_NCU" "${c[@]}"
            if [ $STEP_RC -ne 0 ] && [ $attempt -eq 1 ] && drop_refused_metrics "$log"; then continue; fi
            break
        done
        R_CMDS[e]+="ncu: $NCU --csv --clock-control none --metrics <METRICS> ${cmd[*]} > $DEST/$name.ncu.csv 2> $log"$'\n'
        if [ $STEP_RC -ne 0 ]; then
            R_NCU[e]="FAIL($(rc_text $STEP_RC))"
        elif ! grep -q '"gpu__time_duration.sum"' "$DEST/$name.ncu.csv"; then
            R_NCU[e]="FAIL(no rows)"
        elif ! passed "$log"; then
            R_NCU[e]="FAIL(program)"
        else
            R_NCU[e]=ok
        fi
        [ "${R_NCU[e]}" = ok ] || mv -f "$DEST/$name.ncu.csv" "$FAILED/" 2>/dev/null
        if [ "${R_NCU[e]}" = ok ] && [ $NCU_WARNED -eq 0 ] && grep -q '==WARNING==' "$log"; then
            NCU_WARNED=1 # once: the lead checks whether a warning concerns a metric
            note "ncu warned (first ncu run, $name): $(grep -m3 '==WARNING==' "$log" | tr '\n' ' ')"
        fi
        progress "    ncu      $(secs $STEP_MS)s ${R_NCU[e]}"
    fi

    # 3. ncu source view
    if [ $DO_SOURCE -eq 1 ]; then
        log=$LOGS/$name.source.log
        rep=$REPS/$name
        for attempt in 1 2; do
            rm -f "$rep.ncu-rep"
            x=()
            if [ "$SRC_MODE" = metrics ]; then
                # the section provides the source-view collection; the names add columns to it
                sel=(--section SourceCounters --metrics "$(join_by_comma "${SRC_METRICS[@]}")")
            else
                # shellcheck disable=SC2206 # SOURCE_SELECT is a list of options
                sel=(${SOURCE_SELECT:---section SourceCounters})
            fi
            c=("$NCU" --clock-control none --import-source yes "${sel[@]}" -f -o "$rep" "${cmd[@]}")
            step "$log" "$log" "$T_SOURCE" "${c[@]}"
            t_src=$STEP_MS rc_src=$STEP_RC
            if [ $rc_src -eq 0 ] && [ -s "$rep.ncu-rep" ]; then
                x=("$NCU" -i "$rep.ncu-rep" --page source --csv --print-source sass)
                step "$DEST/$name.source.csv" "$log.export" "$T_EXPORT" "${x[@]}"
                t_src=$(( t_src + STEP_MS ))
                hdr=$(grep -m1 '^"Address"' "$DEST/$name.source.csv") # the column header, after the "Kernel Name" line
                cols=$(printf '%s\n' "$hdr" | awk -F'","' '{print NF}')
                if [ $STEP_RC -eq 0 ] && [ "${cols:-0}" -ge 5 ]; then
                    R_SOURCE[e]=ok
                    [ -n "$SRC_HEADER" ] || SRC_HEADER=$hdr
                else
                    R_SOURCE[e]="FAIL(export $(rc_text $STEP_RC), ${cols:-0} columns)"
                fi
            else
                R_SOURCE[e]="FAIL($(rc_text $rc_src))"
            fi
            if [ "${R_SOURCE[e]}" != ok ] && [ "$SRC_MODE" = metrics ] && [ $attempt -eq 1 ]; then
                SRC_MODE=section
                note "source view: ncu --metrics <source-metrics.txt> gave ${R_SOURCE[e]}; using --section SourceCounters from $name on (see $log)"
                mv -f "$log" "$log.metrics-attempt"
                continue
            fi
            break
        done
        R_CMDS[e]+="source: ${c[*]} > $log"$'\n'"source: ${x[*]:-(no report)} > $DEST/$name.source.csv"$'\n'
        [ "${R_SOURCE[e]}" = ok ] || mv -f "$DEST/$name.source.csv" "$FAILED/" 2>/dev/null
        progress "    source   $(secs $t_src)s ${R_SOURCE[e]}"
    fi
    R_SECS[e]=$(( $(now_ms) - t_exp ))
done
trap - INT TERM

# ---- summary ---------------------------------------------------------------------------
SUMMARY=$LOGS/summary.txt
{
    printf '%-26s %9s %9s %-10s %-10s %-10s %6s\n' experiment trace_KiB records capture ncu source secs
    total=0 fails=0
    for ((e = 0; e < N; e++)); do
        f=$DEST/${NAMES[e]}.trace kib="-"
        if [[ ${R_CAPTURE[e]} == ok* ]] && [ -f "$f" ]; then # made by this run
            b=$(stat -c %s "$f"); total=$(( total + b )); kib=$(( (b + 1023) / 1024 ))
        fi
        printf '%-26s %9s %9s %-10s %-10s %-10s %6s\n' "${NAMES[e]}" "$kib" "${R_RECORDS[e]}" \
            "${R_CAPTURE[e]}" "${R_NCU[e]}" "${R_SOURCE[e]}" "$(secs "${R_SECS[e]}")"
        case "${R_CAPTURE[e]} ${R_NCU[e]} ${R_SOURCE[e]}" in *FAIL*|*skipped*) fails=$((fails + 1)) ;; esac
    done
    all=$(du -sk "$DEST" | cut -f1)
    # the suite's share of the repository's 40 MiB (README: the whole tree travels to the GPU machine)
    printf 'traces: %d KiB in this run; %s: %d KiB in all (limit 24 MiB = 24576 KiB)%s\n' \
        $(( (total + 1023) / 1024 )) "$DEST" "$all" "$( [ "$all" -gt 24576 ] && echo '  OVER THE LIMIT')"
    printf '%d of %d experiments with a failure or skipped; total %ss\n' "$fails" "$N" "$(elapsed)"
    echo "$fails" >"$WORK/fails"
    for p in "${!SASS_CHECK[@]}"; do
        [ "${SASS_CHECK[$p]}" = ok ] || [ "${SASS_CHECK[$p]}" = - ] || printf 'sass check %s: %s\n' "$p" "${SASS_CHECK[$p]}"
    done
    for n in "${MANIFEST_NOTES[@]}"; do printf 'note: %s\n' "$n"; done
} >"$SUMMARY"

# ---- MANIFEST --------------------------------------------------------------------------
manifest_body() {
    echo "# $DEST/MANIFEST - written by kernels/capture-all.sh$([ -n "$ONLY" ] && echo " (partial run: --only '$ONLY')")"
    echo "date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "host: $(hostname)"
    if command -v nvidia-smi >/dev/null 2>&1; then
        echo "gpu: $(nvidia-smi --query-gpu=name,pci.bus_id,memory.total,ecc.mode.current,clocks.max.sm,clocks.max.mem --format=csv,noheader 2>&1 | head -1)"
        # which chip: the machines lent are not one, and their GPCs sit in different L2
        # partitions (docs/findings.md §2f)
        echo "gpu_uuid: $(nvidia-smi --query-gpu=uuid,serial --format=csv,noheader 2>&1 | head -1)"
        echo "driver: $(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>&1 | head -1)"
    else
        echo "gpu: (nvidia-smi not found)"
    fi
    echo "cuda_nvcc: $("$NVCC" --version 2>&1 | grep -E 'release' | head -1)"
    echo "ncu: ${NCU:-none} $([ -n "$NCU" ] && "$NCU" --version 2>&1 | grep -i version | head -1)"
    echo "capture_tool: $CAPTURE"
    echo "repository: $(git rev-parse HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD -- kernels 2>/dev/null || echo ' (kernels/ modified)')"
    echo "ncu_options: --clock-control none (clocks not locked); cache control and replay mode are ncu's defaults (--cache-control all, --replay-mode kernel)"
    echo "metrics: ${#METRICS[@]} from kernels/metrics.txt (<METRICS> below): $(join_by_comma "${METRICS[@]}")"
    [ ${#METRICS_DROPPED[@]} -eq 0 ] || echo "metrics_dropped: ${METRICS_DROPPED[*]} (ncu refused them)"
    if [ -n "${SOURCE_SELECT:-}" ]; then
        echo "source_view: $SOURCE_SELECT (SOURCE_SELECT)"
    elif [ "$SRC_MODE" = metrics ]; then
        echo "source_view: --metrics $(join_by_comma "${SRC_METRICS[@]}")"
    else
        echo "source_view: --section SourceCounters (ncu refused --metrics with kernels/source-metrics.txt)"
    fi
    [ -z "$SRC_HEADER" ] || echo "source_csv_columns: $SRC_HEADER"
    echo "build_flags:"
    make -s -C kernels flags NVCC="$NVCC" 2>&1 | sed 's/^/  /'
    echo "experiments: (capture / ncu / source status, seconds, then the commands)"
    for ((e = 0; e < N; e++)); do
        echo "- ${NAMES[e]}: ${PROGS[e]} ${ARGSS[e]} | capture ${R_CAPTURE[e]} | ncu ${R_NCU[e]} | source ${R_SOURCE[e]} | $(secs "${R_SECS[e]}")s"
        printf '%s' "${R_CMDS[e]}" | sed 's/^/    /'
    done
    echo "summary:"
    sed 's/^/  /' "$SUMMARY"
}
if [ -n "$ONLY" ] && [ -f "$DEST/MANIFEST" ]; then
    { echo; manifest_body; } >>"$DEST/MANIFEST"
else
    manifest_body >"$DEST/MANIFEST"
fi

cat "$SUMMARY"
fails=$(cat "$WORK/fails")

# ---- archive ----------------------------------------------------------------------------
if [ -n "${OUT:-}" ]; then
    # at most 16 MiB per file comes back from the GPU machine: split the archive
    # (rejoin with: cat capture-all.tgz.part-* > capture-all.tgz)
    rm -f "$OUT"/capture-all.tgz.part-*
    if tar -czf "$WORK/capture-all.tgz" "$DEST" "$LOGS" 2>"$WORK/tar.err" &&
        split -b 15M "$WORK/capture-all.tgz" "$OUT/capture-all.tgz.part-"; then
        cp -f "$SUMMARY" "$OUT/summary.txt"
        progress "archive: $OUT/capture-all.tgz.part-* ($(du -k "$WORK/capture-all.tgz" | cut -f1) KiB in $(ls "$OUT"/capture-all.tgz.part-* | wc -l) parts)"
    else
        progress "archive FAILED: $(head -3 "$WORK/tar.err")"
    fi
else
    progress "OUT not set: no archive; results in $DEST/, logs in $LOGS/"
fi
[ "$fails" -eq 0 ]
