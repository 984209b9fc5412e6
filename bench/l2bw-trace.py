#!/usr/bin/env python3
"""l2bw-trace.py - a text trace of kernels/l2bw.cu's read loop.

usage: bench/l2bw-trace.py W CTAS SMS PATTERN [ITERS] > OUT.trace

CTAS CTAs of W warps, CTA c on SM c mod 132 (a CTA per SM first, findings
§2d); those on SMs numbered SMS or higher return at once, as in the probe.
PATTERN is line, half or sect (l2bw.cu's patterns: a warp instruction reads
one line, 2 half lines or 4 first sectors). ITERS iterations of 16 loads
per warp (the probe runs 256; the rates it measures are steady, so fewer
do). The PCs and SASS are the probe's own, from `cuobjdump -sass` of
build/kernels/l2bw on the H200 (traces/h200-probes/l2bw/l2bw.sass, its three
readLoop kernels: sect, half, line): the whole kernel's SASS, as captures
hold it, so that the model's warps wait where the code makes them wait (the
line loop's 13th load issues only after an FADD that needs the 1st load's
data: the compiler ran out of scoreboards, docs/findings.md §12). Until the
ninth session the trace held the loads alone, and the model kept all 16 in
flight. The records come in the grid's
instruction order, as the probe numbers them (every warp's u-th load of
iteration i before any (u+1)-th). The buffer is 8 MiB; launch 0 is the
probe's warm-up launch (the same loop), so with `cold_caches_per_kernel =
false` launch 1 finds the lines it reads in L2, near copies included.
`gpumemsim run --timing` on it: launch 1's cycles less `launch_cycles` give
the model's rate (docs/findings.md §12)."""
import os
import re
import sys

# LDG PCs of the loop and their SASS (readLoop<0> is line, <1> half, <2> sect)
PCS = {
    'line': [0x260, 0x2e0, 0x320, 0x450, 0x4e0, 0x500, 0x550, 0x5a0, 0x5f0, 0x660, 0x6f0, 0x760, 0x7d0, 0x840, 0x8c0,
             0x900],
    'half': [0x650, 0x6b0, 0x710, 0x760, 0x7f0, 0x830, 0x8c0, 0x910, 0x9a0, 0x9f0, 0xaa0, 0xb00, 0xb90, 0xc00, 0xcb0,
             0xcf0],
}
PCS['sect'] = PCS['half']
SASS = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'traces', 'h200-probes', 'l2bw', 'l2bw.sass')
BLOCK = {'sect': 0, 'half': 1, 'line': 2}  # l2bw.sass's kernels, in cuobjdump's order
LINES = 8 * 1024 * 1024 // 128


def kernel_sass(pattern):
    """(pc, text) of every instruction of the pattern's readLoop, from l2bw.sass"""
    blocks = []
    for line in open(SASS):
        m = re.match(r'\s*/\*([0-9a-f]{4})\*/\s+(.*?)\s*;', line)
        if not m:
            continue
        pc = int(m.group(1), 16)
        if pc == 0:
            blocks.append([])
        blocks[-1].append((pc, m.group(2)))
    code = blocks[BLOCK[pattern]]
    loads = [pc for pc, text in code if text.startswith('LDG')]
    if loads != PCS[pattern]:
        sys.exit("l2bw-trace.py: %s's loads in %s are not at the expected PCs" % (pattern, SASS))
    return code
BASE = 0x7f0000000000


def lanes(pattern, k):
    if pattern == 'line':
        return None, BASE + (k % LINES) * 128
    per = 16 if pattern == 'half' else 8
    addrs = []
    for lane in range(32):
        line = (k * (32 // per) + lane // per) % LINES
        addrs.append(BASE + line * 128 + (lane % per) * 4)
    return addrs, None


def main():
    if len(sys.argv) not in (5, 6):
        sys.exit("usage: l2bw-trace.py W CTAS SMS PATTERN [ITERS]")
    w, ctas, sms, pattern = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    iters = int(sys.argv[5]) if len(sys.argv) == 6 else 16
    if pattern not in PCS:
        sys.exit("l2bw-trace.py: PATTERN is line, half or sect")
    warps = ctas * w
    out = ['gpumemsim-trace 1', 'meta sm_count "132"',
           'meta command "l2bw %d %d 8192 %d (%s, %d iterations)"' % (w, ctas, sms, pattern, iters)]
    for launch in (0, 1):
        out.append('kernel launch=%d grid=%d,1,1 block=%d,1,1 name="_Z8readLoopILi0EEvPKfjjPxPyPf" '
                   'demangled="void readLoop<0>(float const*, unsigned int, unsigned int, long long*, '
                   'unsigned long long*, float*)" smem_static=0 smem_dynamic=0 regs=40 local=0' % (launch, ctas, 32 * w))
        for pc, text in kernel_sass(pattern):
            out.append('pc 0x%04x "%s" cache=%s' % (pc, text, 'cg' if text.startswith('LDG') else 'default'))
        n = 0
        if True:  # launch 0 is the probe's warm-up launch, the same loop
            for i in range(iters):
                for u in range(16):
                    for g in range(warps):
                        c, wi = divmod(g, w)
                        if c % 132 >= sms:
                            continue
                        addrs, base = lanes(pattern, (i * 16 + u) * warps + g)
                        where = ('base=0x%x stride=4' % base) if base is not None else \
                            'addrs=' + ','.join('0x%x' % x for x in addrs)
                        out.append('ld global 4 cta=%d warp=%d sm=%d pc=0x%x cache=cg mask=0xffffffff %s'
                                   % (c, wi, c % 132, PCS[pattern][u], where))
                        n += 1
        out.append('end kernel mem=%d bar=0' % n)
    out.append('end trace kernels=2 complete')
    sys.stdout.write('\n'.join(out) + '\n')


if __name__ == '__main__':
    main()
