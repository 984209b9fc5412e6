#!/bin/sh
# explain-agreement.sh - where the timing model's warps wait against where
# the H200's do, over the whole suite: `gpumemsim explain --timing`'s
# agreement for every capture of traces/h200 with a source view beside it,
# then the means (PyTorch's kernels, the others, all). The numbers
# docs/findings.md §23 quotes; not part of `make check` (63 explain runs).
#
#   tests/explain-agreement.sh BIN [CONFIG]
set -eu
BIN=${1:?usage: explain-agreement.sh BIN [CONFIG]}
CONFIG=${2:-configs/h200.ini}
for t in traces/h200/*.trace; do
    [ -f "${t%.trace}.source.csv" ] || continue
    a=$("$BIN" explain --config "$CONFIG" --timing "$t" | sed -n 's/^agreement: \([0-9]*\)%.*/\1/p')
    [ -n "$a" ] && echo "$(basename "$t" .trace) $a"
done | awk '{ print; if ($1 ~ /^torch_/) { t += $2; nt++ } else { o += $2; no++ } }
            END { printf "mean agreement: PyTorch %.1f%% over %d, the others %.1f%% over %d, all %.1f%% over %d\n",
                         t / nt, nt, o / no, no, (t + o) / (nt + no), nt + no }'
