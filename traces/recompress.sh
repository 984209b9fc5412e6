#!/usr/bin/env bash
# recompress.sh - rewrite binary traces at zstd level 19 (about 15% smaller than
# the capture tool's default level 3; the repository keeps its traces small),
# checking that each one's text form is unchanged before it is replaced.
#   traces/recompress.sh [BIN] [FILE_OR_DIR...]   (default: build/gpumemsim, traces/)
# Run it here after fetching new captures; the GPU machine compresses at level 3
# so that capturing stays fast. Prints one line per trace: old -> new bytes.
set -u -o pipefail
BIN=${1:-build/gpumemsim}
shift || true
[ -x "$BIN" ] || { echo "recompress.sh: no gpumemsim at $BIN (make first)" >&2; exit 2; }
TMP=$(mktemp --suffix=.trace) || exit 2
trap 'rm -f "$TMP"' EXIT
status=0
while IFS= read -r -d '' f; do
    head -c 15 "$f" | grep -q "gpumemsim-trace" && continue # a text trace: left as it is
    # tests/golden/run.sh cuts this one at byte 1,030 of its 1,031 and compares
    # its `trace info` (bytes included): it stays as captured
    case $f in */h200/matrixMul_tiny_naive.trace) echo "$f kept (a golden fixture)"; continue ;; esac
    if ! "$BIN" trace dump --allow-incomplete --binary --zstd-level 19 -o "$TMP" "$f" 2>/dev/null; then
        echo "recompress.sh: $f: cannot be read; left as it is" >&2; status=1; continue
    fi
    if ! cmp -s <("$BIN" trace dump --allow-incomplete "$f" 2>/dev/null) \
                <("$BIN" trace dump --allow-incomplete "$TMP" 2>/dev/null); then
        echo "recompress.sh: $f: the rewritten trace differs; left as it is" >&2; status=1; continue
    fi
    a=$(stat -c %s "$f") b=$(stat -c %s "$TMP")
    if [ "$b" -lt "$a" ]; then cp "$TMP" "$f" && echo "$f $a -> $b"; else echo "$f $a (kept)"; fi
done < <(find "${@:-traces}" -name '*.trace' -print0 | sort -z)
exit $status
