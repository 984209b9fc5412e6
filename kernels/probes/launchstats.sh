#!/usr/bin/env bash
# launchstats.sh - ncu's launch statistics and occupancy limits of every
# experiment of the suite (kernels/experiments.txt): the shared-memory
# configuration (carveout) the driver chose, the driver's shared memory per
# CTA, and what limits the CTAs per SM (docs/findings.md §3e). Writes
# DEST/NAME.launch.csv (ncu --csv) and prints, last, one line per experiment.
# On the GPU machine, after make -C kernels:
#   kernels/probes/launchstats.sh DEST
set -u -o pipefail
DEST=${1:?usage: launchstats.sh DEST}
NCU=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
mkdir -p "$DEST" || exit 2
while read -r name prog args; do
    case $name in ''|'#'*) continue ;; esac
    # shellcheck disable=SC2086 # args are words from experiments.txt
    timeout --kill-after=10 120 "$NCU" --csv --clock-control none --section LaunchStats --section Occupancy \
        build/kernels/$prog $args </dev/null >"$DEST/$name.launch.csv" 2>>"$DEST/launchstats.log" ||
        echo "$name: ncu failed" >&2
done < kernels/experiments.txt
python3 - "$DEST" <<'PY'
import csv, glob, os, sys
want = ["Block Size", "Registers Per Thread", "Static Shared Memory Per Block", "Dynamic Shared Memory Per Block",
        "Shared Memory Configuration Size", "Block Limit Registers", "Block Limit Shared Mem", "Block Limit Warps",
        "Block Limit SM"]
print("name," + ",".join(w.replace(" ", "_") for w in want))
for p in sorted(glob.glob(os.path.join(sys.argv[1], "*.launch.csv"))):
    rows = [l for l in open(p) if l.startswith('"')]
    d = {}
    for r in csv.DictReader(rows):
        d.setdefault(r["Metric Name"], r["Metric Value"].replace(",", ""))
    print(os.path.basename(p)[:-len(".launch.csv")] + "," + ",".join(d.get(w, "?") for w in want))
PY
