#!/usr/bin/env python3
"""lrcgroup-trace.py - a text trace of kernels/lrcpair.cu's group mode.

usage: bench/lrcgroup-trace.py K SPR [KIB] > OUT.trace
       bench/lrcgroup-trace.py K gather-same|gather-own [KIB [LOAD_KIB]] > OUT.trace
       bench/lrcgroup-trace.py K band KIB BAND SHIFT WARPS > OUT.trace

The first K SMs of GPC 0 (kernels/probes/lrc-group.sh's list), one CTA of 8
warps each, read the same KIB KiB buffer (256 by default), one float per
sector, in requests of SPR sectors (lrcpair.cu's groupRead: a warp's 32 lanes
read 32 / SPR consecutive lines, SPR sectors each). The meeting before the
reads (atomics, spinning) is left out: the trace starts where every SM reads
at once, STAGGER 0. The H200 read the buffer ceil(K / 4) times from L2
(docs/findings.md §2c); `gpumemsim run --timing` on this trace shows what the
model's L2 request coalescer does with it.

gather-same / gather-own: `lrcpair gather KIB 1|0` (findings §2e): every SM
reads sector hash_mix32(e + seed) of the buffer for e = 0 .. sectors - 1, seed 0
on every SM (same) or rank x 0x9e3779b9 (own), through L1; with LOAD_KIB,
every other SM streams LOAD_KIB KiB of its own at the same time (float4
loads, `lrcpair gather KIB SAME LOAD_KIB`).

band: `lrcpair band KIB BAND SHIFT WARPS`: as gather-own, in a band of BAND
sectors starting SHIFT x rank sectors in, CTAs of WARPS warps."""
import sys

GPC0 = [0, 16, 32, 48, 1, 17, 33, 49, 124, 125, 126, 127, 128, 129, 130, 131]
THREADS = 256


def mix32(v):
    """kernels/common.cuh's hash_mix32, on 32-bit unsigned ints"""
    v &= 0xffffffff
    v ^= v >> 16
    v = (v * 0x7feb352d) & 0xffffffff
    v ^= v >> 15
    v = (v * 0x846ca68b) & 0xffffffff
    v ^= v >> 16
    return v


def main():
    band_mode = len(sys.argv) == 7 and sys.argv[2] == "band"
    if not band_mode and (len(sys.argv) not in (3, 4, 5) or
                          (len(sys.argv) == 5 and not sys.argv[2].startswith("gather"))):
        sys.exit("usage: lrcgroup-trace.py K SPR|gather-same|gather-own [KIB [LOAD_KIB]] | K band KIB BAND SHIFT WARPS")
    k = int(sys.argv[1])
    gather = {"gather-same": 1, "gather-own": 2, "band": 3}.get(sys.argv[2], 0)
    band, shift, threads = (int(sys.argv[4]), int(sys.argv[5]), 32 * int(sys.argv[6])) if band_mode else (0, 0, THREADS)
    spr = 1 if gather else int(sys.argv[2])
    kib = int(sys.argv[3]) if len(sys.argv) >= 4 else 256
    load4 = int(sys.argv[4]) * 1024 // 16 if len(sys.argv) == 5 else 0
    loaders = [s for s in range(132) if s not in GPC0[:k]] if load4 else []
    if not 2 <= k <= len(GPC0) or spr not in (1, 2, 4):
        sys.exit("lrcgroup-trace.py: K is 2 to 16, SPR 1, 2 or 4 (or gather-same, gather-own)")
    nsec = kib * 1024 // 32
    nlines = nsec // 4
    base = 0x7f0000000000
    out = ['gpumemsim-trace 1',
           'meta sm_count "132"',
           ('meta command "lrcpair band %d %d %d %d %s"' % (kib, band, shift, threads // 32, " ".join(map(str, GPC0[:k])))
            if band_mode else
            'meta command "lrcpair gather %d %d %d %s"'
            % (kib, 1 if gather == 1 else 0, load4 * 16 // 1024, " ".join(map(str, GPC0[:k])))
            if gather else
            'meta command "lrcpair group %d %d 0 %s"' % (kib, spr, " ".join(map(str, GPC0[:k])))),
           'kernel launch=0 grid=%d,1,1 block=%d,1,1 name="_Z9groupReadPKfiiPKjjS1_xPjPfPyPi" '
           'demangled="groupRead(float const*, int, int, unsigned int const*, unsigned int, unsigned int const*, '
           'long long, unsigned int*, float*, unsigned long long*, int*)" smem_static=0 smem_dynamic=0 regs=32 local=0'
           % (k + len(loaders), threads),
           'pc 0x0400 "LDG.E R9, desc[UR4][R2.64]" cache=default',
           'pc 0x0500 "LDG.E.128 R4, desc[UR4][R2.64]" cache=default']
    load_base = 0x7e0000000000
    n = 0
    for it in range(max(nsec // threads, load4 // THREADS)):  # the loops, in program order
        for w in range(max(threads, THREADS if loaders else 0) // 32):
            for j, sm in enumerate(loaders if it < load4 // THREADS else []):
                out.append('ld global 16 cta=%d warp=%d sm=%d pc=0x500 mask=0xffffffff base=0x%x stride=16'
                           % (k + j, w, sm, load_base + (sm * load4 + it * THREADS + w * 32) * 16))
                n += 1
            for c in range(k if it < nsec // threads and w < threads // 32 else 0):  # every SM at the same step
                addrs = []
                for lane in range(32):
                    e = it * threads + w * 32 + lane
                    if gather == 3:
                        seed = (c * 0x9e3779b9) & 0xffffffff
                        addrs.append(base + ((c * shift + mix32(e + seed) % band) % nsec) * 32)
                        continue
                    if gather:
                        seed = (c * 0x9e3779b9) & 0xffffffff if gather == 2 else 0
                        addrs.append(base + (mix32(e + seed) % nsec) * 32)
                        continue
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
