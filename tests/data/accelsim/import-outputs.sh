#!/bin/sh
# import-outputs.sh - import every Accel-Sim input under tests/data/accelsim/
# and fuzz/seeds/accelsim/ with several interleaving options, text and binary,
# into DIR, plus the summary lines and messages; used to show that a change to
# model/trace_accelsim*.c leaves the imported bytes as they were:
#   tests/data/accelsim/import-outputs.sh build/gpumemsim /tmp/before
#   ...change, rebuild...
#   tests/data/accelsim/import-outputs.sh build/gpumemsim /tmp/after
#   diff -r /tmp/before /tmp/after
# Run from the repository root.
set -u
gms=${1:?usage: import-outputs.sh GPUMEMSIM DIR}
out=${2:?usage: import-outputs.sh GPUMEMSIM DIR}
mkdir -p "$out"
n=0
for in in tests/data/accelsim/*/kernelslist.g tests/data/accelsim/*/*.traceg \
          tests/data/accelsim/*/*.traceg.xz fuzz/seeds/accelsim/*.traceg; do
    [ -f "$in" ] || continue
    name=$(echo "$in" | tr '/' '_')
    for opts in "" "--sm-count 1" "--sm-count 2" "--sm-count 7" "--sm-count 1 --ctas-per-sm 1" \
                "--sm-count 3 --ctas-per-sm 2" "--ctas-per-sm 64"; do
        o=$(echo "x $opts" | tr ' -' '__')
        for fmt in text binary; do
            f="$out/$name$o.$fmt"
            # shellcheck disable=SC2086
            "$gms" trace import --accelsim "$in" $opts $([ $fmt = text ] && echo --text) \
                -o "$f" >"$f.stdout" 2>"$f.stderr"
            echo "rc $?" >>"$f.stdout"
            sed -i "s|$out/||" "$f.stdout" "$f.stderr"
            n=$((n + 1))
        done
    done
done
echo "import-outputs: $n imports in $out"
