#!/bin/sh
# bench/best.sh - the fastest of N runs (CPU seconds, user + sys) of
# `BIN run --config CONFIG [OPTION...] -o /dev/null TRACE`, pinned to one CPU:
# the wall-time measure of docs/performance.md's per-change table on a noisy
# shared machine. Options after the config go to `run` (e.g. --timing).
#   bench/best.sh N BIN TRACE [CONFIG [OPTION...]]
set -eu
n=$1 bin=$2 trace=$3 config=${4:-configs/h200.ini}
[ $# -ge 4 ] && shift 4 || shift $#
python3 - "$n" "$bin" "$trace" "$config" "$@" <<'PY'
import os, sys
n, binary, trace, config = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
extra = sys.argv[5:]
best = None
for _ in range(n):
    argv = ["taskset", "-c", "0", binary, "run", "--config", config] + extra + ["-o", "/dev/null", trace]
    pid = os.spawnvp(os.P_NOWAIT, argv[0], argv)
    _, status, ru = os.wait4(pid, 0)
    if status != 0:
        sys.exit("run failed")
    t = ru.ru_utime + ru.ru_stime
    best = t if best is None or t < best else best
print("%.3f" % best)
PY
