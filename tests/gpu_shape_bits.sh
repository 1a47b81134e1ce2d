#!/bin/sh
# The GPU shape trains to the same bits: on each device set, two epochs of a small
# MLP and of a CNN save the same model file with TDM_TEST_GPU_SHAPE=1 (every transfer
# staged, every collective through copies) as without it (host addresses, in-place
# plans where memory is shared).
# usage: gpu_shape_bits.sh TANDEM
# On PoCL the GPU shape has no host memory, so gemm runs on CLBlast where it would
# otherwise run on OpenBLAS, whose sums are in another order on some CPUs: both shapes
# take CLBlast here, so that the files differ only if staging or the copies changed
# a bit.
set -eu
export TDM_CL_GEMM=clblast
tandem=$1
out=$(mktemp -d "${TMPDIR:-/tmp}/tandem-gpu-shape-XXXXXX")
trap 'rm -rf "$out"' EXIT
fail=0
run() { # NAME SHAPE DEVICE-OPTIONS...: trains, saving $out/NAME-SHAPE.safetensors
  name=$1 shape=$2
  shift 2
  for layers in 32,16 conv4k3,pool2,16; do
    TDM_TEST_GPU_SHAPE=$shape "$tandem" train "$@" --layers "$layers" --epochs 2 --no-progress \
      --save "$out/$name-$layers-$shape.safetensors" >"$out/log" 2>&1 || {
      cat "$out/log"; echo "FAIL: $name ($layers) in shape $shape did not train"; fail=1; }
  done
}
for set in "reference:0 --split 3" "opencl:0,opencl:1" "vulkan:0 --split 2" "opencl:0,vulkan:0"; do
  name=$(echo "$set" | tr ' :,' '___')
  # shellcheck disable=SC2086 # the set is a device list and maybe --split N
  run "$name" 0 --devices $set
  # shellcheck disable=SC2086
  run "$name" 1 --devices $set
  for layers in 32,16 conv4k3,pool2,16; do
    if cmp -s "$out/$name-$layers-0.safetensors" "$out/$name-$layers-1.safetensors"; then
      echo "$set ($layers): the same model bytes in both shapes"
    else
      echo "FAIL: $set ($layers): the GPU shape saved other bits"; fail=1
    fi
  done
done
exit $fail
