#!/usr/bin/env python3
"""l2capacity.py - how much the L2 keeps, the model beside the H200.

The H200's DRAM traffic of kernels whose footprint nears the L2's size
(docs/findings.md §3b-3c, §3h): fill (writes only, 16 to 48 MiB), writeSegment
at offset 0 (C = A + B, 8 to 64 MiB written while twice that is read), and
reread (a second launch reading again what the first read or wrote, the
caches as the first left them). The same address streams are generated here
as text traces (the SMs' CTAs in order, CTA c on SM c % 132) and piped to
`BIN run`; the H200's values are the committed ncu rows of
traces/h200-probes/measure.{fill,gwrite,reread}.txt.

usage: bench/l2capacity.py BIN [CONFIG] [--only REGEX]
       (CONFIG defaults to configs/h200.ini; reread runs with
       cold_caches_per_kernel = false, as ncu --cache-control none measured it)
Prints one line a case and metric: H200, model, the model's error and
whether it is within validate's DRAM tolerance (5%, or the floor of an empty
kernel's background traffic); then how many are, the mean absolute error of
dram__sectors_write.sum over the cases, and the sectors missed in all per
metric (rr's DRAM writes left out: nothing the trace holds is dirty).
Progress on stderr. Exit: 0, 1 when the model's run fails, 2 on a bad
command line or BIN.
"""
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROBES = os.path.join(ROOT, "traces", "h200-probes")
BASE = 0x7F0000000000
LIST = 0x7F8000000000  # the dirty probe's list of chunks
PAGE = 2 << 20
SMS = 132

# name -> (measure file, kind, floats)
CASES = [
    ("fill_16m", "fill", "fill", 4194304),
    ("fill_20m", "fill", "fill", 5242880),
    ("fill_24m", "fill", "fill", 6291456),
    ("fill_32m", "fill", "fill", 8388608),
    ("fill_40m", "fill", "fill", 10485760),
    ("fill_48m", "fill", "fill", 12582912),
    ("gw_n21", "gwrite", "gw", 2097152),
    ("gw_n22", "gwrite", "gw", 4194304),
    ("gw_n23", "gwrite", "gw", 8388608),
    ("rr_24m", "reread", "rr", 6291456),
    ("rr_32m", "reread", "rr", 8388608),
    ("rr_40m", "reread", "rr", 10485760),
    ("rr_48m", "reread", "rr", 12582912),
    ("rw_24m", "reread", "rw", 6291456),
    ("rw_32m", "reread", "rw", 8388608),
    ("rw_48m", "reread", "rw", 12582912),
    # fill.cu's READS (findings §3h): N floats written while R x N are read
    # in the same kernel (N in MiB, then R, in the name)
    ("mx_16_r1", "mix", "mx", (4194304, 1)),
    ("mx_16_r2", "mix", "mx", (4194304, 2)),
    ("mx_16_r3", "mix", "mx", (4194304, 3)),
    ("mx_8_r2", "mix", "mx", (2097152, 2)),
    ("mx_8_r4", "mix", "mx", (2097152, 4)),
    ("mx_8_r6", "mix", "mx", (2097152, 6)),
    ("mx_24_r1", "mix", "mx", (6291456, 1)),
    # reread.cu's mode other (findings §3h): launch 0 leaves N floats dirty,
    # launch 1 reads M floats of another buffer (N, then M in the name, MiB)
    ("ed_12_24", "evictdirty", "ed", (3145728, 6291456)),
    ("ed_12_32", "evictdirty", "ed", (3145728, 8388608)),
    ("ed_12_40", "evictdirty", "ed", (3145728, 10485760)),
    ("ed_12_48", "evictdirty", "ed", (3145728, 12582912)),
    ("ed_24_24", "evictdirty", "ed", (6291456, 6291456)),
    ("ed_24_32", "evictdirty", "ed", (6291456, 8388608)),
    # slicecontend's dirty probe (findings §3h): one kernel writes every
    # chunk of P pages, or reads them twice (its second pass's misses)
    ("wc_18m", "dirtyslice", "wc", 4718592),
    ("wc_22m", "dirtyslice", "wc", 5767168),
    ("wc_26m", "dirtyslice", "wc", 6815744),
    ("wc_28m", "dirtyslice", "wc", 7340032),
    ("rc_28m", "dirtyslice", "rc", 7340032),
    ("rc_32m", "dirtyslice", "rc", 8388608),
    ("rc_36m", "dirtyslice", "rc", 9437184),
    ("rc_40m", "dirtyslice", "rc", 10485760),
    ("rc_44m", "dirtyslice", "rc", 11534336),
    ("rc_48m", "dirtyslice", "rc", 12582912),
]
# the dirty probe's grid: 264 CTAs of 8 warps, warp w taking chunks w, w + 2,112, ...
CHUNK_WARPS = 264 * 8
SECOND_PASS = "second_pass_misses"  # L2 read lookup misses beyond the footprint (and, on the
                                    # H200, the list of chunks each warp reads)
METRICS = ["dram__sectors_write.sum", "dram__sectors_read.sum"]
# validate's DRAM tolerance (sim/validate.c): 5%, or the empty kernel's
# background floor (docs/findings.md §1)
FLOOR = {"dram__sectors_write.sum": 321, "dram__sectors_read.sum": 256}


def measured_dirty(case, n):
    """The H200's values of a dirty-probe case (run 1) from dirtyslice/summary.txt."""
    kind, pages = case[:2], n * 4 // PAGE
    what = "write" if kind == "wc" else "read"
    want = "run 1 | %s classes 0-46 pages %d " % (what, pages)
    with open(os.path.join(PROBES, "dirtyslice", "summary.txt")) as f:
        for line in f:
            if line.startswith(want):
                v = {k: int(x) for k, x in (w.split("=") for w in line.split("|")[2].split())}
                got = {"dram__sectors_write.sum": v["dram_write"], "dram__sectors_read.sum": v["dram_read"]}
                if kind == "rc":  # the footprint's sectors and the chunk list's (4 B a chunk)
                    got[SECOND_PASS] = v["l2_read_lookup_miss"] - n * 4 // 32 - (n // 256) * 4 // 32
                return got
    sys.exit("l2capacity: dirtyslice/summary.txt: no row %s" % want.strip())


def measured(fname, case, n):
    """The H200's values of case (first run) from measure.FNAME.txt."""
    if fname == "dirtyslice":
        return measured_dirty(case, n)
    with open(os.path.join(PROBES, "measure.%s.txt" % fname)) as f:
        for line in f:
            fields = line.split()
            if len(fields) > 2 and fields[0] == case:
                return {k: int(v) for k, v in (x.split("=") for x in fields[2:])}
    sys.exit("l2capacity: %s: no row %s" % (fname, case))


def record(f, kind, cta, warp, base):
    f.write("%s global 4 cta=%d warp=%d sm=%d pc=0x%x mask=0xffffffff base=0x%x stride=4\n"
            % (kind, cta, warp, cta % SMS, 0x80 if kind == "ld" else 0x90, base))


def kernel(f, launch, name, ctas, block, body):
    """One launch: body(cta, warp) writes each warp's records."""
    f.write('kernel launch=%d grid=%d,1,1 block=%d,1,1 name="%s"\n' % (launch, ctas, block, name))
    f.write('pc 0x0080 "LDG.E R0, desc[UR4][R2.64]"\npc 0x0090 "STG.E desc[UR4][R2.64], R0"\n')
    n = 0
    for c in range(ctas):
        for w in range(block // 32):
            n += body(c, w)
    f.write("end kernel mem=%d bar=0\n" % n)


def trace(f, kind, n):
    """The text trace of case kind with n floats."""
    f.write('gpumemsim-trace 1\nmeta gpu "NVIDIA H200"\nmeta sm_count "132"\n\n')
    if kind == "fill":  # fill.cu: out[i] = i, 256 threads a CTA
        def body(c, w):
            record(f, "st", c, w, BASE + (c * 256 + w * 32) * 4)
            return 1
        kernel(f, 0, "fillKernel", n // 256, 256, body)
        kernels = 1
    elif kind == "gw":  # writeSegment.cu at offset 0: C[i] = A[i] + B[i], 512 threads a CTA
        span = (n * 4 + PAGE - 1) // PAGE * PAGE
        a, b, cc = BASE, BASE + span, BASE + 2 * span
        def body(c, w):
            off = (c * 512 + w * 32) * 4
            record(f, "ld", c, w, a + off)
            record(f, "ld", c, w, b + off)
            record(f, "st", c, w, cc + off)
            return 3
        kernel(f, 0, "writeOffset", n // 512, 512, body)
        kernels = 1
    elif kind in ("wc", "rc"):  # slicecontend.cu's writeChunks / readChunks over every chunk
        chunks = n // 256
        op = "st" if kind == "wc" else "ld"
        per_warp = {}
        for p in range(1 if kind == "wc" else 2):
            for i in range(chunks):
                w = i % CHUNK_WARPS
                per_warp.setdefault(w, []).append(i)
        f.write('kernel launch=0 grid=264,1,1 block=256,1,1 name="%s"\n'
                % ("writeChunks" if kind == "wc" else "readChunks"))
        f.write('pc 0x0070 "LDG.E R4, desc[UR4][R4.64]"\n'
                'pc 0x0080 "LDG.E.STRONG.GPU R0, desc[UR4][R2.64]"\npc 0x0090 "STG.E desc[UR4][R2.64], R0"\n')
        m = 0
        for p in range(1 if kind == "wc" else 2):  # the passes in order, the warps' chunks interleaved
            for i in range(chunks):
                w = i % CHUNK_WARPS
                # chunks[i]: every lane the same word of the list
                f.write("ld global 4 cta=%d warp=%d sm=%d pc=0x70 mask=0xffffffff base=0x%x stride=0\n"
                        % (w // 8, w % 8, (w // 8) % SMS, LIST + 4 * i))
                m += 1
                for l in range(8):
                    f.write("%s global 4 cta=%d warp=%d sm=%d pc=0x%x cache=cg mask=0xffffffff base=0x%x stride=4\n"
                            % (op, w // 8, w % 8, (w // 8) % SMS, 0x80 if op == "ld" else 0x90,
                               BASE + i * 1024 + l * 128))
                    m += 1
        f.write("end kernel mem=%d bar=0\n" % m)
        kernels = 1
    elif kind == "mx":  # fill.cu with READS: thread i reads float i of R regions, then writes out[i]
        n0, reads = n
        span = (n0 * 4 + PAGE - 1) // PAGE * PAGE
        src = BASE + span + PAGE
        def body(c, w):
            off = (c * 256 + w * 32) * 4
            for r in range(reads):
                record(f, "ld", c, w, src + r * n0 * 4 + off)
            record(f, "st", c, w, BASE + off)
            return reads + 1
        kernel(f, 0, "fillKernel", n0 // 256, 256, body)
        kernels = 1
    elif kind == "ed":  # reread.cu's mode other: launch 0 writes N floats, launch 1 reads M elsewhere
        n0, m1 = n
        other = BASE + (n0 * 4 + PAGE - 1) // PAGE * PAGE + PAGE
        def first(c, w):
            record(f, "st", c, w, BASE + (c * 256 + w * 32) * 4)
            return 1
        def again(c, w):
            record(f, "ld", c, w, other + (c * 256 + w * 32) * 4)
            return 1
        kernel(f, 0, "writeKernel", n0 // 256, 256, first)
        f.write("\n")
        kernel(f, 1, "readAgain", m1 // 256, 256, again)
        kernels = 2
    else:  # reread.cu: launch 0 reads (rr) or writes (rw), launch 1 reads again; 256 threads
        op = "ld" if kind == "rr" else "st"
        def first(c, w):
            record(f, op, c, w, BASE + (c * 256 + w * 32) * 4)
            return 1
        def again(c, w):
            record(f, "ld", c, w, BASE + (c * 256 + w * 32) * 4)
            return 1
        kernel(f, 0, "readKernel" if kind == "rr" else "writeKernel", n // 256, 256, first)
        f.write("\n")
        kernel(f, 1, "readAgain", n // 256, 256, again)
        kernels = 2
    f.write("end trace kernels=%d complete\n" % kernels)


def model(binary, config, kind, n):
    """The model's counters of the measured launch (the last one)."""
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        trace(f, kind, n)
        path = f.name
    try:
        done = subprocess.run([binary, "run", "--config", config, "--format", "csv", path],
                              capture_output=True, text=True)
    finally:
        os.unlink(path)
    if done.returncode != 0:
        last = done.stderr.strip().splitlines()[-1:] or ["no message"]
        print("l2capacity: %s run failed (exit %d): %s" % (binary, done.returncode, last[0]), file=sys.stderr)
        sys.exit(1)
    out = done.stdout
    last = "1" if kind in ("rr", "rw", "ed") else "0"
    got = {}
    for line in out.splitlines():
        parts = line.rsplit(",", 3)
        if len(parts) == 4 and parts[1] == last:
            got[parts[2]] = int(float(parts[3]))
    if kind == "rc":  # less the footprint and the list (4 B a chunk), as measured_dirty
        got[SECOND_PASS] = (got.get("lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum", 0) - n * 4 // 32 -
                            (n // 256) * 4 // 32)
    return got


def main():
    args = sys.argv[1:]
    only = None
    if "--only" in args:
        i = args.index("--only")
        only = re.compile(args[i + 1])
        del args[i:i + 2]
    if not 1 <= len(args) <= 2:
        print(__doc__.split("\n\n")[2], file=sys.stderr)
        sys.exit(2)
    binary = args[0]
    if not os.access(binary, os.X_OK):
        print("l2capacity: %s: not an executable gpumemsim" % binary, file=sys.stderr)
        sys.exit(2)
    config = args[1] if len(args) == 2 else os.path.join(ROOT, "configs", "h200.ini")
    try:
        with open(config) as f:
            text = f.read()
    except OSError as e:
        print("l2capacity: %s: %s" % (config, e.strerror), file=sys.stderr)
        sys.exit(2)
    warm = re.sub(r"(?m)^cold_caches_per_kernel\s*=\s*true", "cold_caches_per_kernel = false", text)
    if warm == text:
        print("l2capacity: %s: no 'cold_caches_per_kernel = true' line to turn off" % config, file=sys.stderr)
        sys.exit(2)
    with tempfile.NamedTemporaryFile("w", suffix=".ini", delete=False) as f:
        f.write(warm)
        warm_config = f.name
    errs, within, compared = [], 0, 0
    missed = {m: 0 for m in METRICS}  # sum of |model - H200|, sectors
    print("%-9s %-24s %10s %10s %8s  %s" % ("case", "metric", "H200", "model", "error", "5% or floor"))
    try:
        for name, fname, kind, n in CASES:
            if only and not only.search(name):
                continue
            print("l2capacity: %s" % name, file=sys.stderr, flush=True)
            hw = measured(fname, name, n)
            got = model(binary, warm_config if kind in ("rr", "rw", "ed") else config, kind, n)
            for m in METRICS + ([SECOND_PASS] if kind == "rc" else []):
                h, g = hw[m], got.get(m, 0)
                rel = (g - h) / h if h else 0.0
                if m == SECOND_PASS:
                    verdict = "(info)"  # part of the DRAM reads above
                elif kind in ("rr", "rc") and m == "dram__sectors_write.sum":
                    # nothing of the trace is dirty: the H200 writes back what
                    # the program's earlier work and the profiler left
                    verdict = "not in the trace"
                else:
                    ok = abs(g - h) <= max(0.05 * h, FLOOR[m])
                    verdict = "pass" if ok else "FAIL"
                    within += ok
                    compared += 1
                    missed[m] += abs(g - h)
                    if m == "dram__sectors_write.sum":
                        errs.append(abs(rel))
                print("%-9s %-24s %10d %10d %+7.1f%%  %s" % (name, m, h, g, 100 * rel, verdict))
    finally:
        os.unlink(warm_config)
    if compared:
        print("%d of %d within 5%% or the floor; dram__sectors_write.sum: mean absolute error %.1f%% over %d cases"
              % (within, compared, 100 * sum(errs) / len(errs), len(errs)))
        print("sectors missed in all (sum of |model - H200|): " +
              ", ".join("%s %d" % (m, missed[m]) for m in METRICS))


if __name__ == "__main__":
    main()
