#!/bin/sh
# Packs a built tandem to run on a machine that has a GPU driver but not Debian's
# packages (a cloud image, a lent machine): the stripped program, the loaders and
# libraries it opens at run time (OpenCL's ICD loader, Vulkan's loader, CLBlast), and
# env.sh, which a shell there sources before running it or scripts/device-report.sh.
#
# usage: scripts/bundle.sh DIR [FASHION_MNIST_DIR]
#   DIR                 made or refreshed: DIR/bin/tandem, DIR/lib/, DIR/share/, DIR/env.sh
#   FASHION_MNIST_DIR   also copied, to DIR/fashion-mnist (the report's CNN and MLPs)
#
# On the machine: `. DIR/env.sh` (from bash; `BUNDLE=DIR . DIR/env.sh` from sh) puts DIR/lib on LD_LIBRARY_PATH, sets TANDEM (which
# scripts/device-report.sh runs) and FASHION_MNIST_DIR, and registers the vendor
# drivers the system has beside those its loaders would find: an OpenCL ICD library
# without a file in /etc/OpenCL/vendors, a Vulkan ICD manifest outside the loader's
# folders (NVIDIA's container images keep both under /usr/local/nvidia).
set -eu
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
out=$1
[ -x build/tandem ] || ./scripts/setup.sh
mkdir -p "$out/bin" "$out/lib"
strip -o "$out/bin/tandem" build/tandem
for name in libOpenCL.so.1 libvulkan.so.1 libclblast.so.1; do
    path=$(ldconfig -p | awk -v n="$name" '$1 == n && /x86-64/ { print $NF; exit }')
    [ -n "$path" ] || { echo "bundle.sh: $name is not installed" >&2; exit 1; }
    cp -L "$path" "$out/lib/$name"
done
# bench train's digits, where the program looks beside itself
mkdir -p "$out/share/tandem"
cp data/digits.csv.gz "$out/share/tandem/"
if [ $# -ge 2 ]; then
    mkdir -p "$out/fashion-mnist"
    cp "$2"/*-ubyte.gz "$out/fashion-mnist/"
fi

cat >"$out/env.sh" <<'EOF'
# Sourced: the bundle's program and libraries, and the system's GPU drivers found.
# shellcheck disable=SC3028 # bash names the sourced file; other shells set BUNDLE=DIR
bundle=${BUNDLE:-$(cd "$(dirname "${BASH_SOURCE:-$0}")" && pwd)}
[ -x "$bundle/bin/tandem" ] || { echo "env.sh: from sh, BUNDLE=DIR . DIR/env.sh" >&2; return 1; }
export TANDEM=$bundle/bin/tandem
export LD_LIBRARY_PATH=$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
[ -d "$bundle/fashion-mnist" ] && export FASHION_MNIST_DIR=$bundle/fashion-mnist
# The loaders read one list each when told where: the system's own entries and those
# found elsewhere, together.
roots="/usr/local/nvidia /usr/lib /usr/lib64 /usr/local/lib /opt"
mkdir -p "$bundle/vendors"
rm -f "$bundle/vendors"/*.icd
cp /etc/OpenCL/vendors/*.icd "$bundle/vendors/" 2>/dev/null
for lib in $(find $roots -name 'libnvidia-opencl.so.1' -o -name 'libamdocl64.so' \
             -o -name 'libigdrcl.so' 2>/dev/null | sort -u); do
    grep -qsF "$(basename "$lib")" "$bundle/vendors"/*.icd ||
        echo "$lib" >"$bundle/vendors/$(basename "$lib").icd"
done
export OCL_ICD_VENDORS=$bundle/vendors
# A manifest's name once: a copy of the driver's own in the loader's folder is the same
# driver, and listing both would show the card twice.
manifests=$(find /usr/share/vulkan/icd.d /etc/vulkan/icd.d $roots -name '*.json' \
            -path '*vulkan/icd.d/*' 2>/dev/null | awk -F/ '!seen[$NF]++' | paste -sd:)
[ -n "$manifests" ] && export VK_DRIVER_FILES=$manifests VK_ICD_FILENAMES=$manifests
EOF
echo "bundle: $out ($(du -sh "$out" | cut -f1)); there, from bash: . $out/env.sh"
