#!/usr/bin/env bash
# lrc-group.sh - does the L2 request coalescer merge one- and two-sector
# requests as it merges whole lines, and can one request's data serve many
# SMs? (docs/findings.md §2c). On the GPU machine, from the repository root:
#   kernels/probes/lrc-group.sh DEST [KIB]
# writes DEST/group-SPR-STAGGER.{csv,log}: `lrcpair group KIB SPR STAGGER SM...`
# over the 16 SMs of GPC 0 (§2b's map), k = 2..16 of them reading one buffer,
# the i-th starting i x STAGGER cycles after the first, for requests of 1, 2
# and 4 sectors at once and of 2 sectors staggered; and DEST/cross-SPR.{csv,log}:
# SMs 0 and 2 (GPC 0 and GPC 1), the control that must merge nothing.
set -u -o pipefail
DEST=${1:?usage: lrc-group.sh DEST [KIB]} KIB=${2:-256}
. kernels/probes/ncu-run.sh
BIN=build/kernels/lrcpair
GPC0="0 16 32 48 1 17 33 49 124 125 126 127 128 129 130 131"
mkdir -p "$DEST"
M=$(probe_metrics kernels/probes/lrcgroup.txt)
prof() { probe_run "$DEST" "$1" "$M" "$BIN" "${@:2}"; } # NAME ARGS...: one ncu run of lrcpair
for spr in 1 2 4; do
    # shellcheck disable=SC2086
    prof "group-$spr-0" group "$KIB" "$spr" 0 $GPC0
    prof "cross-$spr" group "$KIB" "$spr" 0 0 2
done
for st in 100 300 1000 3000; do
    # shellcheck disable=SC2086
    prof "group-2-$st" group "$KIB" 2 "$st" $GPC0
done
python3 - "$DEST" <<'PY'
import csv, glob, os, sys
dest = sys.argv[1]
for path in sorted(glob.glob(os.path.join(dest, "*.csv"))):
    rows = {}
    with open(path) as f:
        lines = [l for l in f if l.startswith('"')]
    for r in csv.DictReader(lines):
        rows.setdefault(r["ID"], {})[r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))
    for i, m in sorted(rows.items(), key=lambda kv: int(kv[0])):
        req = m.get("l1tex__m_xbar2l1tex_read_sectors_mem_lg_op_ld.sum", 0)
        got = m.get("lrc__request_sectors_op_read_coalescing_achieved_type_hardware.sum", 0)
        lts = m.get("lts__t_sectors_srcunit_tex_op_read.sum", 0)
        rep = m.get("lrc__lrc2xbar_sectors_op_read_replayed.sum", 0)
        multi = m.get("lrc__xbar2gpc_sectors_op_read.sum", 0) - m.get("lrc__lrc2xbar_sectors_op_read.sum", 0)
        us = m.get("gpu__time_duration.sum", 0) / 1000
        print(f"{os.path.basename(path)[:-4]:12s} k={int(i) + 2:2d}: L1 miss {req:7.0f} merged {got:7.0f}"
              f" ({got / req if req else 0:.3f}) lts {lts:6.0f} replayed {rep:6.0f} multicast {multi:6.0f} {us:6.1f} us")
PY
