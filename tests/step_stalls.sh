#!/bin/sh
# A training step waits for its device only where a value must reach the host: once
# (the numerics check's flags with the loss). On Vulkan in one submission, with
# device memory mapped and with it staged as on a discrete GPU; on OpenCL the input's
# writes queue behind the last step's update instead of waiting for it (two waits a
# step more before). The counts come from tdm_device_counters through `bench train
# --json`, with Vulkan's flush timer off so that the waits do not depend on the
# machine's speed. The 42 steps cross the end of the first epoch (29 steps of the
# digits): its last, shorter step allocates input tensors, which the next step frees,
# and a free waits for no device (1.16 waits a step over 200 steps when each free
# finished the device). The submissions still do a little, as the prefetch thread's
# writes fall before or after the step's read submits its batch: 1.1 to 1.8 a step
# on lavapipe (4 with staging before the ring), so their bound is 2.5.
# usage: step_stalls.sh TANDEM vulkan|opencl
set -eu
tandem=$1
api=$2
out=$(mktemp -d "${TMPDIR:-/tmp}/tandem-step-stalls-XXXXXX")
trap 'rm -rf "$out"' EXIT
fail=0
# FIELD of the first row of JSON FILE, a number.
field() { sed -n "s/.*\"$2\": *\([0-9.e+-]*\).*/\1/p" "$1" | head -n 1; }
check() { # NAME [VAR=VALUE...]: runs the bench so, and checks both counts
  name=$1
  shift
  env TDM_VK_NO_FLUSH_TIMER=1 "$@" "$tandem" bench train -d "$api:0" -m digits -n 40 -w 2 \
    --json "$out/$name.json" >"$out/$name.log" 2>&1 ||
    { cat "$out/$name.log"; echo "FAIL: bench train ($name) failed"; fail=1; return 0; }
  waits=$(field "$out/$name.json" host_waits_per_replica_step)
  submits=$(field "$out/$name.json" submissions_per_replica_step)
  awk -v w="$waits" -v s="$submits" 'BEGIN { exit !(w != "" && w <= 1.0 && s != "" && s <= 2.5) }' ||
    { echo "FAIL: $name: $waits host waits and $submits submissions a step, want <= 1 and <= 2.5"; fail=1; }
  echo "$name: $waits host waits, $submits submissions a step"
}
if [ "$api" = vulkan ]; then
  check mapped
  check staged TDM_VK_FORCE_STAGING=1
else
  check queued
fi
[ "$fail" -eq 0 ] && echo "step_stalls ($api): ok"
exit "$fail"
