#!/usr/bin/env python3
"""slicecontend-summary.py - what kernels/slicecontend.cu's slice maps of 2 MiB
pages say (docs/findings.md §21).

usage: kernels/probes/slicecontend-summary.py DIR
  DIR  holds pageP.txt or pageP.txt.xz (kernels/probes/slicecontend.sh);
       e.g. traces/h200-probes/slicecontend

Per page: the classes (slices) and their sizes, how many distinct classes
every aligned block of 2^k chunks holds, and against the first page, the
XOR of chunk numbers that maps most of its classes onto the other page's.
"""
import glob
import lzma
import os
import re
import sys


def load(path):
    opener = lzma.open if path.endswith(".xz") else open
    cls = {}
    with opener(path, "rt") as f:
        for line in f:
            if line.startswith("class "):
                _, c, k = line.split()
                cls[int(c)] = int(k)
    groups = {}
    for c, k in cls.items():
        groups.setdefault(k, set()).add(c)
    return cls, set(frozenset(g) for g in groups.values())


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.strip().split("\n\n")[1])
    paths = sorted(glob.glob(os.path.join(sys.argv[1], "page*.txt*")),
                   key=lambda p: int(re.search(r"page(\d+)", p).group(1)))
    if not paths:
        sys.exit("slicecontend-summary.py: no pageP.txt in %s" % sys.argv[1])
    maps = [(p, load(p)) for p in paths]
    first = maps[0][1][1]
    for path, (cls, groups) in maps:
        sizes = sorted(len(g) for g in groups)
        print("== %s: %d chunks in %d classes, sizes %d-%d" % (os.path.basename(path), len(cls), len(groups),
                                                            sizes[0], sizes[-1]))
        for k in range(1, 8):
            b = 1 << k
            d = [len({cls[c] for c in range(s, s + b)}) for s in range(0, len(cls), b)]
            print("  aligned blocks of %3d chunks: %2d-%2d distinct classes" % (b, min(d), max(d)))
        best = max(range(2048), key=lambda x: len({frozenset(c ^ x for c in g) for g in groups} & first))
        n = len({frozenset(c ^ best for c in g) for g in groups} & first)
        print("  against %s: chunk XOR %d makes %d of %d classes the same" % (os.path.basename(maps[0][0]), best, n,
                                                                            len(groups)))


if __name__ == "__main__":
    main()
