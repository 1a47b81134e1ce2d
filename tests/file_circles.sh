#!/bin/sh
# file_circles.sh SOURCE_DIR BUILD_DIR: no circle of files inside core. From each core object
# file's defined and undefined symbols (nm), a file depends on the files that define
# what it calls; tsort names any loop in that graph. So every module reads bottom to
# top: a file calls down or sideways into files that do not call back.
set -eu
source=$1 build=$2
edges=$(mktemp)
trap 'rm -f "$edges"' EXIT
find "$build/core" -name '*.c.o' | sort | while read -r object; do
  file=$(basename "$object" .o) library=$(basename "$(dirname "$object")" .dir)
  # an object whose source moved away since this build directory was made is stale
  [ -f "$source/core/${library#tandem_}/$file" ] || continue
  nm "$object" | awk -v f="$file" '$2 ~ /^[TDBR]$/ { print "D", $3, f } $1 == "U" { print "U", $2, f }'
done | awk '
  $1 == "D" { owner[$2] = $3; next }
  { uses[NR] = $2; user[NR] = $3 }
  END { for (i in uses) if ((uses[i] in owner) && owner[uses[i]] != user[i])
          print user[i], owner[uses[i]] }' | sort -u > "$edges"
[ -s "$edges" ] || { echo "FAIL: no calls between core files found under $build/core"; exit 1; }
if ! tsort "$edges" > /dev/null 2> "$edges.loops"; then
  echo "FAIL: files of core call each other in a circle:"
  cat "$edges.loops"
  rm -f "$edges.loops"
  exit 1
fi
rm -f "$edges.loops"
echo "no circle among $(cut -d' ' -f1 "$edges" | sort -u | wc -l) calling files of core"
