#!/bin/sh
# h100-suite.sh BIN [--timing] - replay the H200's captures (traces/h200)
# against the counters of the same programs on an H100 (traces/h100-ncu) with
# configs/h100.ini: links each trace beside its CSV in build/h100-suite, then
# writes `gpumemsim validate --failures-only` to build/validate-h100.txt, or
# with --timing `gpumemsim validate --timing` (every row) to
# build/timing-h100.txt. Exit: validate's (0 all within tolerance, 1 some
# missed, 2 bad input). Used by tests/validate-suite.sh and
# tests/timing-suite.sh (which hold the misses against
# tests/validate-known-h100.txt and tests/timing-known-h100.txt) and by
# tests/write-validation-doc.sh.
set -eu
BIN=${1:?usage: h100-suite.sh BIN [--timing]}
rm -rf build/h100-suite
mkdir -p build/h100-suite
for c in traces/h100-ncu/*.ncu.csv; do
    n=$(basename "$c" .ncu.csv)
    ln -s "$PWD/traces/h200/$n.trace" "build/h100-suite/$n.trace"
    ln -s "$PWD/$c" "build/h100-suite/$n.ncu.csv"
done
if [ "${2:-}" = "--timing" ]; then
    exec "$BIN" validate --config configs/h100.ini --timing build/h100-suite > build/timing-h100.txt
fi
exec "$BIN" validate --config configs/h100.ini build/h100-suite --failures-only > build/validate-h100.txt
