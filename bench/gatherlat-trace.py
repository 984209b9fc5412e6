#!/usr/bin/env python3
"""gatherlat-trace.py - a text trace of kernels/gatherlat.cu's pointer chase.

usage: bench/gatherlat-trace.py LEVEL LINES > OUT.trace     (LEVEL: L1 or L2)

One warp chases pointers through a table: at step s lane l reads the int at
line s x LINES + l mod LINES, word (l / LINES) mod 32 (gatherlat.cu's
start_of), each load's address computed from the load before by an IMAD.WIDE
that only the whole SASS shows. The PC table is the probe's whole SASS
(traces/h200-probes/gatherlat/gatherlat.sass, cuobjdump of build/kernels/gatherlat
on the H200): chase<false> (__ldcg, L2) or chase<true> (__ldca, L1). Run with
`cold_caches_per_kernel = false`. L2: launch 0 is the first pass (it fills
L2), launch 1 the timed second: launch 1's cycles less `launch_cycles`, over
the steps, are the model's cycles per dependent load (docs/findings.md §13).
L1 starts every kernel empty (findings §3f), so for L1 launch 1 runs the
chase twice, as the probe does in its one launch, and launch 2 once (from
L2): launch 1's cycles less launch 2's, over the steps."""
import os, re, sys

HERE = os.path.dirname(os.path.abspath(__file__))
SASS = os.path.join(HERE, '..', 'traces', 'h200-probes', 'gatherlat', 'gatherlat.sass')
STEPS = {'L2': 512, 'L1': 16}
FUNC = {'L2': '_Z5chaseILb0EEvPKiiiPxPi', 'L1': '_Z5chaseILb1EEvPKiiiPxPi'}
LOOP = [0x320 + 0x20 * i for i in range(12)] + [0x4a0, 0x4c0, 0x4f0, 0x520]  # the unrolled body's LDGs


def function_sass(name):
    out, on = [], False
    for line in open(SASS):
        if 'Function :' in line:
            on = line.split(':', 1)[1].strip() == name
            continue
        m = re.match(r'\s*/\*([0-9a-f]{4})\*/\s+(.*?)\s*;?\s*$', line)
        if on and m:
            out.append((int(m.group(1), 16), re.sub(r'\s+', ' ', m.group(2)).rstrip(' ;')))
    return out


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in STEPS:
        sys.exit('usage: gatherlat-trace.py L1|L2 LINES')
    level, lines = sys.argv[1], int(sys.argv[2])
    if lines not in (1, 2, 4, 8, 16, 32):
        sys.exit('gatherlat-trace.py: LINES is 1, 2, 4, 8, 16 or 32')
    steps, base = STEPS[level], 0x7f0000000000
    cache = 'ca' if level == 'L1' else 'cg'
    sass = function_sass(FUNC[level])
    out = ['gpumemsim-trace 1', 'meta sm_count "132"',
           'meta command "gatherlat (%s, %d lines a load)"' % (level, lines)]
    passes = (1, 1) if level == 'L2' else (1, 2, 1)  # each launch's passes over the chase
    for launch, n_pass in enumerate(passes):
        out.append('kernel launch=%d grid=1,1,1 block=32,1,1 name="%s" demangled="chase" smem_static=0 '
                   'smem_dynamic=0 regs=32 local=0' % (launch, FUNC[level]))
        for pc, text in sass:
            out.append('pc 0x%04x "%s" cache=%s' % (pc, text, cache if 'LDG' in text else 'default'))
        for _ in range(n_pass):
            for s in range(steps):
                addrs = [base + 4 * (s * lines * 32 + (l % lines) * 32 + (l // lines) % 32) for l in range(32)]
                out.append('ld global 4 cta=0 warp=0 sm=0 pc=0x%x cache=%s mask=0xffffffff addrs=%s'
                           % (LOOP[s % 16], cache, ','.join('0x%x' % a for a in addrs)))
        out.append('end kernel mem=%d bar=0' % (steps * n_pass))
    out.append('end trace kernels=%d complete' % len(passes))
    sys.stdout.write('\n'.join(out) + '\n')


if __name__ == '__main__':
    main()
