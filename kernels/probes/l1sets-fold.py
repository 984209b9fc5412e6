#!/usr/bin/env python3
"""l1sets-fold.py FILE... - L1's set index from kernels/l1sets.cu's output
(docs/findings.md §3f).

FILE holds "target T set: Y..." lines (l1sets POOL SPAN T...: the lines of
the buffer that share T's set, T's own 4-line eviction set beside them) and/or
"bit J: X" lines (l1sets high T0 MAXBIT: the set-index bits that line-number
bit J flips). For each set list the script checks that T XOR Y is closed
under XOR (an index that is a XOR of address bits) and prints, for every line
bit above the index's own 9 bits, the index bits it flips, in the form
`set = line[8:0] ^ mask(bit 9) ^ mask(bit 10) ^ ...` needs. Sets found by a
reduction that stalled at the L1's capacity (ways well above 4) are skipped:
they are not sets."""
import sys

INDEX_BITS = 9


def echelon(vectors):
    """reduced basis, pivot = highest bit: {bit: vector}"""
    basis = {}
    for v in sorted(vectors):
        x = v
        for b in sorted(basis, reverse=True):
            if x >> b & 1:
                x ^= basis[b]
        if x:
            hb = x.bit_length() - 1
            for b in list(basis):
                if basis[b] >> hb & 1:
                    basis[b] ^= x
            basis[hb] = x
    return basis


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: l1sets-fold.py FILE...")
    masks = {}
    for path in sys.argv[1:]:
        ways = {}
        with open(path) as f:
            for line in f:
                if line.startswith("target") and " ways " in line.split(":")[0]:
                    head = line.split(":")[0].split()
                    ways[int(head[1])] = int(head[3])
                elif line.startswith("target") and " set:" in line:
                    head, rest = line.split(":", 1)
                    t = int(head.split()[1])
                    if ways.get(t, 0) > 16:
                        print(f"{path}: target {t}: eviction set of {ways[t]} lines (a stalled reduction), skipped")
                        continue
                    members = [t] + [int(y) for y in rest.split()]
                    kernel = {y ^ t for y in members}
                    closed = all((a ^ b) in kernel for a in kernel for b in kernel)
                    print(f"{path}: target {t}: {len(members)} lines in its set, XOR-closed: {closed}")
                    for b, v in echelon(kernel).items():
                        mask = v & ((1 << INDEX_BITS) - 1)
                        if b >= INDEX_BITS and v >> INDEX_BITS == 1 << (b - INDEX_BITS):
                            masks.setdefault(b, set()).add(mask)
                elif line.startswith("bit "):
                    b, xs = line.split(":")
                    for x in xs.split():
                        masks.setdefault(int(b.split()[1]), set()).add(int(x))
    print("line bit -> set-index bits it flips (mask)")
    for b in sorted(masks):
        ms = sorted(masks[b])
        shown = ", ".join(f"{m:#05x} {[i for i in range(INDEX_BITS) if m >> i & 1]}" for m in ms)
        print(f"  {b:2d}: {shown}" + ("   DISAGREE" if len(ms) > 1 else ""))


if __name__ == "__main__":
    main()
