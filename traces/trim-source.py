#!/usr/bin/env python3
"""trim-source.py CSV... - keep of ncu's source page (NAME.source.csv, one row
per SASS instruction) what `gpumemsim validate --per-pc` reads: the lines
before the column header, the header, the kernel's first instruction (its
address is where the kernel starts) and the rows of memory instructions and
barriers. The rows of the other instructions (ALU, branches, ...) carry no
memory counter; a library kernel has thousands of them (PyTorch's reduce_kernel
3,776 rows, 1.2 MB), so they are dropped before a capture is committed.

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


def trim(path):
    text = open(path, newline='').read()
    lines = text.split('\n')
    out, header, rows, kept = [], None, 0, 0
    for line in lines:
        if header is None:
            out.append(line)
            if line.startswith('"Address"'):
                header = next(csv.reader([line]))
                if 'Source' not in header:
                    break
                src = header.index('Source')
            continue
        if not line:
            out.append(line)
            continue
        rows += 1
        row = next(csv.reader(io.StringIO(line)))
        if kept == 0 or (len(row) > src and KEEP.match(row[src])):
            out.append(line)
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
