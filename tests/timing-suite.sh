#!/bin/sh
# timing-suite.sh - the timing model against the H200 suite's measured cycles
# (part of `make check`, target check-timing).
#
#   tests/timing-suite.sh BIN
#
# Runs `gpumemsim validate --timing` on traces/h200 and compares only the
# timing model's metric, sm__cycles_elapsed.avg (tolerance 20%, sim/validate.c
# says why). Fails when a launch misses that is not in tests/timing-known.txt,
# and when a listed one starts to pass (then delete its line). Prints the
# validation's mean absolute percentage error line.
set -eu
BIN=${1:?usage: timing-suite.sh BIN}
SUITE=traces/h200
CONFIG=configs/h200.ini
KNOWN=tests/timing-known.txt
mkdir -p build
rc=0
"$BIN" validate --config "$CONFIG" --timing "$SUITE" > build/timing-suite.txt || rc=$?
if [ "$rc" -ne 0 ] && [ "$rc" -ne 1 ]; then
    echo "timing-suite: gpumemsim validate --timing failed (exit $rc)" >&2
    exit 1
fi
awk '/^== /{ n=split($2, p, "/"); c=p[n]; sub(/\.trace:$/, "", c) }
     $1 == "sm__cycles_elapsed.avg" && / FAIL$/ { print c }' build/timing-suite.txt | sort > build/timing-failed.txt
grep -v '^#' "$KNOWN" | grep -v '^$' | awk '{print $1}' | sort > build/timing-known.txt
new=$(comm -23 build/timing-failed.txt build/timing-known.txt)
fixed=$(comm -13 build/timing-failed.txt build/timing-known.txt)
status=0
if [ -n "$new" ]; then
    echo "timing-suite: cycles out of tolerance (not in $KNOWN):" >&2
    echo "$new" | sed 's/^/  /' >&2
    status=1
fi
if [ -n "$fixed" ]; then
    echo "timing-suite: cycles now within tolerance, remove from $KNOWN:" >&2
    echo "$fixed" | sed 's/^/  /' >&2
    status=1
fi
echo "timing-suite: $(grep 'mean absolute percentage error' build/timing-suite.txt) ($(wc -l < build/timing-failed.txt) known misses, listed in $KNOWN)"
exit $status
