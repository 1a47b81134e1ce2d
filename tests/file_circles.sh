#!/bin/sh
# file_circles.sh SOURCE_DIR BUILD_DIR: no circle of files in any room, a room being a
# module of core (core/NAME) or a backend (backends/NAME). From each object file's
# defined and undefined symbols (nm), a file depends on the files of its room that
# define what it calls; tsort names any loop in that graph. So every room reads bottom
# to top: a file calls down or sideways into files that do not call back.
#
# An object's source is found by its real path: CMake puts the object of DIR/SUB/f.c of
# a target made in DIR at BUILD/DIR/CMakeFiles/TARGET.dir/SUB/f.c.o (".." written
# "__"), so every subfolder is read. An object whose source is in neither tree (moved
# away since the build directory was made) is stale and skipped.
set -eu
source=$1 build=$2
edges=$(mktemp)
trap 'rm -f "$edges" "$edges.loops"' EXIT
find "$build/core" "$build/backends" -path '*/CMakeFiles/*.dir/*' -name '*.c.o' | sort |
  while read -r object; do
    relative=${object#"$build"/}
    dir=${relative%%/CMakeFiles/*}
    inner=${relative#*/CMakeFiles/*.dir/}
    path=$(printf '%s/%s\n' "$dir" "${inner%.o}" | sed 's|\(^\|/\)__/|\1../|g')
    path=$(realpath -m -s "/$path" | cut -c2-)
    [ -f "$source/$path" ] || [ -f "$build/$path" ] || continue
    case $path in
      core/*/* | backends/*/*) room=$(echo "$path" | cut -d/ -f1-2) ;;
      *) continue ;;
    esac
    nm "$object" | awk -v f="$path" -v r="$room" \
      '$2 ~ /^[TDBR]$/ { print "D", $3, f, r } $1 == "U" { print "U", $2, f, r }'
  done | awk '
  $1 == "D" { owner[$2] = $3; room[$2] = $4; next }
  { uses[NR] = $2; user[NR] = $3; user_room[NR] = $4 }
  END { for (i in uses) if ((uses[i] in owner) && owner[uses[i]] != user[i] &&
                            room[uses[i]] == user_room[i])
          print user[i], owner[uses[i]] }' | sort -u > "$edges"
for room in core backends; do
  grep -q "^$room/" "$edges" || { echo "FAIL: no calls between files of $build/$room found"; exit 1; }
done
if ! tsort "$edges" > /dev/null 2> "$edges.loops"; then
  echo "FAIL: files of one room call each other in a circle:"
  cat "$edges.loops"
  exit 1
fi
echo "no circle among $(cut -d' ' -f1 "$edges" | sort -u | wc -l) calling files of" \
  "$(cut -d' ' -f1 "$edges" | cut -d/ -f1-2 | sort -u | wc -l) rooms"
