#!/bin/sh
# bench/compare-timing.sh - the timing layer's speed work's safety net
# (docs/timing.md, "Speed"): every prediction must stay identical. Compares,
# byte for byte, the output (and stderr, and exit status) of BIN with that of
# a reference binary REF (a build of the commit before the changes) for
#   - `run --timing --format csv` of synthetic traces of all six patterns
#     (CMP_SIZE instructions, seed 7) on configs/h200.ini (the config with a
#     [timing] section), and
#   - `validate --config configs/h200.ini --timing traces/h200`.
# The reference's outputs are cached in $CMP_DIR/ref-<cksum of REF>/.
#
#   bench/compare-timing.sh REF [BIN]       (BIN defaults to build/gpumemsim)
#
# Environment: CMP_DIR (default build/cmp-timing), CMP_SIZE instructions per
# synthetic trace (default 300000), CMP_JOBS parallel runs (default 2).
# Exit 0 when every output is identical, 1 otherwise (the differing ones named).
set -eu
if [ "${1:-}" = --one ]; then # internal: one run, "BIN KIND INPUT OUT"
    case "$3" in
    run) "$2" run --timing --config configs/h200.ini --format csv -o "$5" "$4" 2>"$5.err" ||
             echo "exit $?" >> "$5.err" ;;
    validate) "$2" validate --config configs/h200.ini --timing "$4" >"$5" 2>"$5.err" ||
                  echo "exit $?" >> "$5.err" ;;
    esac
    exit 0
fi
REF=${1:?usage: bench/compare-timing.sh REF [BIN]}
BIN=${2:-build/gpumemsim}
DIR=${CMP_DIR:-build/cmp-timing}
SIZE=${CMP_SIZE:-300000}
JOBS=${CMP_JOBS:-2}
PATTERNS="coalesced misaligned strided random shared mix"

mkdir -p "$DIR/traces"
for p in $PATTERNS; do
    t="$DIR/traces/$p-$SIZE.trace"
    [ -f "$t" ] || "$REF" trace synth --pattern "$p" --instructions "$SIZE" -o "$t" --seed 7
done
refdir="$DIR/ref-$(cksum < "$REF" | cut -d' ' -f1)-$SIZE"
newdir="$DIR/new"
rm -rf "$newdir"
mkdir -p "$refdir" "$newdir"

list=$(mktemp "${TMPDIR:-/tmp}/gms-cmpt.XXXXXX")
trap 'rm -f "$list"' EXIT INT TERM
{
    for p in $PATTERNS; do
        t="$DIR/traces/$p-$SIZE.trace"
        [ -f "$refdir/$p.csv" ] || echo "$REF run $t $refdir/$p.csv"
        echo "$BIN run $t $newdir/$p.csv"
    done
    [ -f "$refdir/validate.txt" ] || echo "$REF validate traces/h200 $refdir/validate.txt"
    echo "$BIN validate traces/h200 $newdir/validate.txt"
} > "$list"
xargs -P "$JOBS" -L 1 "$0" --one < "$list"

bad=0
n=0
for f in "$refdir"/*.csv "$refdir/validate.txt"; do
    name=$(basename "$f")
    n=$((n + 1))
    if ! cmp -s "$f" "$newdir/$name" || ! cmp -s "$f.err" "$newdir/$name.err"; then
        echo "compare-timing: DIFFERENT: $name" >&2
        bad=$((bad + 1))
    fi
done
if [ "$bad" -ne 0 ]; then
    echo "compare-timing: $bad of $n outputs differ" >&2
    exit 1
fi
echo "compare-timing: all $n outputs identical (reference $REF)"
