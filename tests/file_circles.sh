#!/bin/sh
# file_circles.sh SOURCE_DIR BUILD_DIR: no circle of files in any room, a room being a
# module of core (core/NAME) or a backend (backends/NAME). From each object file's
# defined and undefined symbols (nm), a file depends on the files of its room that
# define what it calls; tsort names any loop in that graph. So every room reads bottom
# to top: a file calls down or sideways into files that do not call back.
#
# And the modules of core call down only, in the order docs/ARCHITECTURE.md draws them
# (its map's " core/NAME" lines, top first): a module's call into one drawn above it
# fails, so the map cannot drift from the code.
#
# An object's source is found by its real path: CMake puts the object of DIR/SUB/f.c of
# a target made in DIR at BUILD/DIR/CMakeFiles/TARGET.dir/SUB/f.c.o (".." written
# "__"), so every subfolder is read. An object whose source is in neither tree (moved
# away since the build directory was made) is stale and skipped.
set -eu
source=$1 build=$2
calls=$(mktemp) edges=$(mktemp)
trap 'rm -f "$calls" "$edges" "$edges.loops"' EXIT
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
  END { for (i in uses) if ((uses[i] in owner) && owner[uses[i]] != user[i])
          print (room[uses[i]] == user_room[i] ? "file" : "room"), user[i], owner[uses[i]],
                user_room[i], room[uses[i]] }' > "$calls"
awk '$1 == "file" { print $2, $3 }' "$calls" | sort -u > "$edges"
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
drawn=$(sed -n 's|^ \(core/[a-z_]*\)  .*|\1|p' "$source/docs/ARCHITECTURE.md")
[ -n "$drawn" ] || { echo "FAIL: no core module drawn in docs/ARCHITECTURE.md"; exit 1; }
upward=$(awk -v drawn="$drawn" '
  BEGIN { n = split(drawn, list, "\n"); for (i = 1; i <= n; i++) rank[list[i]] = i }
  $1 == "room" && $4 ~ /^core\// && $5 ~ /^core\// {
    if (!($4 in rank) || !($5 in rank)) print $4 " or " $5 " is not drawn on the map"
    else if (rank[$5] < rank[$4]) print $4 " calls " $5 ", drawn above it (" $2 " -> " $3 ")"
  }' "$calls" | sort -u)
if [ -n "$upward" ]; then
  echo "FAIL: docs/ARCHITECTURE.md draws core's modules in an order the code does not keep:"
  echo "$upward"
  exit 1
fi
echo "core's modules call down only, in the order docs/ARCHITECTURE.md draws them"
