#!/usr/bin/env python3
"""lrcgroup-trace.py - a text trace of kernels/lrcpair.cu's group mode.

usage: bench/lrcgroup-trace.py K SPR [KIB] > OUT.trace

The first K SMs of GPC 0 (kernels/probes/lrc-group.sh's list), one CTA of 8
warps each, read the same KIB KiB buffer (256 by default), one float per
sector, in requests of SPR sectors (lrcpair.cu's groupRead: a warp's 32 lanes
read 32 / SPR consecutive lines, SPR sectors each). The meeting before the
reads (atomics, spinning) is left out: the trace starts where every SM reads
at once, STAGGER 0. The H200 read the buffer ceil(K / 4) times from L2
(docs/findings.md §2c); `gpumemsim run --timing` on this trace shows what the
model's L2 request coalescer does with it."""
import sys

GPC0 = [0, 16, 32, 48, 1, 17, 33, 49, 124, 125, 126, 127, 128, 129, 130, 131]
THREADS = 256


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit("usage: lrcgroup-trace.py K SPR [KIB]")
    k, spr = int(sys.argv[1]), int(sys.argv[2])
    kib = int(sys.argv[3]) if len(sys.argv) == 4 else 256
    if not 2 <= k <= len(GPC0) or spr not in (1, 2, 4):
        sys.exit("lrcgroup-trace.py: K is 2 to 16, SPR 1, 2 or 4")
    nsec = kib * 1024 // 32
    nlines = nsec // 4
    base = 0x7f0000000000
    out = ['gpumemsim-trace 1',
           'meta sm_count "132"',
           'meta command "lrcpair group %d %d 0 %s"' % (kib, spr, " ".join(map(str, GPC0[:k]))),
           'kernel launch=0 grid=%d,1,1 block=%d,1,1 name="_Z9groupReadPKfiiPKjjS1_xPjPfPyPi" '
           'demangled="groupRead(float const*, int, int, unsigned int const*, unsigned int, unsigned int const*, '
           'long long, unsigned int*, float*, unsigned long long*, int*)" smem_static=0 smem_dynamic=0 regs=32 local=0'
           % (k, THREADS),
           'pc 0x0400 "LDG.E R9, desc[UR4][R2.64]" cache=default']
    n = 0
    for it in range(nsec // THREADS):          # the loop, in program order
        for w in range(THREADS // 32):
            for c in range(k):                 # every SM at the same step
                addrs = []
                for lane in range(32):
                    e = it * THREADS + w * 32 + lane
                    u, sub = divmod(e, spr)
                    line, rep = u % nlines, u // nlines
                    addrs.append(base + line * 128 + (rep * spr + sub) * 32)
                out.append('ld global 4 cta=%d warp=%d sm=%d pc=0x400 mask=0xffffffff addrs=%s'
                           % (c, w, GPC0[c], ",".join("0x%x" % a for a in addrs)))
                n += 1
    out.append('end kernel mem=%d bar=0' % n)
    out.append('end trace kernels=1 complete')
    sys.stdout.write('\n'.join(out) + '\n')


if __name__ == '__main__':
    main()
