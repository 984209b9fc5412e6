# lrc-groups.sh - sourced by the LRC probes of findings §2f (not run alone):
#   G0 .. G3          the SMs the H200 gave transtimed's reading CTAs in a launch
#                     of 128 CTAs, QMASK 1 (traces/h200-probes/lrc-bisect/summary.txt):
#                     group g = the SMs of CTAs 32 g .. 32 g + 28, the readers of
#                     sector g of the same lines
#   sm_off OFF SM...  "SM:OFF" for each SM (lrcpair strideg's argument form)
#   farlat_map DEST SM...
#                     the GPU's name and UUID into DEST/chip.txt, farlat from SM 0 to
#                     each SM into DEST/farlat.txt; prints both, a line per SM ("B slow":
#                     lines SM B finds far, so B is in the other L2 partition)
# shellcheck shell=bash disable=SC2034 # the groups are for the scripts that source this
G0="124 128 8 40 70 98 10 42"
G1="72 100 12 44 74 102 14 46"
G2="76 104 0 32 2 34 64 92"
G3="4 36 66 94 6 38 68 96"

sm_off() {
    local o=$1 s
    shift
    for s in "$@"; do printf '%s:%s ' "$s" "$o"; done
}

farlat_map() {
    local dest=$1
    shift
    nvidia-smi --query-gpu=name,uuid,serial,pci.bus_id --format=csv >"$dest/chip.txt" 2>&1
    cat "$dest/chip.txt"
    build/kernels/farlat 1024 0 "$@" 2>"$dest/farlat.txt" >/dev/null
    grep -o "A [0-9]* B [0-9]*:\|B slow[^;]*" "$dest/farlat.txt" | paste - - | sed 's/ B slow (> median + 40)//'
}
