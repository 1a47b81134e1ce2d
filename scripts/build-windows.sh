#!/bin/sh
# Cross-builds tandem for 64-bit Windows in build-windows/ (or $1): the MinGW-w64
# compiler, zlib and Wine come from Debian (installed when missing), the OpenCL
# and Vulkan headers are Debian's too (cmake/mingw-w64-x86_64.cmake). Builds
# tandem.exe, tandem.dll with its import library and libtandem.a, warnings as errors,
# and the package a Windows user unpacks, tandem-windows-x86_64.zip (bin, lib, include,
# share, WINDOWS.md, LICENSE); MPI and Python are off. docs/WINDOWS.md.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-windows}

sh "$root/scripts/install-missing.sh" gcc-mingw-w64-x86-64 libz-mingw-w64-dev wine64 \
  opencl-c-headers libclblast-dev libvulkan-dev glslang-tools spirv-tools

cmake -S "$root" -B "$build" -DCMAKE_TOOLCHAIN_FILE="$root/cmake/mingw-w64-x86_64.cmake" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTDM_WERROR=ON -DTDM_WITH_OPENCL=ON -DTDM_WITH_VULKAN=ON \
  -DTDM_WITH_CLBLAST=ON -DTDM_WITH_ONEDNN=OFF -DTDM_WITH_MPI=OFF \
  -DBUILD_TESTING="${TDM_WINDOWS_TESTS:-OFF}"
# Wine runs the one program the build runs (the shaders' bindings), quietly.
WINEDEBUG=${WINEDEBUG:--all} nice make -C "$build" -j"$(nproc)"

# The package: what `make install` puts under a prefix, the docs for Windows and the
# licence, zipped by CMake (no zip program needed).
package=$build/package/tandem-windows-x86_64
rm -rf "$build/package"
cmake --install "$build" --prefix "$package" >/dev/null
cp "$root/docs/WINDOWS.md" "$root/LICENSE" "$package/"
(cd "$build/package" && cmake -E tar cf "$build/tandem-windows-x86_64.zip" --format=zip tandem-windows-x86_64)
echo "build-windows.sh: wrote $build/tandem-windows-x86_64.zip"
