#!/bin/sh
# Installs the Debian 12 packages tandem needs that are missing, then configures
# and builds tandem in build/. Safe to run again: it installs nothing twice.
set -eu
cd "$(dirname "$0")/.."

# clang and libclang-rt-14-dev (libFuzzer) are for the fuzzing in scripts/test.sh.
packages="build-essential cmake pkg-config zlib1g-dev
  ocl-icd-opencl-dev opencl-c-headers pocl-opencl-icd libclblast-dev
  libvulkan-dev glslang-tools spirv-tools mesa-vulkan-drivers vulkan-validationlayers
  clang libclang-rt-14-dev"

missing=""
for p in $packages; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing="$missing $p"
done
if [ -n "$missing" ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  echo "setup: installing$missing"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends $missing
fi

# Warnings are errors in CI; a user's newer compiler should not break their build.
werror=OFF
[ "${CI:-}" = true ] && werror=ON
# Every backend is required here, so a missing package fails loudly, not quietly.
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTDM_WERROR=$werror \
      -DTDM_WITH_OPENCL=ON -DTDM_WITH_CLBLAST=ON -DTDM_WITH_VULKAN=ON
cmake --build build -j"$(nproc)"
