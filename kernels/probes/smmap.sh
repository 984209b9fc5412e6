#!/usr/bin/env bash
# smmap.sh - which SM runs which CTA, in a plain run and under the tracer
# (docs/findings.md §2d). On the GPU machine, from the repository root:
#   kernels/probes/smmap.sh DEST
# builds build/kernels/smmap and the capture tool, then writes DEST/NAME.plain.log
# (3 plain launches of the launch geometry of suite capture NAME) and
# DEST/NAME.traced.{log,trace} (1 launch under gpumemsim-capture: the kernel's
# own %smid record, and the SMs the trace recorded).
set -u -o pipefail
DEST=${1:?usage: smmap.sh DEST}
mkdir -p "$DEST"
make -C kernels "$PWD/build/kernels/smmap" >"$DEST/build.log" 2>&1 || { tail "$DEST/build.log"; exit 1; }
make -j"$(nproc)" capture >>"$DEST/build.log" 2>&1 || echo "smmap.sh: capture tool build failed" >&2
# name  GX GY BX BY  (the suite captures' launches; traces/h200/NAME.trace's kernel line)
while read -r name gx gy bx by; do
    timeout 60 build/kernels/smmap "$gx" "$gy" "$bx" "$by" 0 20000 3 2>"$DEST/$name.plain.log" || echo "$name: plain failed" >&2
    timeout 120 build/capture/gpumemsim-capture -o "$DEST/$name.traced.trace" -- \
        build/kernels/smmap "$gx" "$gy" "$bx" "$by" 0 20000 1 2>"$DEST/$name.traced.log" || echo "$name: traced failed" >&2
done <<'LIST'
spmv_scalar 128 1 64 1
matrixMul 16 16 16 16
wmma_gemm 16 16 128 1
filter21 1024 1 256 1
stencil2d 32 32 32 8
LIST
ls -la "$DEST" | tail -n +2 | wc -l
