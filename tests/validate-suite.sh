#!/bin/sh
# validate-suite.sh BIN [--write-docs]
# Validate the committed H200 suite (traces/h200: NAME.trace + NAME.ncu.csv)
# against configs/h200.ini. Fails (exit 1) when a metric misses its tolerance,
# so a model change that breaks agreement with hardware fails `make check`.
# With --write-docs, regenerate docs/validation.md from the same run.
set -eu
BIN=${1:?usage: validate-suite.sh BIN [--write-docs]}
SUITE=traces/h200
CONFIG=configs/h200.ini
if ! ls "$SUITE"/*.ncu.csv >/dev/null 2>&1; then
    echo "validate-suite: no captures in $SUITE yet; nothing to validate" >&2
    exit 0
fi
if [ "${2:-}" != "--write-docs" ]; then
    "$BIN" validate --config "$CONFIG" "$SUITE" --failures-only > build/validate-suite.txt || {
        rc=$?
        cat build/validate-suite.txt
        echo "validate-suite: FAILED (exit $rc); full table: $BIN validate --config $CONFIG $SUITE" >&2
        exit 1
    }
    tail -n 3 build/validate-suite.txt
    exit 0
fi
exec tests/write-validation-doc.sh "$BIN"
