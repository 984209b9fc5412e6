#!/bin/bash
# capture/selftest/run.sh - on a machine with an NVIDIA GPU (sm_90) and the CUDA
# Toolkit: build the capture tool, the self-test program and its checker, run
# every mode under gpumemsim-capture and check each trace against what the
# kernels' code implies (selftest_check.c).
#
#   capture/selftest/run.sh OUTDIR        (from the repository root)
#
# OUTDIR gets the build log, each run's stderr and exit status, the checker's
# verdicts, the program's SASS and the small traces. Exit status: the number
# of runs whose checks failed or whose exit status was not the expected one.
set -u
O=${1:?usage: capture/selftest/run.sh OUTDIR}
mkdir -p "$O/traces"
B=build/capture
{
    make -C capture WERROR=1 &&
    nvcc -O3 -arch=sm_90 -lineinfo -Icapture/selftest capture/selftest/selftest.cu -o $B/selftest &&
    cc -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -Imodel -Icapture/selftest capture/selftest/selftest_check.c \
        $(ls model/trace*.c | grep -v trace_accelsim) model/err.c -lzstd -o $B/selftest_check
} > "$O/build.log" 2>&1 || { tail -40 "$O/build.log"; exit 100; }
[ -x $B/gpumemsim-capture ] || { tail -5 "$O/build.log"; exit 100; }
cuobjdump -sass $B/selftest > "$O/selftest.sass.txt" 2>&1
cuobjdump -res-usage $B/selftest > "$O/selftest.res.txt" 2>&1
cat /proc/driver/nvidia/version > "$O/driver.txt" 2>&1

bad=0
# run NAME CHECK-MODE APP-MODE EXPECTED-EXIT [capture options...]
run() {
    local name=$1 check=$2 mode=$3 want=$4
    shift 4
    local t0 t1 rc
    t0=$(date +%s%N)
    local prog=$B/selftest
    [ "$mode" = python3 ] && { prog=python3; mode=$O/torch_gemm.py; }
    timeout 300 $B/gpumemsim-capture -o "$O/traces/$name.trace" "$@" -- $prog "$mode" > "$O/$name.log" 2>&1
    rc=$?
    t1=$(date +%s%N)
    echo "exit status $rc (expected $want), wall $(( (t1 - t0) / 1000000 )) ms" >> "$O/$name.log"
    $B/selftest_check "$check" "$O/traces/$name.trace" > "$O/$name.check.txt" 2>&1
    local crc=$?
    echo "$name: exit $rc (expected $want), checker: $(tail -1 "$O/$name.check.txt")"
    grep '^FAIL' "$O/$name.check.txt" | head -5
    [ $rc -eq "$want" ] && [ $crc -eq 0 ] || bad=$((bad + 1))
}

run all all all 0 -v
# each launch of "all" alone too, so that one kernel's failure cannot hide another's
for i in $(seq 0 22); do run one$i single all 0 --launch $i; done > "$O/one.summary.txt"
grep -v ': exit 0 (expected 0), checker: single: [0-9]* passed, 0 failed' "$O/one.summary.txt"
cat "$O"/one*.check.txt > "$O/one.check.txt"; cat "$O"/one*.log > "$O/one.log"
rm -f "$O"/one[0-9]*.check.txt "$O"/one[0-9]*.log "$O"/traces/one*.trace
run generic generic all 0 --format text --kernel k_generic
run launch23 launch23 all 0 --launch 2-3
run maxrec maxrec all 3 --max-records 100
run graph graph graph 3 -v
run crash crash crash 1
run nosync nosync nosync 0
run oom oom oom 0
$B/selftest stream > "$O/stream_native.log" 2>&1
run stream stream stream 0 -v
# warp shuffles as records (--shuffles, docs/capture.md), and none without it
run shfl shfl shfl 0 --shuffles
run shfl_off shfl_off shfl 0
# an unmodified library program, if PyTorch is there: cuBLAS fp32 (cp.async) and bf16 (TMA) GEMMs
if python3 -c 'import torch' 2>/dev/null; then
    cat > "$O/torch_gemm.py" <<'PY'
import torch
a = torch.randn(1024, 1024, device='cuda')
c = a @ a
b = a.bfloat16()
d = b @ b
print('torch ok', (c.sum() + d.float().sum()).item())
PY
    run torch any "python3" 0 -v --buffer-mb 4096 --keep-temp
    kept=$(sed -n 's/.*kept the saved cubins and listings in //p' "$O/torch.log")
    if [ -n "$kept" ] && [ -d "$kept" ]; then
        mkdir -p "$O/torch_sass"
        cp "$kept"/*.sass "$kept"/*.res "$O/torch_sass/" 2>/dev/null
        ls -la "$kept" > "$O/torch_sass/ls.txt"
        rm -rf "$kept"
    fi
fi
ls -la "$O/traces" > "$O/traces.ls.txt"
rm -f "$O/traces/stream.trace" "$O/traces/torch.trace"
echo "runs with problems: $bad"
exit $bad
