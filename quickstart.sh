#!/bin/sh
# quickstart.sh - on a fresh Debian 12 machine: install what is missing, build,
# and simulate a shipped H200 trace with the H200 config.
#
#   ./quickstart.sh              install missing packages, build, run the main job
#   ./quickstart.sh --deps-only  only install missing packages (used by .ci/run)
set -eu
cd "$(dirname "$0")"

# liblzma-dev: .traceg.xz files of `trace import --accelsim`; clang and libclang-rt-dev:
# the fuzz harnesses (make check-fuzz, part of make check)
PACKAGES="make gcc libc6-dev pkg-config check libinih-dev libzstd-dev liblzma-dev clang libclang-rt-dev"

missing=""
for p in $PACKAGES; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    echo "quickstart: installing:$missing" >&2
    if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
    $SUDO apt-get update -qq
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null
fi
[ "${1:-}" = "--deps-only" ] && exit 0

make -s
TRACE=traces/h200/readSegment_off11.trace
echo "quickstart: build/gpumemsim run --config configs/h200.ini $TRACE" >&2
exec build/gpumemsim run --config configs/h200.ini "$TRACE"
