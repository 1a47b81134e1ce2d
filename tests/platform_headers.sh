#!/bin/sh
# platform_headers.sh SOURCE_DIR: no file of the library, the backends, the transports
# or the tools outside core/platform/ includes a system header beyond the C library's
# own (threads, run-time libraries, POSIX files and signals, strings.h, Win32), and none
# of the library, the backends or the tools calls what POSIX adds to the C library's
# headers (clock_gettime, strerror_r, gmtime_r, setenv, strcasecmp, the locale_t calls,
# stpcpy, aligned_alloc, PATH_MAX), so that every other file builds unchanged on every
# platform; the platform room's headers offer those services instead
# (docs/design/011-windows.md). libtandem_mpi, built on Linux alone and seeing no room,
# may call them.
set -eu
source=$1
pattern='^[[:space:]]*#[[:space:]]*include[[:space:]]*<(pthread|dlfcn|link|unistd|fcntl|dirent|signal|strings|windows|sys/[a-z_/]+)\.h>'
calls='clock_gettime|strerror_r|gmtime_r|localtime_r|setenv|unsetenv|strn?casecmp|newlocale|uselocale|freelocale|strtod_l|stpcpy|aligned_alloc'
call_pattern="(^|[^_[:alnum:]])(($calls)[[:space:]]*\(|PATH_MAX)"
found=$(cd "$source" &&
        grep -rnE "$pattern" --include='*.c' --include='*.h' core backends transports tools |
        grep -v '^core/platform/' || true)
called=$(cd "$source" &&
         grep -rnE "$call_pattern" --include='*.c' --include='*.h' core backends tools |
         grep -v '^core/platform/' || true)
if [ -n "$found" ]; then
  echo "FAIL: these files include a system header; use the platform room's instead:"
  echo "$found" | sed 's/^/  /'
fi
if [ -n "$called" ]; then
  echo "FAIL: these files call what POSIX alone has; use the platform room's calls instead:"
  echo "$called" | sed 's/^/  /'
fi
[ -z "$found$called" ] || exit 1
echo "no file outside core/platform includes a system header or calls what POSIX alone has"
