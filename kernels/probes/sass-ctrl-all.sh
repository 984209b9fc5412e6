#!/usr/bin/env bash
# sass-ctrl-all.sh - the SASS control words (stall, scoreboards set and waited
# for) of every kernel of every program of kernels/, for the timing layer's
# scoreboards (docs/findings.md §12, end). On the GPU machine, after
# make -C kernels: kernels/probes/sass-ctrl-all.sh DEST
# DEST/PROGRAM.ctrl.txt per program (kernels/probes/sass-ctrl.py's table, a
# block per kernel).
set -u -o pipefail
DEST=${1:?usage: sass-ctrl-all.sh DEST}
mkdir -p "$DEST"
for bin in build/kernels/*; do
    if [ ! -f "$bin" ] || [ ! -x "$bin" ]; then continue; fi
    name=$(basename "$bin")
    cuobjdump -sass "$bin" >"$DEST/$name.sass" 2>/dev/null || { echo "$name: no SASS" >&2; continue; }
    python3 kernels/probes/sass-ctrl.py "$DEST/$name.sass" >"$DEST/$name.ctrl.txt"
    rm "$DEST/$name.sass"
    echo "$name: $(grep -c '^# Function' "$DEST/$name.ctrl.txt") kernels" >&2
done
