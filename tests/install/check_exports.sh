#!/usr/bin/env bash
# libhiprim.so exports exactly the C API: every defined dynamic symbol is a function declared in
# include/hiprim/hiprim.h (nothing of C++, the static libraries or the runtimes leaks), every such
# function is exported, and the SONAME is libhiprim.so.<major>.
# Usage: check_exports.sh LIBRARY HEADER MAJOR
set -euo pipefail
lib=$1 header=$2 major=$3
fail=0
exported=$(nm -D --defined-only "$lib" | awk '$2 != "A" {print $3}' | sed 's/@.*//' | sort -u)
declared=$(grep -oE '\bhiprim[A-Z][A-Za-z0-9_]*\(' "$header" | tr -d '(' | sort -u)
[ -n "$declared" ] || { echo "no hiprim* declarations found in $header"; exit 1; }
extra=$(comm -23 <(echo "$exported") <(echo "$declared"))
missing=$(comm -13 <(echo "$exported") <(echo "$declared"))
if [ -n "$extra" ]; then echo "exported but not in hiprim.h:"; echo "$extra" | head -20; fail=1; fi
if [ -n "$missing" ]; then echo "declared in hiprim.h but not exported:"; echo "$missing"; fail=1; fi
soname=$(objdump -p "$lib" | awk '$1 == "SONAME" {print $2}')
if [ "$soname" != "libhiprim.so.$major" ]; then echo "SONAME '$soname', want libhiprim.so.$major"; fail=1; fi
[ $fail -eq 0 ] && echo "libhiprim.so: $(echo "$exported" | wc -l) exported symbols, all of hiprim.h; SONAME $soname"
exit $fail
