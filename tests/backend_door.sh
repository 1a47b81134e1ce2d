#!/bin/sh
# backend_door.sh CC INCLUDE MODULES_DIR BUILD_DIR: the backends reach the core through
# the door alone. Every symbol that a backend's object uses and a core object defines
# must be declared by device/backend_api.h (what it includes counted): a backend that
# declared a core function of its own, or took one through a header the include rule
# missed, fails. The include rule itself is module_boundaries'.
set -eu
cc=$1 include=$2 roots=$3 build=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '#include "device/backend_api.h"\n' |
  "$cc" -E -D_GNU_SOURCE -I"$include" -I"$roots/tandem_backend_reference" -x c - |
  tr -c 'A-Za-z0-9_' '\n' | sort -u > "$work/declared"
objects() { # the objects of a tree's object libraries
  find "$build/$1" -path '*/CMakeFiles/*.dir/*' -name '*.c.o'
}
objects core | xargs nm -g --defined-only | awk 'NF == 3 { print $3 }' | sort -u > "$work/core"
objects backends | xargs nm -u | awk '{ print $NF }' | sort -u > "$work/used"
[ -s "$work/core" ] && [ -s "$work/used" ] || { echo "FAIL: no objects under $build"; exit 1; }
comm -12 "$work/core" "$work/used" > "$work/crossing"
outside=$(comm -23 "$work/crossing" "$work/declared")
if [ -n "$outside" ]; then
  echo "FAIL: backends call core functions that device/backend_api.h does not declare:"
  for symbol in $outside; do
    echo "  $symbol, used by: $(objects backends | while read -r o; do
      nm -u "$o" | grep -qw "$symbol" && basename "$o" .c.o; done | tr '\n' ' ')"
  done
  exit 1
fi
echo "backends use $(wc -l < "$work/crossing") core symbols, each declared by the door"
