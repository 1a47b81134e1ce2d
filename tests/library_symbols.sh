#!/bin/sh
# The libraries export the public API alone: every symbol libtandem.so exports is
# a tdm_ one, and libtandem.a exports exactly the same list (its internals are
# local, so they cannot clash with a program's own names, the hidden globals named
# like Vulkan's functions included).
set -eu
shared=$1 static=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
nm -D --defined-only "$shared" | awk '{print $3}' | sort >"$work/shared"
nm -g --defined-only "$static" | awk 'NF == 3 {print $3}' | sort >"$work/static"
fail=0
[ -s "$work/shared" ] || { echo "libtandem.so exports nothing"; fail=1; }
if grep -v '^tdm_' "$work/shared" >"$work/internal"; then
    echo "libtandem.so exports symbols without the tdm_ prefix:"
    cat "$work/internal"
    fail=1
fi
if ! diff "$work/shared" "$work/static" >"$work/diff"; then
    echo "libtandem.a exports another list than libtandem.so (< shared, > static):"
    cat "$work/diff"
    fail=1
fi
# The GPU loaders are opened at run time, never linked: no NEEDED entry, and no
# OpenCL, CLBlast or Vulkan function among the static library's undefined symbols.
if readelf -d "$shared" | grep -E 'NEEDED.*(libOpenCL|libclblast|libvulkan)'; then
    echo "libtandem.so must not link the OpenCL, CLBlast or Vulkan loader"
    fail=1
fi
if nm -u "$static" | grep -E ' (cl[A-Z]|CLBlast|vk[A-Z])'; then
    echo "libtandem.a must not need OpenCL, CLBlast or Vulkan functions at link time"
    fail=1
fi
[ $fail -eq 0 ] && echo "library_symbols: $(wc -l <"$work/shared") public symbols in both"
exit $fail
