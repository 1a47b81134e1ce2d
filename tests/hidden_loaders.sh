#!/bin/sh
# tandem where no GPU stack is installed: in a private mount namespace an empty
# file hides each of libOpenCL.so.1, libclblast.so.1 and libvulkan.so.1. Programs
# linked with libtandem.so and libtandem.a and the tandem tool must still start;
# `tandem devices` names the missing backends and why, and the reference backend
# trains. Needs root for unshare -m and mount; exits 77 (skipped) where a mount
# namespace cannot be made.
# usage: hidden_loaders.sh TANDEM SHARED_PROGRAM STATIC_PROGRAM
set -eu
if [ "${TDM_LOADERS_HIDDEN:-}" != 1 ]; then
    if ! unshare -m true 2>/dev/null; then
        echo "hidden_loaders: skipped: unshare -m is not allowed here (it needs root)"
        exit 77
    fi
    exec unshare -m env TDM_LOADERS_HIDDEN=1 "$0" "$@"
fi
tandem=$1 shared_program=$2 static_program=$3
out=$(mktemp -d "${TMPDIR:-/tmp}/tandem-hidden-XXXXXX")
trap 'rm -rf "$out"' EXIT
: >"$out/empty"
hidden=0
for lib in libOpenCL.so.1 libclblast.so.1 libvulkan.so.1; do
    for path in $(ldconfig -p | awk -v lib="$lib" '$1 == lib { print $NF }'); do
        mount --bind "$out/empty" "$(readlink -f "$path")"
        hidden=$((hidden + 1))
    done
done
echo "hid $hidden loader file(s)"

fail=0
"$tandem" devices >"$out/devices" || { echo "tandem devices failed"; fail=1; }
"$tandem" devices --json >"$out/json" || { echo "tandem devices --json failed"; fail=1; }
cat "$out/devices"
for backend in opencl vulkan; do
    grep -q "^$backend  *unavailable (TDM_ERR_NOT_FOUND): .*lib[a-zA-Z]*\.so\.1" "$out/devices" ||
        { echo "tandem devices must name $backend as unavailable and why"; fail=1; }
    grep -A1 "\"name\": \"$backend\"" "$out/json" | grep -q '"available": false' ||
        { echo "tandem devices --json must mark $backend unavailable"; fail=1; }
done
grep -q "^reference  *available" "$out/devices" || { echo "the reference backend is missing"; fail=1; }

"$tandem" train --devices reference --epochs 3 --no-progress >"$out/train" ||
    { echo "tandem train on the reference backend failed"; fail=1; }
cat "$out/train"
grep -q '^done .*test accuracy' "$out/train" || { echo "training did not finish"; fail=1; }
"$shared_program" || { echo "a program linked with libtandem.so failed"; fail=1; }
"$static_program" || { echo "a program linked with libtandem.a failed"; fail=1; }
[ $fail -eq 0 ] && echo "hidden_loaders: ok"
exit $fail
