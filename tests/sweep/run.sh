#!/bin/sh
# tests/sweep/run.sh BIN - bench/sweep.sh on a small sweep (3 traces of the
# committed suite x 2 configs): the merged CSV equals the six runs made one
# by one, in job order, whatever -j; one job alone (--only) gives its rows; a
# failing job fails the sweep with its message and leaves no CSV; bad usage
# exits 2. Run by the sweep suite of the unit tests (tests/test_sweep.c).
set -eu
BIN=${1:?usage: tests/sweep/run.sh BIN}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gms-sweep-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
fail() { echo "sweep test: $*" >&2; exit 1; }

configs="configs/h200.ini configs/a100.ini"
traces="traces/h200/readSegment_off11.trace traces/h200/atomic_same.trace traces/h200/bank_stride4.trace"

# what the sweep must produce: each run on its own, prefixed, in job order
echo config,trace,kernel,launch,metric,value > "$tmp/want.csv"
for c in $configs; do
    for t in $traces; do
        "$BIN" run --config "$c" --format csv "$t" | grep -v '^#' | tail -n +2 | sed "s|^|$c,$t,|" >> "$tmp/want.csv"
    done
done
[ "$(wc -l < "$tmp/want.csv")" -gt 400 ] || fail "too few rows in the expected CSV"

bench/sweep.sh -j 3 -b "$BIN" -o "$tmp/j3.csv" -c configs/h200.ini -c configs/a100.ini $traces \
    || fail "sweep -j 3 failed"
cmp -s "$tmp/want.csv" "$tmp/j3.csv" || { diff "$tmp/want.csv" "$tmp/j3.csv" | head >&2; fail "-j 3: the merged CSV differs from the single runs"; }
bench/sweep.sh -j 1 -b "$BIN" -c configs/h200.ini -c configs/a100.ini $traces > "$tmp/j1.csv" \
    || fail "sweep -j 1 failed"
cmp -s "$tmp/j3.csv" "$tmp/j1.csv" || fail "-j 1 and -j 3 give different bytes"

# one job of an array: job 4 is the second config on the second trace
n=$(bench/sweep.sh --jobs-count -c configs/h200.ini -c configs/a100.ini $traces)
[ "$n" = 6 ] || fail "--jobs-count: $n, expected 6"
bench/sweep.sh --only 4 -b "$BIN" -o "$tmp/part4.csv" -c configs/h200.ini -c configs/a100.ini $traces
grep '^configs/a100.ini,traces/h200/atomic_same.trace,' "$tmp/want.csv" > "$tmp/want4.csv"
cmp -s "$tmp/want4.csv" "$tmp/part4.csv" || fail "--only 4 differs from a100 x atomic_same"

# a job that fails: a truncated trace
head -c 1000 traces/h200/bank_stride4.trace > "$tmp/cut.trace"
if bench/sweep.sh -j 2 -b "$BIN" -o "$tmp/bad.csv" -c configs/h200.ini \
    traces/h200/atomic_same.trace "$tmp/cut.trace" 2> "$tmp/err"; then
    fail "a sweep with a truncated trace succeeded"
fi
grep -q "job 1 (config configs/h200.ini, trace $tmp/cut.trace) failed: gpumemsim: $tmp/cut.trace" "$tmp/err" \
    || { cat "$tmp/err" >&2; fail "the failing job's message is missing"; }
[ ! -e "$tmp/bad.csv" ] || fail "a failed sweep left a CSV"

# bad usage
if bench/sweep.sh -b "$BIN" traces/h200/atomic_same.trace 2> "$tmp/err"; then fail "no -c accepted"; fi
if bench/sweep.sh -b "$BIN" -c configs/nope.ini traces/h200/atomic_same.trace 2> "$tmp/err"; then
    fail "a missing config accepted"
fi
grep -q "configs/nope.ini: no such config" "$tmp/err" || fail "no message for a missing config"
exit 0
