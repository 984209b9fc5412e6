#!/bin/sh
# hygiene.sh - two rules of docs/architecture.md that a compiler does not
# check: every header compiles on its own (it includes what it uses), and
# every symbol the library exports carries its module's prefix (model/foo.c
# exports foo_*; the first word of a two-word module name is enough:
# trace_text.c exports trace_*, ncu_csv.c ncu_*). Exceptions, by name: stats.c
# also exports stat_* (one statistic), err.c the x* allocators.
# usage: tests/hygiene.sh LIBRARY   (build/libgpumemsim.a); exit 0 or 1
set -eu
lib=${1:?usage: tests/hygiene.sh LIBRARY}
cc=${CC:-cc}
fail=0

for h in model/*.h sim/*.h capture/host/*.h; do
    [ -f "$h" ] || continue
    if ! printf '#include "%s"\n' "$h" |
        $cc -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -fsyntax-only \
            -Imodel -Isim -Icapture/host -x c - 2>/tmp/hygiene.$$; then
        echo "hygiene: $h does not compile on its own:"; sed 's/^/    /' /tmp/hygiene.$$
        fail=1
    fi
done
rm -f /tmp/hygiene.$$

# "member.o symbol" for every defined global symbol of the archive
nm -g --defined-only "$lib" | awk '/:$/ { obj = substr($1, 1, length($1) - 1); next }
                                   NF == 3 { print obj, $3 }' >/tmp/hygiene-syms.$$
n=0
while read -r obj sym; do
    n=$((n + 1))
    mod=${obj%.o}
    first=${mod%%_*}
    case $sym in
    "${mod}"_* | "${first}"_*) continue ;;
    esac
    case $mod:$sym in
    stats:stat_* | err:xmalloc | err:xcalloc | err:xcalloc_lines | err:xrealloc | err:xstrdup) continue ;;
    esac
    echo "hygiene: $lib: $obj exports '$sym', which lacks the module prefix '${first}_'"
    fail=1
done </tmp/hygiene-syms.$$
rm -f /tmp/hygiene-syms.$$
[ "$n" -gt 0 ] || { echo "hygiene: $lib: no symbols read (nm failed?)"; exit 1; }
[ $fail -eq 0 ] && echo "hygiene: ok ($n exported symbols, every header alone)"
exit $fail
