#!/usr/bin/env python3
"""strideg-trace.py - a text trace of kernels/lrcpair.cu's strideg mode.

usage: bench/strideg-trace.py [--shuffle SEED] [--spr N] S K W SM[:OFF]... > OUT.trace

Each listed SM (one CTA on it) has W warps issue K loads each; load k of
warp w reads float OFF (default 0) of lines ((w K + k) 32 + lane) x S, one
line a lane: 32 one-sector requests (lrcpair.cu's strideGroupRead). With
--spr N (lrcpair's stridegs), N sectors of each of 32 / N lines: lane l reads
float OFF + 8 (l % N) of line ((w K + k) 32 / N + l / N) x S. The
meeting before the reads is left out: the trace starts where every SM reads
at once, the SMs' records interleaved step by step (warp, then load, then
SM, in the order listed; with --shuffle, the SMs in a random order at each
step, as SMs a few cycles apart would be). kernels/probes/lrc-bisect2.sh and lrc-bisect3.sh
ran these on the H200 (docs/findings.md §2f); `gpumemsim run --timing` on
the trace shows what the model's L2 request coalescer does with them."""
import random
import sys


def main():
    args = sys.argv[1:]
    rng = None
    spr = 1
    while args[:1] in (["--shuffle"], ["--spr"]) and len(args) > 1:
        if args[0] == "--shuffle":
            rng = random.Random(int(args[1]))
        else:
            spr = int(args[1])
        args = args[2:]
    if len(args) < 5:
        sys.exit("usage: strideg-trace.py [--shuffle SEED] S K W SM[:OFF]...")
    s, k, w = (int(a) for a in args[:3])
    sms = []
    for a in args[3:]:
        sm, _, off = a.partition(":")
        sms.append((int(sm), int(off or 0)))
    base = 0x7f0000000000
    out = ['gpumemsim-trace 1',
           'meta sm_count "132"',
           'meta command "lrcpair strideg %s"' % " ".join(args),
           'kernel launch=0 grid=%d,1,1 block=256,1,1 name="_Z15strideGroupReadPKfiii6sm_setjPKiPjPfPi" '
           'demangled="strideGroupRead(float const*, int, int, int, sm_set, unsigned int, int const*, unsigned int*, '
           'float*, int*)" smem_static=0 smem_dynamic=0 regs=32 local=0' % len(sms),
           'pc 0x0400 "LDG.E R9, desc[UR4][R2.64]" cache=default']
    n = 0
    for warp in range(w):
        for load in range(k):
            order = list(enumerate(sms))
            if rng:
                rng.shuffle(order)
            for cta, (sm, off) in order:
                addrs = [base + ((warp * k + load) * (32 // spr) + lane // spr) * s * 128 + (off + 8 * (lane % spr)) * 4
                         for lane in range(32)]
                out.append('ld global 4 cta=%d warp=%d sm=%d pc=0x400 mask=0xffffffff addrs=%s'
                           % (cta, warp, sm, ",".join("0x%x" % a for a in addrs)))
                n += 1
    out.append('end kernel mem=%d bar=0' % n)
    out.append('end trace kernels=1 complete')
    sys.stdout.write('\n'.join(out) + '\n')


if __name__ == '__main__':
    main()
