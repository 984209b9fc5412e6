#!/usr/bin/env python3
"""add-sass.py - give a capture made before the capture tool recorded the
whole SASS (seventh session) every instruction of its kernel in its PC table,
taken from the Nsight Compute source view captured with it (NAME.source.csv,
ncu's own disassembly of the same binary). The timing model then counts the
instructions between a warp's records along the control flow and sees the
registers they read (model/sassflow.h, docs/timing.md).

usage: traces/add-sass.py BIN CAPTURE...   (CAPTURE: traces/h200/NAME.trace)

For each capture: the trace's own PC entries are kept as they are; every
other instruction of the source view is added as `pc 0xPC "SASS"`, code
addresses (branch, BSSY and call targets) made function-relative, as the
capture writes them (ncu prints absolute addresses). It refuses a
capture whose memory PCs do not hold the same opcode in the source view (not
the same binary), one with several kernels, and one already complete. The
trace is rewritten at zstd level 19 after its records are checked unchanged
(`trace dump` of old and new, PC lines aside). Prints one line per capture."""
import csv, os, re, subprocess, sys, tempfile


def fail(msg):
    print("add-sass: " + msg, file=sys.stderr)
    sys.exit(2)


def opcode(text):
    t = text.strip()
    if t.startswith('@'):
        t = t.split(None, 1)[1]
    return t.split()[0].split('.')[0] if t else ''


def source_sass(path):
    rows = list(csv.reader(open(path, encoding='utf-8', errors='replace')))
    names = [r for r in rows if r and r[0] == 'Kernel Name']
    if len(names) != 1:
        return None, '%s: %d kernels in the source view (expected 1)' % (path, len(names))
    ins = [(int(r[0], 16), r[1].strip()) for r in rows if r and r[0].startswith('0x') and len(r) > 1]
    if not ins:
        return None, '%s: no instructions' % path
    base, end = ins[0][0], ins[-1][0] + 16
    code = lambda v: base <= v <= end  # an address of the kernel's code, or just past it
    out = []
    for a, t in ins:
        t = re.sub(r'\s+', ' ', t)
        # code addresses (BRA, BSSY, CALL.REL targets) as the capture writes them: function-relative
        t = re.sub(r'0x([0-9a-f]+)', lambda m: '0x%x' % (int(m.group(1), 16) - base)
                   if code(int(m.group(1), 16)) else m.group(0), t)
        out.append((a - base, t))
    return out, None


def main():
    if len(sys.argv) < 3:
        fail('usage: add-sass.py BIN CAPTURE...')
    binary = sys.argv[1]
    for cap in sys.argv[2:]:
        stem = cap[:-len('.trace')] if cap.endswith('.trace') else cap
        ins, err = source_sass(stem + '.source.csv')
        if err:
            fail(err)
        dump = subprocess.run([binary, 'trace', 'dump', cap], capture_output=True, text=True)
        if dump.returncode != 0:
            fail('%s: %s' % (cap, dump.stderr.strip()))
        lines = dump.stdout.splitlines()
        if sum(1 for l in lines if l.startswith('kernel ')) < 1:
            fail('%s: no kernel' % cap)
        pcs = {}
        for l in lines:
            if l.startswith('pc '):
                pcs[int(l.split()[1], 16)] = l
        names = set(re.search(r' name="([^"]*)"', l).group(1) for l in lines if l.startswith('kernel '))
        if len(names) != 1:
            fail('%s: %d kernels (expected one, launched any number of times)' % (cap, len(names)))
        if len(pcs) >= len(ins):
            print('%s: already complete (%d PCs)' % (cap, len(pcs)))
            continue
        by_pc = dict(ins)
        for pc, l in pcs.items():
            own = re.search(r'"([^"]*)"', l).group(1)
            if pc not in by_pc or opcode(by_pc[pc]) != opcode(own):
                fail('%s: PC 0x%x is %r in the trace but %r in the source view' % (cap, pc, own, by_pc.get(pc)))
        table = [pcs.get(pc, 'pc 0x%04x "%s" cache=default' % (pc, t.replace('"', "'"))) for pc, t in ins]
        out, pending = [], False
        for l in lines:  # each launch: kernel line, file lines, PC table, records
            if l.startswith('pc '):
                continue
            if pending and not l.startswith('file '):
                out.extend(table)
                pending = False
            out.append(l)
            pending = pending or l.startswith('kernel ')
        with tempfile.TemporaryDirectory() as tmp:
            text = os.path.join(tmp, 'new.trace.txt')
            new = os.path.join(tmp, 'new.trace')
            open(text, 'w').write('\n'.join(out) + '\n')
            r = subprocess.run([binary, 'trace', 'dump', '--binary', '--zstd-level', '19', '-o', new, text],
                               capture_output=True, text=True)
            if r.returncode != 0:
                fail('%s: %s' % (cap, r.stderr.strip()))
            again = subprocess.run([binary, 'trace', 'dump', new], capture_output=True, text=True).stdout.splitlines()
            strip = lambda ls: [l for l in ls if not l.startswith('pc ')]
            if strip(again) != strip(lines):
                fail('%s: the records changed on the way (not replaced)' % cap)
            old_bytes = os.path.getsize(cap)
            os.replace(new, cap)
        print('%s: %d -> %d PCs, %d -> %d bytes' % (cap, len(pcs), len(ins), old_bytes, os.path.getsize(cap)))


if __name__ == '__main__':
    main()
