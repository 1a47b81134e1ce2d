#!/bin/sh
# gemm_f16's matrix-engine path on lavapipe, which has no VK_KHR_cooperative_matrix.
#   fallback: `tandem devices` says so; under TDM_VK_FAKE_COOPMAT=1 (and
#     TDM_VK_AS_GPU=1) the device claims a 16 x 16 x 16 shape, reported as available,
#     and its start-up check at the first gemm_f16 fails (the device was never created
#     with the extension), is logged once, and leaves gemm_f16 on the plain pipelines,
#     which pass conformance.
#   emulated: under TDM_VK_FAKE_COOPMAT=emulated the check runs the module with its
#     fragments emulated, its results pass, and every gemm_f16 of conformance runs
#     through the module's staging, edges and epilogue and passes.
# Built without a cooperative-matrix compiler ("without"), every device says so,
# faked or not, and gemm_f16 passes on the plain pipelines.
# usage: vk_coopmat.sh TANDEM with|without fallback|emulated
set -eu
tandem=$1
build=$2
mode=$3
out=$(mktemp -d "${TMPDIR:-/tmp}/tandem-coopmat-XXXXXX")
trap 'rm -rf "$out"' EXIT
fail=0
want() { # FILE TEXT WHAT
  grep -qF -- "$2" "$1" || { cat "$1"; echo "FAIL: want '$2' ($3)"; fail=1; }
}
fake=1
[ "$mode" = emulated ] && fake=emulated
"$tandem" devices --json >"$out/plain.json"
TDM_VK_FAKE_COOPMAT=$fake TDM_VK_AS_GPU=1 "$tandem" devices --json >"$out/fake.json"
TDM_VK_FAKE_COOPMAT=$fake TDM_VK_AS_GPU=1 TDM_LOG=info "$tandem" conformance --device vulkan:0 \
  --kernel gemm_f16 --kernels-only >"$out/table" 2>"$out/log" ||
  { cat "$out/table" "$out/log"; echo "FAIL: gemm_f16 conformance under the fake"; fail=1; }
if [ "$build" = without ]; then
  none='"matrix_engine": "none: built without a cooperative-matrix compiler"'
  want "$out/plain.json" "$none" "no compiler"
  want "$out/fake.json" "$none" "no compiler, faked"
elif [ "$mode" = fallback ]; then
  want "$out/plain.json" '"matrix_engine": "none: no VK_KHR_cooperative_matrix"' "lavapipe"
  want "$out/fake.json" '"matrix_engine": "available: f16xf16+f32 16x16x16 (subgroup ' \
    "the fake's shape"
  want "$out/fake.json" '), checked at first use"' "checked lazily"
  want "$out/log" "not used, gemm_f16 keeps tandem's shader: check failed: the device was created without VK_KHR_cooperative_matrix" \
    "the check's refusal"
else
  want "$out/fake.json" ', emulated), checked at first use"' "the emulated module's shape"
  want "$out/log" ", emulated) used for gemm_f16: its results checked" "the check's results"
fi
if [ "$build" = with ]; then
  [ "$(grep -c "matrix engine f16xf16+f32 16x16x16" "$out/log")" -eq 1 ] ||
    { cat "$out/log"; echo "FAIL: want the check once"; fail=1; }
fi
# OpenCL and reference devices have no matrix engine to report.
grep -q '"matrix_engine": null' "$out/plain.json" ||
  { echo "FAIL: want null for devices without one"; fail=1; }
exit $fail
