#!/bin/sh
# platform_headers.sh SOURCE_DIR: no file outside core/platform/ includes a system
# header beyond the C library's own (threads, run-time libraries, POSIX files and
# signals, Win32), so that every other file builds unchanged on every platform; the
# platform room's headers offer those services instead (docs/design/011-windows.md).
#
# The files below have not moved yet (the design's step 1 of 4 leaves them): each is
# named with what it still includes. The list only shrinks: a file that includes a
# system header and is not on it fails, and so does a file on it that no longer does.
set -eu
source=$1
still_to_move="
core/checkpoint/checkpoint_posix.c   dirent.h fcntl.h sys/file.h sys/stat.h unistd.h: the checkpoint folder, its lock and its durable writes
"
pattern='^[[:space:]]*#[[:space:]]*include[[:space:]]*<(pthread|dlfcn|link|unistd|fcntl|dirent|signal|windows|sys/[a-z_/]+)\.h>'
found=$(mktemp) listed=$(mktemp)
trap 'rm -f "$found" "$listed"' EXIT
(cd "$source" && grep -rlE "$pattern" --include='*.c' --include='*.h' core backends transports tools) |
  grep -v '^core/platform/' | sort > "$found" || true
echo "$still_to_move" | awk 'NF { print $1 }' | sort > "$listed"
failed=0
new=$(comm -23 "$found" "$listed")
moved=$(comm -13 "$found" "$listed")
if [ -n "$new" ]; then
  echo "FAIL: these files include a system header; use the platform room's instead:"
  for f in $new; do grep -nE "$pattern" "$source/$f" | sed "s|^|  $f:|"; done
  failed=1
fi
if [ -n "$moved" ]; then
  echo "FAIL: these files include no system header any more; take them off the list:"
  echo "$moved" | sed 's/^/  /'
  failed=1
fi
[ "$failed" = 0 ] &&
  echo "no file outside core/platform includes a system header ($(wc -l < "$listed") still to move)"
exit "$failed"
