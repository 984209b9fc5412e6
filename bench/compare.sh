#!/bin/sh
# bench/compare.sh - the speed work's safety net (docs/performance.md): every
# count must stay identical. Runs `run --format csv` of the committed suite
# traces (traces/h200/*.trace) and of synthetic traces of every pattern on the
# h200, a100, k20c and rtx5090 configs with BIN, and compares the bytes with
# the output of a reference binary REF (a build of the commit before the
# changes). The reference's outputs are cached in $CMP_DIR/ref-<cksum of REF>/.
#
#   bench/compare.sh REF [BIN]       (BIN defaults to build/gpumemsim)
#
# Environment: CMP_DIR (default build/cmp), CMP_SIZE instructions per
# synthetic trace (default 300000), CMP_JOBS parallel runs (default 2).
# Exit 0 when every output is identical, 1 otherwise (the differing ones named).
set -eu
if [ "${1:-}" = --one ]; then # internal: one run, "BIN CONFIG TRACE OUT"
    "$2" run --config "$3" --format csv -o "$5" "$4" 2>"$5.err" || echo "exit $?" >> "$5.err"
    exit 0
fi
REF=${1:?usage: bench/compare.sh REF [BIN]}
BIN=${2:-build/gpumemsim}
DIR=${CMP_DIR:-build/cmp}
SIZE=${CMP_SIZE:-300000}
JOBS=${CMP_JOBS:-2}
CONFIGS="configs/h200.ini configs/a100.ini configs/k20c.ini configs/rtx5090.ini"
PATTERNS="coalesced misaligned strided random shared mix"

mkdir -p "$DIR/traces"
for p in $PATTERNS; do
    t="$DIR/traces/$p.trace"
    [ -f "$t" ] || "$REF" trace synth --pattern "$p" --instructions "$SIZE" -o "$t" --seed 7
done
refdir="$DIR/ref-$(cksum < "$REF" | cut -d' ' -f1)"
newdir="$DIR/new"
rm -rf "$newdir"
mkdir -p "$refdir" "$newdir"

list=$(mktemp "${TMPDIR:-/tmp}/gms-cmp.XXXXXX")
trap 'rm -f "$list"' EXIT INT TERM
for c in $CONFIGS; do
    for t in traces/h200/*.trace "$DIR"/traces/*.trace; do
        name="$(basename "$c" .ini)__$(basename "$t" .trace).csv"
        [ -f "$refdir/$name" ] || echo "$REF $c $t $refdir/$name"
        echo "$BIN $c $t $newdir/$name"
    done
done > "$list"
xargs -P "$JOBS" -L 1 "$0" --one < "$list"

bad=0
n=0
for f in "$refdir"/*.csv; do
    name=$(basename "$f")
    n=$((n + 1))
    if ! cmp -s "$f" "$newdir/$name" || ! cmp -s "$f.err" "$newdir/$name.err"; then
        echo "compare: DIFFERENT: $name" >&2
        bad=$((bad + 1))
    fi
done
[ "$n" -gt 0 ] || { echo "compare: no outputs" >&2; exit 2; }
if [ "$bad" -ne 0 ]; then
    echo "compare: $bad of $n outputs differ" >&2
    exit 1
fi
echo "compare: all $n outputs identical (reference $REF)"
