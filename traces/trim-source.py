#!/usr/bin/env python3
"""trim-source.py CSV... - keep of ncu's source page (NAME.source.csv, one row
per SASS instruction) what `gpumemsim validate --per-pc` reads: the lines
before the column header, the header, the kernel's first instruction (its
address is where the kernel starts) and the rows of memory instructions and
barriers, and the rows where ncu took warp state samples (`explain --timing`
compares them with the model's: where the warps wait, and why). The rows of
the other instructions (ALU, branches, ...) carry no memory counter and no
sample; a library kernel has thousands of them (PyTorch's reduce_kernel 3,776
rows, 1.2 MB), so they are dropped before a capture is committed. So are the
columns neither reads (DROP: the "(Not Issued)" stall reasons, thread counts,
averages, L2 eviction policies); the full pages of the PyTorch captures are in
traces/h200-probes/torch-source/source-full.tar.xz.

Rewrites each file in place, printing "FILE: ROWS -> KEPT rows, BYTES -> BYTES".
A file already trimmed comes out the same. Exit status 2 when a file has no
"Address"/"Source" header (not a source page)."""
import csv
import io
import re
import sys

# the SASS opcodes whose rows validate --per-pc compares (an optional predicate first)
KEEP = re.compile(r'^\s*(@!?U?P[T0-9]+\s+)?(LDGSTS|LDGDEPBAR|LDSM|STSM|LDG|STG|LDS|STS|LDL|STL|LD|ST|'
                  r'ATOMG|ATOMS|ATOM|REDG|RED|REDUX|BAR)\b')


SAMPLES = 'Warp Stall Sampling (All Samples)'


def DROP(name):
    """a column neither validate --per-pc nor explain --timing reads"""
    return (name.endswith('(Not Issued)') or name.startswith('Avg. ') or name.startswith('L2 Explicit') or
            name in ('Warp Stall Sampling (Not-issued Samples)', '# Samples', 'Thread Instructions Executed',
                     'Predicated-On Thread Instructions Executed'))


def quoted(fields):
    """one CSV line, every field quoted, as ncu writes them"""
    out = io.StringIO()
    csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator='').writerow(fields)
    return out.getvalue()


def trim(path):
    text = open(path, newline='').read()
    lines = text.split('\n')
    out, header, rows, kept = [], None, 0, 0
    for line in lines:
        if header is None:
            if line.startswith('"Address"'):
                header = next(csv.reader([line]))
                if 'Source' not in header:
                    break
                cols = [i for i, name in enumerate(header) if not DROP(name)]
                src = header.index('Source')
                samples = header.index(SAMPLES) if SAMPLES in header else -1
                line = quoted([header[i] for i in cols])
            out.append(line)
            continue
        if not line:
            out.append(line)
            continue
        rows += 1
        row = next(csv.reader(io.StringIO(line)))
        sampled = samples >= 0 and len(row) > samples and row[samples].replace(',', '') not in ('', '0')
        if kept == 0 or (len(row) > src and KEEP.match(row[src])) or sampled:
            out.append(quoted([row[i] if i < len(row) else '' for i in cols]))
            kept += 1
    if header is None or 'Source' not in header:
        print("trim-source: %s: no \"Address\",...,\"Source\" header: not an ncu source page" % path,
              file=sys.stderr)
        sys.exit(2)
    new = '\n'.join(out)
    open(path, 'w', newline='').write(new)
    print("%s: %d -> %d rows, %d -> %d bytes" % (path, rows, kept, len(text), len(new)))


def main():
    if len(sys.argv) < 2:
        print("usage: trim-source.py CSV...", file=sys.stderr)
        sys.exit(2)
    for path in sys.argv[1:]:
        trim(path)


if __name__ == '__main__':
    main()
