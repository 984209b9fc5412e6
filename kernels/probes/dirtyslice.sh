#!/usr/bin/env bash
# dirtyslice.sh - what holds the L2's dirty data to ~26 MiB (docs/findings.md
# §3b): a limit per slice (or set), or one over the whole L2? slicecontend
# labels every 1 KiB chunk of 32 pages (64 MiB) with its slice class, then
# writes only one class's chunks (one slice of each partition takes them
# all), a few classes, or all, and reads some twice
# (kernels/slicecontend.cu, dirty_probe). On the GPU machine, after
# make -C kernels $PWD/build/kernels/slicecontend:
#   kernels/probes/dirtyslice.sh DEST [RUNS]
#   DEST/dirty-R.csv   ncu's rows of run R (one row a metric a launch of writeChunks/readChunks)
#   DEST/dirty-R.log   its stderr: "dirty K write|read classes C0-C1 pages P chunks N KiB B", in launch order
#   DEST/dirty-R.txt   slicecontend's stdout (the maps)
#   DEST/summary.txt   one line a launch: what it wrote or read, then the metrics
set -u -o pipefail
DEST=${1:?usage: dirtyslice.sh DEST [RUNS]}
RUNS=${2:-2}
NCU=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
M=dram__sectors_write.sum,dram__sectors_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_tex_op_write.max,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum
mkdir -p "$DEST" || exit 2
status=0
for r in $(seq 1 "$RUNS"); do
    echo "[$(date +%T)] run $r" >&2
    timeout --kill-after=10 280 "$NCU" --csv --clock-control none --log-file "$DEST/dirty-$r.csv" \
        -k regex:Chunks --metrics "$M" build/kernels/slicecontend 64 0 0 32 dirty \
        >"$DEST/dirty-$r.txt" 2>"$DEST/dirty-$r.log" || { echo "run $r failed (rc $?)" >&2; status=1; }
done
python3 - "$DEST" "$RUNS" >"$DEST/summary.txt" <<'PY'
import csv, sys
dest, runs = sys.argv[1], int(sys.argv[2])
for r in range(1, runs + 1):
    try:
        names = [l.split(None, 2)[2].strip() for l in open(f"{dest}/dirty-{r}.log") if l.startswith("dirty ")]
        rows = [row for row in csv.reader(open(f"{dest}/dirty-{r}.csv")) if len(row) > 10]
    except OSError as e:
        print(f"run {r}: {e}")
        continue
    head, vals = rows[0], {}
    idx, mi, vi = head.index("ID"), head.index("Metric Name"), head.index("Metric Value")
    for row in rows[1:]:
        vals.setdefault(int(row[idx]), {})[row[mi]] = row[vi].replace(",", "")
    short = lambda m: m.replace("lts__t_sectors_srcunit_tex_op_", "l2_").replace("dram__sectors_", "dram_").replace(".sum", "")
    for k in sorted(vals):
        print(f"run {r} | {names[k] if k < len(names) else '?'} | " +
              " ".join(f"{short(m)}={v}" for m, v in sorted(vals[k].items())))
PY
cat "$DEST/summary.txt"
exit $status
