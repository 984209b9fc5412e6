#!/bin/sh
# bench/alternate.sh - two binaries timed in turn: N rounds, each running
# `BIN run --config CONFIG [OPTION...] -o /dev/null TRACE` once per binary,
# pinned to one CPU; prints per binary the fastest, lower-quartile and median
# CPU seconds (user + sys). Alternating puts both through the same moments of
# a shared machine, whose speed can drift by tens of percent within minutes
# (docs/performance.md, "Seventeenth session"); bench/best.sh times one binary.
#   bench/alternate.sh N TRACE BIN_A BIN_B [CONFIG [OPTION...]]
set -eu
[ $# -ge 4 ] || { echo "usage: bench/alternate.sh N TRACE BIN_A BIN_B [CONFIG [OPTION...]]" >&2; exit 2; }
n=$1 trace=$2 a=$3 b=$4 config=${5:-configs/h200.ini}
[ $# -ge 5 ] && shift 5 || shift $#
python3 - "$n" "$trace" "$a" "$b" "$config" "$@" <<'PY'
import os, sys
n, trace, a, b, config = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]
extra = sys.argv[6:]
times = {a: [], b: []}
for _ in range(n):
    for binary in (a, b):
        argv = ["taskset", "-c", "0", binary, "run", "--config", config] + extra + ["-o", "/dev/null", trace]
        pid = os.spawnvp(os.P_NOWAIT, argv[0], argv)
        _, status, ru = os.wait4(pid, 0)
        if status != 0:
            sys.exit("bench/alternate.sh: %s failed" % binary)
        times[binary].append(ru.ru_utime + ru.ru_stime)
for binary in (a, b):
    v = sorted(times[binary])
    print("%s fastest %.3f q1 %.3f median %.3f" % (binary, v[0], v[len(v) // 4], v[len(v) // 2]))
PY
