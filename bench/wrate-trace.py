#!/usr/bin/env python3
"""wrate-trace.py - a text trace of kernels/wrate.cu's misaligned pattern (ws11).

usage: bench/wrate-trace.py W > OUT.trace

One CTA of W warps on SM 0; each warp stores 2,048 times (one STG in a loop),
store i of warp w at floats (i x W + w) x 32 + 11 .. + 42, so that consecutive
warp stores share a boundary line. No capture of wrate exists: the records
are in round-robin order (iteration by iteration), an assumption. Measured
L2 write requests: traces/h200-probes/wrate.txt (docs/findings.md §6c)."""
import sys


def main():
    if len(sys.argv) != 2 or not sys.argv[1].isdigit() or not 1 <= int(sys.argv[1]) <= 32:
        sys.exit("usage: wrate-trace.py W (1..32)")
    w_count, iters, base = int(sys.argv[1]), 2048, 0x7f0000000000
    out = ['gpumemsim-trace 1',
           'meta command "wrate %d 1 (ws11 pattern)"' % w_count,
           'kernel launch=0 grid=1,1,1 block=%d,1,1 name="_Z9storeLoopPfiPx" '
           'demangled="storeLoop(float*, int, long long*)" smem_static=0 smem_dynamic=0 regs=16 local=0'
           % (32 * w_count),
           'pc 0x0100 "STG.E desc[UR4][R2.64], R5" cache=default']
    for i in range(iters):
        for w in range(w_count):
            step = i * w_count + w
            out.append('st global 4 cta=0 warp=%d sm=0 pc=0x100 mask=0xffffffff base=0x%x stride=4'
                       % (w, base + (step * 32 + 11) * 4))
    out.append('end kernel mem=%d bar=0' % (iters * w_count))
    out.append('end trace kernels=1 complete')
    sys.stdout.write('\n'.join(out) + '\n')


if __name__ == '__main__':
    main()
