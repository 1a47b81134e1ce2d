#!/bin/sh
# A model far too large for its device is refused before its values are built on the
# host (it once grew host memory to 14 GB for minutes before the allocator refused
# it): within seconds, in little memory, naming the device, the bytes and the limit,
# the same limit that `tandem devices` shows.
# usage: cli_train_too_large.sh TANDEM
set -eu
tandem=$1
. "$(dirname "$0")/time_limit.sh"
out=$(mktemp -d "${TMPDIR:-/tmp}/tandem-too-large-XXXXXX")
trap 'rm -rf "$out"' EXIT
# 1 GiB for every OpenCL device's single allocation, whatever the machine's memory.
export TDM_CL_MAX_ALLOC=1073741824
"$tandem" devices | grep -E '^ +[0-9]+ +opencl:0 .* 1\.0 GiB +[0-9?]+$' >/dev/null ||
  { "$tandem" devices; echo "tandem devices does not show opencl:0's single allocation of 1.0 GiB"; exit 1; }

# 65536 x 65536 floats: one variable of 16 GiB.
measure=
if /usr/bin/time -v true 2>/dev/null; then measure="/usr/bin/time -v -o $out/time"; fi
status=0
bounded 20 $measure "$tandem" train --devices opencl:0 --layers 65536,65536 --epochs 1 \
  --no-progress >/dev/null 2>"$out/err" || status=$?
[ "$status" -eq 1 ] || { cat "$out/err"; echo "exit $status, not 1"; exit 1; }
grep -qF "variable 'dense1/kernel' needs 17179869184 bytes in one buffer, more than device opencl:0" \
  "$out/err" && grep -qF "its max single allocation is 1073741824 bytes" "$out/err" ||
  { cat "$out/err"; echo "the refusal does not name the variable, the device, the bytes and the limit"; exit 1; }
if [ -n "$measure" ]; then
  rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$out/time")
  [ "$rss" -lt 1048576 ] || { echo "the refusal took $rss KiB of host memory"; exit 1; }
fi
# Parameters that fit, but a batch whose activations do not: 1437 rows of 65536
# features, 377 MB in one buffer against a 256 MiB single allocation, refused before
# the first step (once the step made them and failed there, after everything else was
# built).
status=0
TDM_CL_MAX_ALLOC=268435456 bounded 60 "$tandem" train --devices opencl:0 --layers 65536 \
  --batch 2048 --epochs 1 --no-progress >"$out/log" 2>"$out/err" || status=$?
[ "$status" -eq 1 ] || { cat "$out/err"; echo "a batch too large: exit $status, not 1"; exit 1; }
grep -qF "tdm_model_check_batch: layer dense0's activations for 1437 rows needs 376700928 bytes in one buffer, more than device opencl:0" \
  "$out/err" || { cat "$out/err"; echo "the batch's refusal does not name the layer, the rows and the bytes"; exit 1; }
! grep -q '^epoch' "$out/log" || { echo "the batch was refused only after training"; exit 1; }
echo "cli_train_too_large: ok (refused: $(grep -o 'needs [0-9]* bytes' "$out/err")${rss:+, max RSS $rss KiB})"
