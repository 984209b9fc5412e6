#!/usr/bin/env python3
"""storepair-trace.py - a text trace of kernels/storepair.cu at DELAY 0.

usage: bench/storepair-trace.py P SPLIT [N] > OUT.trace

One CTA of 8 warps on SM 0; per line i (N of them, 4,096 by default) every
warp arrives at a barrier, then warp 0 and warp P store (kernels/storepair.cu:
without SPLIT the first and last 64 bytes of line i, with SPLIT 32 floats each
from the middle of lines 3i and 3i + 1). The delay loop of the kernel leaves
no record, so the trace is the DELAY 0 case, the one most likely to merge.
The H200 merged none of these pairs (docs/findings.md §6b)."""
import sys


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit("usage: storepair-trace.py P SPLIT [N]")
    p, split = int(sys.argv[1]), int(sys.argv[2])
    n = int(sys.argv[3]) if len(sys.argv) == 4 else 4096
    base = 0x7f0000000000
    out = ['gpumemsim-trace 1',
           'meta command "storepair %d 0 %d %d"' % (p, n, split),
           'kernel launch=0 grid=1,1,1 block=256,1,1 name="_Z9storePairPfixii" '
           'demangled="storePair(float*, int, long long, int, int)" smem_static=0 smem_dynamic=0 regs=16 local=0',
           'pc 0x0100 "BAR.SYNC.DEFER_BLOCKING 0x0" cache=default',
           'pc 0x0200 "STG.E desc[UR4][R2.64], R5" cache=default']
    for i in range(n):
        for w in range(8):
            out.append('bar cta=0 warp=%d sm=0 pc=0x100' % w)
        for w in (0, p):
            if split:
                addr = base + (i * 96 + (16 if w == 0 else 48)) * 4
                mask = 0xffffffff
            else:
                addr = base + (i * 32 + (0 if w == 0 else 16)) * 4
                mask = 0x0000ffff
            out.append('st global 4 cta=0 warp=%d sm=0 pc=0x200 mask=0x%08x base=0x%x stride=4' % (w, mask, addr))
    out.append('end kernel mem=%d bar=%d' % (2 * n, 8 * n))
    out.append('end trace kernels=1 complete')
    sys.stdout.write('\n'.join(out) + '\n')


if __name__ == '__main__':
    main()
