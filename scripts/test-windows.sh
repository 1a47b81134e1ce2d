#!/bin/sh
# The Windows build's tests under Wine (docs/WINDOWS.md): cross-builds build-windows/
# with its tests (scripts/build-windows.sh), runs every row ctest has there (the
# reference backend's cases, PoCL x2 and lavapipe through Wine's OpenCL and Vulkan
# bridges where they reach, the CLI's scripts with tandem.exe), unpacks the zip and
# trains with what it holds, then trains one model with the Linux build and with the
# Windows build for the same seed and compares the two files byte for byte.
# usage: scripts/test-windows.sh [LINUX_BUILD]   (default: build/)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
linux=${1:-$root/build}
win=$root/build-windows
sh "$root/scripts/install-missing.sh" xvfb xauth
# Wine's Vulkan reaches the host's drivers through its X11 driver: without a display,
# the script runs again under a virtual one (Xvfb).
if [ -z "${DISPLAY:-}" ]; then
  exec xvfb-run -a -s "-screen 0 640x480x24 -nolisten tcp" sh "$0" "$@"
fi
# Wine's own prefix in the build tree: nothing of the user's home is touched; no
# offer to download Wine's .NET and HTML engines, which tandem does not use.
export WINEPREFIX="$win/wine-prefix" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree=;mshtml="
TDM_WINDOWS_TESTS=ON sh "$root/scripts/build-windows.sh" "$win"

wine=$(command -v wine64 || echo /usr/lib/wine/wine64)
wineserver=$(command -v wineserver || echo /usr/lib/wine/wineserver)
out=$(mktemp -d "${TMPDIR:-/tmp}/tandem-windows-XXXXXX")
stop_wine() {
  "$wineserver" -k </dev/null >/dev/null 2>&1 || true
  rm -rf "$out"
}
trap stop_wine EXIT
trap 'exit 1' INT TERM # so that the EXIT trap runs when timeout ends this
# Wine's server and services started once, detached from every pipe: a service that
# a test's Wine started would hold ctest's pipes open until it quits.
"$wineserver" -w </dev/null >/dev/null 2>&1 || true
"$wineserver" -p </dev/null >/dev/null 2>&1
"$wine" wineboot --init </dev/null >/dev/null 2>&1

status=0
ctest --test-dir "$win" --output-on-failure -j"$(nproc)" || status=1

# The package, unpacked, trains on the data it carries (found beside tandem.exe).
cmake -E chdir "$out" cmake -E tar xf "$win/tandem-windows-x86_64.zip"
if (cd "$out/tandem-windows-x86_64/bin" && "$wine" ./tandem.exe train --epochs 1 --no-progress \
      --devices reference:0 >"$out/package.log" 2>&1) &&
   grep -q '^done .*test accuracy' "$out/package.log"; then
  echo "test-windows.sh: the unpacked package trains"
else
  cat "$out/package.log"
  echo "test-windows.sh: the unpacked package does not train"
  status=1
fi

# The same seed gives the same model file from both builds.
opts="train --devices reference:0 --epochs 2 --seed 7 --no-progress"
"$linux/tandem" $opts --save "$out/linux.safetensors" >/dev/null
"$wine" "$win/tandem.exe" $opts --save "$out/windows.safetensors" >/dev/null
if cmp "$out/linux.safetensors" "$out/windows.safetensors"; then
  echo "test-windows.sh: the Linux and the Windows build wrote the same model bytes"
else
  echo "test-windows.sh: the Linux and the Windows build wrote different model bytes"
  status=1
fi
exit $status
