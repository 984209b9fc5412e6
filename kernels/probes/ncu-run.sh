# ncu-run.sh - sourced by the probe scripts of kernels/probes/ (not run
# alone): one way to run a probe program under ncu.
#   NCU                   ncu (from the environment, PATH, or the CUDA install)
#   probe_metrics FILE    the metric names of a list file (kernels/probes/*.txt), comma-separated
#   probe_run DEST NAME METRICS PROGRAM ARGS...
#                         `ncu --csv --clock-control none --metrics METRICS PROGRAM ARGS`
#                         into DEST/NAME.csv (ncu's stdout) and DEST/NAME.log (stderr), with
#                         progress on stderr; a failure is reported and the caller goes on;
#                         PROBE_NCU_ARGS: more ncu options (split on spaces), e.g.
#                         "--cache-control none --launch-skip 1 --launch-count 1"
#   probe_runs DEST NAME METRICS PROGRAM ARGS...
#                         probe_run RUNS times (default 2), as NAME-r1, NAME-r2, ...; an
#                         argument @STAMPS becomes DEST/NAME-rR.txt (transtimed's OUTFILE)
# shellcheck shell=bash
NCU=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}

probe_metrics() {
    sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$1" | paste -sd, -
}

probe_run() {
    local dest=$1 name=$2 metrics=$3
    shift 3
    echo "[$(date +%T)] $name: $*" >&2
    # shellcheck disable=SC2086 # PROBE_NCU_ARGS splits on purpose
    timeout --kill-after=10 240 "$NCU" --csv --clock-control none ${PROBE_NCU_ARGS:-} --metrics "$metrics" "$@" \
        >"$dest/$name.csv" 2>"$dest/$name.log" || echo "$name: failed (rc $?)" >&2
}

probe_runs() {
    local dest=$1 name=$2 metrics=$3 r a
    shift 3
    for r in $(seq "${RUNS:-2}"); do
        local args=()
        for a in "$@"; do
            if [ "$a" = @STAMPS ]; then args+=("$dest/$name-r$r.txt"); else args+=("$a"); fi
        done
        probe_run "$dest" "$name-r$r" "$metrics" "${args[@]}"
    done
}
