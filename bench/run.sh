#!/bin/sh
# bench/run.sh - throughput benchmark of `gpumemsim run` on synthetic traces
# (docs/performance.md). A benchmark, not a test: it prints numbers and never
# fails on them.
#
#   bench/run.sh [BIN]            (make bench runs it with build/gpumemsim)
#
# For each size and pattern it writes a trace with `gpumemsim trace synth`
# (kept in $BENCH_DIR and reused while the binary is older than it), replays it
# with `run` on one core and prints one table row: simulated warp-level memory
# instructions per second of CPU time (user + sys), peak resident memory, and
# trace bytes per instruction; and the same rate of `run --timing`.
#
# Environment:
#   BENCH_SIZES     instruction counts (default "1000000 10000000")
#   BENCH_100M=1    add 100000000 (traces of up to 10 GB, made and removed per pattern)
#   BENCH_PATTERNS  default "coalesced misaligned strided random shared mix"
#   BENCH_CONFIG    default configs/h200.ini
#   BENCH_DIR       where traces are kept (default build/bench)
#   BENCH_REPEAT    runs per row of each of run and run --timing, the fastest is
#                   reported (default 1)
#   BENCH_CPU       CPU to pin to with taskset (default 0; empty: no pinning)
# Progress goes to stderr only when it is a terminal; the table to stdout.
set -eu

BIN=${1:-build/gpumemsim}
SIZES=${BENCH_SIZES:-"1000000 10000000"}
[ "${BENCH_100M:-0}" = 1 ] && SIZES="$SIZES 100000000"
PATTERNS=${BENCH_PATTERNS:-"coalesced misaligned strided random shared mix"}
CONFIG=${BENCH_CONFIG:-configs/h200.ini}
DIR=${BENCH_DIR:-build/bench}
REPEAT=${BENCH_REPEAT:-1}
CPU=${BENCH_CPU-0}

die() { echo "bench: $*" >&2; exit 2; }
[ -x "$BIN" ] || die "$BIN: not an executable (build it first: make)"
[ -f "$CONFIG" ] || die "$CONFIG: no such config"
command -v python3 >/dev/null 2>&1 || die "python3 is needed (it reads the run's rusage)"
PIN=
if [ -n "$CPU" ] && command -v taskset >/dev/null 2>&1; then PIN="taskset -c $CPU"; fi
mkdir -p "$DIR"

tty=false
[ -t 2 ] && tty=true
say() { if $tty; then printf '\r\033[K%s' "$*" >&2; fi; }

# the machine, for the record
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
rev=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
echo "# gpumemsim bench: $("$BIN" --version 2>/dev/null || echo "$BIN"), commit $rev$(git diff --quiet HEAD -- model sim 2>/dev/null || echo ' (modified)')"
echo "# cpu: ${cpu:-unknown}, $(getconf _NPROCESSORS_ONLN 2>/dev/null || echo '?') online; pinned: ${PIN:-no}"
echo "# config: $CONFIG; M/s = millions of warp-level memory instructions simulated per CPU second (user+sys)"
printf '%-10s %12s %10s %9s %9s %9s %10s\n' pattern instructions "run M/s" cpu_s rss_MiB "B/instr" "timing M/s"

tmp=$(mktemp "${TMPDIR:-/tmp}/gms-bench.XXXXXX")
trap 'rm -f "$tmp"' EXIT INT TERM

for n in $SIZES; do
    for p in $PATTERNS; do
        trace="$DIR/$p.$n.trace"
        if [ ! -f "$trace" ] || [ "$BIN" -nt "$trace" ]; then
            say "bench: writing $trace"
            "$BIN" trace synth --pattern "$p" --instructions "$n" -o "$trace"
        fi
        bytes=$(wc -c < "$trace")
        best=
        rss=
        i=0
        while [ "$i" -lt "$REPEAT" ]; do
            say "bench: run $p $n ($((i + 1)) of $REPEAT)"
            # wait4() gives the child's CPU time in microseconds and its peak RSS in KiB
            python3 -c 'import os, sys
pid = os.spawnvp(os.P_NOWAIT, sys.argv[1], sys.argv[1:])
_, status, ru = os.wait4(pid, 0)
if status != 0:
    sys.exit(1)
print("%.4f %d" % (ru.ru_utime + ru.ru_stime, ru.ru_maxrss))' $PIN "$BIN" run --config "$CONFIG" -o /dev/null "$trace" \
                > "$tmp" || die "run failed on $trace"
            set -- $(cat "$tmp")
            cpu_s=$1
            shift
            if [ -z "$best" ] || awk -v a="$cpu_s" -v b="$best" 'BEGIN { exit !(a < b) }'; then
                best=$cpu_s
            fi
            rss=$1
            i=$((i + 1))
        done
        # the timing column: the same replay with the timing model, the
        # fastest of as many runs
        timing_s=n/a
        i=0
        while [ "$i" -lt "$REPEAT" ]; do
            say "bench: run --timing $p $n ($((i + 1)) of $REPEAT)"
            if python3 -c 'import os, sys
pid = os.spawnvp(os.P_NOWAIT, sys.argv[1], sys.argv[1:])
_, status, ru = os.wait4(pid, 0)
if status != 0:
    sys.exit(1)
print("%.4f" % (ru.ru_utime + ru.ru_stime))' $PIN "$BIN" run --config "$CONFIG" --timing -o /dev/null "$trace" > "$tmp"; then
                t=$(cat "$tmp")
                if [ "$timing_s" = n/a ] || awk -v a="$t" -v b="$timing_s" 'BEGIN { exit !(a < b) }'; then
                    timing_s=$t
                fi
            fi
            i=$((i + 1))
        done
        say ""
        awk -v p="$p" -v n="$n" -v s="$best" -v k="$rss" -v b="$bytes" -v ts="$timing_s" 'BEGIN {
            rate = s > 0 ? n / s : 0
            trate = ts == "n/a" ? "n/a" : (ts > 0 ? sprintf("%.2f", n / ts / 1e6) : "inf")
            printf "%-10s %12d %10.2f %9.3f %9.1f %9.2f %10s\n", p, n, rate / 1e6, s, k / 1024, b / n, trate
        }'
        # the 100M traces are large (10 GB for random): not kept
        if [ "$n" -ge 100000000 ] && [ "${BENCH_KEEP:-0}" != 1 ]; then rm -f "$trace"; fi
    done
done
