#!/usr/bin/env python3
"""add-ctrl.py - give captures the control word of every instruction of their
PC tables (docs/trace-format.md, "control word"), taken from `cuobjdump -sass`
of the same build decoded by kernels/probes/sass-ctrl.py (a block per kernel
after "# Function : NAME"; the tables have no operand-reuse bits, so those stay
0). The capture tool does not record them (its SASS text comes without).

usage: traces/add-ctrl.py BIN TABLES CAPTURE...
  BIN      build/gpumemsim
  TABLES   a folder of *.ctrl.txt tables, or a .tgz of them
           (traces/h200-probes/sass-ctrl/all-kernels.ctrl.tgz)
  CAPTURE  a binary trace, e.g. traces/h200/NAME.trace

A kernel gets its words only when the tables hold a block of its mangled name
whose instructions are exactly its PC table's (the same PCs, the same SASS
text but for `.reuse`); otherwise the kernel is left as it was and said so.
The trace is rewritten at zstd level 19 after its `trace dump` is checked
unchanged but for the added `ctrl=` fields. Prints one line per capture;
exit status 1 when some capture had no kernel that matched (it is left as it
was), 2 on bad input."""
import os, re, shutil, subprocess, sys, tarfile, tempfile


def fail(msg):
    print("add-ctrl: " + msg, file=sys.stderr)
    sys.exit(2)


def read_tables(src):
    """{kernel name: [{pc: (sass, word)}, ...]}: one table per build (readSegment's
    kernel is in two programs, built with and without -dlcm=cg)"""
    texts = []
    if os.path.isdir(src):
        for n in sorted(os.listdir(src)):
            if n.endswith('.ctrl.txt'):
                texts.append(open(os.path.join(src, n)).read())
    elif src.endswith('.tgz'):
        with tarfile.open(src) as t:
            for m in t.getmembers():
                if m.isfile() and m.name.endswith('.ctrl.txt'):
                    texts.append(t.extractfile(m).read().decode())
    else:
        texts.append(open(src).read())
    if not texts:
        fail('%s: no *.ctrl.txt tables' % src)
    tables, name = {}, None
    row = re.compile(r'0x([0-9a-f]+)\s+(\d+)\s+(\d)\s+(\S+)\s+(\S+)\s+(\S+)\s+(.*)$')
    for text in texts:
        for line in text.split('\n'):
            if line.startswith('# Function : '):
                name = line.split(' : ', 1)[1].strip()
                cur = {}
                tables.setdefault(name, []).append(cur)
                continue
            m = row.match(line)
            if not (m and name):
                continue
            stall, yld = int(m.group(2)), int(m.group(3))
            bar = lambda s: 7 if s == '-' else int(s)
            wait = 0 if m.group(6) == '-' else sum(1 << int(b) for b in m.group(6).split(','))
            word = stall | yld << 4 | bar(m.group(4)) << 5 | bar(m.group(5)) << 8 | wait << 11
            cur[int(m.group(1), 16)] = (m.group(7).strip(), word)
    return tables


def same_sass(a, b):
    norm = lambda s: re.sub(r'\s+', ' ', s.replace('.reuse', '')).strip().rstrip(';').strip()
    return norm(a) == norm(b)


PC_RE = re.compile(r'^pc 0x([0-9a-f]+) "((?:[^"\\]|\\.)*)"(.*)$')


def annotate(block, table, cap, name):
    """block's lines with ctrl= added from table, or None unless every PC matches"""
    new, n = [], 0
    for l in block:
        p = PC_RE.match(l)
        if not p:
            new.append(l)
            continue
        if ' ctrl=' in p.group(3):
            fail('%s: kernel %s already has control words' % (cap, name))
        ent = table.get(int(p.group(1), 16))
        if not ent or not same_sass(p.group(2), ent[0]):
            return None
        new.append('%s ctrl=0x%06x' % (l, ent[1]))
        n += 1
    return new if n == len(table) else None


def dump(binary, path):
    return subprocess.run([binary, 'trace', 'dump', path], capture_output=True, text=True, check=True).stdout


def main():
    if len(sys.argv) < 4:
        fail('usage: add-ctrl.py BIN TABLES CAPTURE...')
    binary, tables = sys.argv[1], read_tables(sys.argv[2])
    status = 0
    kernel_re = re.compile(r'^kernel .* name="([^"]+)"')
    for cap in sys.argv[3:]:
        try:
            lines = dump(binary, cap).split('\n')
        except subprocess.CalledProcessError as e:
            fail('%s: cannot be read: %s' % (cap, e.stderr.strip()))
        # per kernel: its PC lines, annotated if every one matches
        out, i, got, missed = [], 0, 0, []
        while i < len(lines):
            m = kernel_re.match(lines[i])
            if not m:
                out.append(lines[i])
                i += 1
                continue
            name = m.group(1)
            out.append(lines[i])
            i += 1
            block = []
            while i < len(lines) and (lines[i].startswith('pc ') or lines[i].startswith('file ')):
                block.append(lines[i])
                i += 1
            new = None
            for cand in tables.get(name, []):
                new = annotate(block, cand, cap, name)
                if new is not None:
                    break
            if new is not None:
                out.extend(new)
                got += 1
            else:
                out.extend(block)
                missed.append(name)
        if got == 0:
            print('%s: no kernel matched (%s)' % (cap, ', '.join(missed)))
            status = 1
            continue
        with tempfile.TemporaryDirectory() as tmp:
            text, new_bin = os.path.join(tmp, 't.txt'), os.path.join(tmp, 't.trace')
            open(text, 'w').write('\n'.join(out))
            subprocess.run([binary, 'trace', 'dump', '--binary', '--zstd-level', '19', '-o', new_bin, text],
                           check=True, capture_output=True)
            strip = lambda s: re.sub(r' ctrl=0x[0-9a-f]+', '', s)
            if strip(dump(binary, new_bin)) != strip('\n'.join(lines)):
                fail('%s: the rewritten trace differs beyond its control words' % cap)
            a = os.path.getsize(cap)
            shutil.copyfile(new_bin, cap)
            print('%s: %d kernel(s) with control words%s; %d -> %d bytes' %
                  (cap, got, ' (not: %s)' % ', '.join(missed) if missed else '', a, os.path.getsize(cap)))
    sys.exit(status)


if __name__ == '__main__':
    main()
