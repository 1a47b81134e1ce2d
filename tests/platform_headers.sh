#!/bin/sh
# platform_headers.sh SOURCE_DIR: no file of the library, the backends, the transports
# or the tools outside core/platform/ includes a system header beyond the C library's
# own (threads, run-time libraries, POSIX files and signals, Win32), so that every
# other file builds unchanged on every platform; the platform room's headers offer
# those services instead (docs/design/011-windows.md).
set -eu
source=$1
pattern='^[[:space:]]*#[[:space:]]*include[[:space:]]*<(pthread|dlfcn|link|unistd|fcntl|dirent|signal|windows|sys/[a-z_/]+)\.h>'
found=$(cd "$source" &&
        grep -rnE "$pattern" --include='*.c' --include='*.h' core backends transports tools |
        grep -v '^core/platform/' || true)
if [ -n "$found" ]; then
  echo "FAIL: these files include a system header; use the platform room's instead:"
  echo "$found" | sed 's/^/  /'
  exit 1
fi
echo "no file outside core/platform includes a system header"
