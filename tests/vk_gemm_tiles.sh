#!/bin/sh
# Every tile shape of Vulkan's GPU gemm passes conformance (gemm and gemm_f16, the
# cases past 64 x 64 and 128 x 128 staged; the implicit convolutions under two): the
# defaults, then each shape that
# TDM_VK_GEMM_TILE can put every tiled product on, with one staging buffer and with
# two where the shared memory holds them, square and not; a shape the group cannot
# run, or a malformed one, is ignored with a warning. Run under TDM_VK_AS_GPU=1 on
# lavapipe, whose 32 KiB of shared memory give 128 x 128 one buffer, as they would a
# device with less than 33 KiB (128 x 128 with two is left to GPUs:
# scripts/gemm-tiles.sh). Every shape keeps the pipeline that splits k over a group
# (conformance's long, narrow products take it).
# The checks come in three groups, each its own ctest row, so that none runs near
# the time limit on a busy machine: the defaults and the square tiles, the oblong
# ones and no tiles, then the implicit convolutions and the shapes ignored (whose
# note is all they check, so they run gemm alone).
# usage: vk_gemm_tiles.sh TANDEM square|oblong|implicit
set -eu
tandem=$1
group=$2
out=$(mktemp -d "${TMPDIR:-/tmp}/tandem-gemm-tiles-XXXXXX")
trap 'rm -rf "$out"' EXIT
fail=0
check() { # SHAPE WANT [KERNELS]: conformance of gemm and gemm_f16 (or KERNELS) under
  # that shape; WANT in the device note
  TDM_VK_GEMM_TILE=$1 TDM_LOG=debug "$tandem" conformance --device vulkan:0 \
    --kernel "${3:-gemm,gemm_f16}" --kernels-only >"$out/table" 2>"$out/log" ||
    { cat "$out/table" "$out/log"; echo "FAIL: shape '$1' did not pass conformance"; fail=1; }
  grep -q "$2" "$out/log" ||
    { cat "$out/log"; echo "FAIL: shape '$1': want '$2' in the device's note"; fail=1; }
  echo "shape '$1': $(tail -n 1 "$out/table")"
}
case $group in
square)
  check "" "64x64 tiles of 4x4 blocks (8704 of [0-9]* bytes of shared memory, 1 buffer) from 1 tiles; 128x64 tiles of 8x4 blocks (25600 of [0-9]* bytes of shared memory, 2 buffers) from 256 tiles, k split over groups of 256 where fewer 16x16 tiles than 64 sum k = 4096 or more,"
  check 64x64/4x4 "in 64x64 tiles of 4x4 blocks (17408 of [0-9]* bytes of shared memory, 2 buffers) from 1 tiles,"
  check 64x64/4x4:1 "in 64x64 tiles of 4x4 blocks (8704 of [0-9]* bytes of shared memory, 1 buffer) from 1 tiles,"
  check 128x128/8x8:1 "in 128x128 tiles of 8x8 blocks (16896 of [0-9]* bytes of shared memory, 1 buffer)"
  check 128x128/8x8 "in 128x128 tiles of 8x8 blocks (\(16896 of [0-9]* bytes of shared memory, 1 buffer\|33792 of [0-9]* bytes of shared memory, 2 buffers\))"
  ;;
oblong)
  check 128x64/8x4 "in 128x64 tiles of 8x4 blocks (25600 of [0-9]* bytes of shared memory, 2 buffers)"
  check 64x128/4x8 "in 64x128 tiles of 4x8 blocks (25600 of [0-9]* bytes of shared memory, 2 buffers)"
  check none "gemm blocks 4x4 per invocation, k split over groups of 256 where"
  ;;
implicit)
  # The implicit convolutions, the same body with loads of their own, under the large
  # tile with one buffer and under an oblong one (the default 64 x 64:
  # vk_as_gpu_conformance).
  implicit=conv2d_implicit,conv2d_implicit_grad_filter,conv2d_implicit_grad_input
  check 128x128/8x8:1 "in 128x128 tiles of 8x8 blocks (16896 of [0-9]* bytes" "$implicit"
  check 64x128/4x8 "in 64x128 tiles of 4x8 blocks (25600 of [0-9]* bytes" "$implicit"
  check 96x64/4x4 "TDM_VK_GEMM_TILE=96x64/4x4 ignored: the tile's blocks are not the group's invocations" gemm
  check 64x64/4x4:3 "TDM_VK_GEMM_TILE=64x64/4x4:3 ignored: not RxC/rxc" gemm
  check " 64x64/4x4" "TDM_VK_GEMM_TILE= 64x64/4x4 ignored: not RxC/rxc" gemm
  check 4294967360x64/4x4 "TDM_VK_GEMM_TILE=4294967360x64/4x4 ignored: not RxC/rxc" gemm
  ;;
*)
  echo "usage: vk_gemm_tiles.sh TANDEM square|oblong|implicit" >&2
  exit 2
  ;;
esac
exit $fail
