#!/usr/bin/env python3
"""sass-ctrl.py FILE - the control word of every instruction in `cuobjdump -sass`
output (one kernel's, or a whole program's: then each kernel's block follows a
"# Function : NAME" line) (sm_70 and later: two 64-bit words an instruction, the second holding the
scheduling bits in its top 23): the stall cycles, yield, the scoreboard a
variable-latency instruction sets when it writes (wbar) or has read its operands
(rbar), and the scoreboards it waits for (a bit per scoreboard 0-5). docs/findings.md
§12 reads the l2bw loop's with it. The layout is the one documented by the
reverse-engineering literature (Jia et al., "Dissecting the NVIDIA Volta GPU
architecture via microbenchmarking", 2018); nothing here is NVIDIA's."""
import re
import sys


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: sass-ctrl.py FILE")
    lines = open(sys.argv[1]).read().split('\n')
    print("pc      stall yield wbar rbar wait   SASS")
    i = 0
    while i < len(lines):
        f = re.match(r'\s*Function : (\S+)', lines[i])
        if f:  # a whole program's listing: one block per kernel
            print("# Function : %s" % f.group(1))
            i += 1
            continue
        m = re.match(r'\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;\s*/\* (0x[0-9a-f]{16}) \*/', lines[i])
        hi = re.search(r'/\* (0x[0-9a-f]{16}) \*/', lines[i + 1]) if m and i + 1 < len(lines) else None
        if not (m and hi):
            i += 1
            continue
        ctrl = int(hi.group(1), 16) >> 41
        stall, yld = ctrl & 0xf, (ctrl >> 4) & 1
        wbar, rbar, wait = (ctrl >> 5) & 7, (ctrl >> 8) & 7, (ctrl >> 11) & 0x3f
        sb = lambda b: '-' if b == 7 else str(b)
        waits = ','.join(str(b) for b in range(6) if wait >> b & 1) or '-'
        print("0x%s %5d %5d %4s %4s %-6s %s" % (m.group(1), stall, yld, sb(wbar), sb(rbar), waits, m.group(2)))
        i += 2


if __name__ == '__main__':
    main()
