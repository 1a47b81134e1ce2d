#!/bin/sh
# tandem train --trace writes a timeline that check_trace.py accepts: every replica's
# phases in order in every step of --trace-steps and no other step, both when the
# window closes during the run and when the run ends inside it; bad windows are
# refused. Two buckets (two 512-unit layers), so that their order is checked too.
# PoCL and lavapipe keep timestamps: their spans must come from the device's clock.
# usage: cli_train_trace.sh TANDEM DEVICES (skipped, 77, without python3)
set -eu
tandem=$1
devices=$2
check=$(dirname "$0")/check_trace.py
[ -x /usr/bin/python3 ] || { echo "python3 is missing: nothing reads the trace"; exit 77; }
out=$(mktemp -d "${TMPDIR:-/tmp}/tandem-cli-trace-XXXXXX")
trap 'rm -rf "$out"' EXIT
replicas=$(echo "$devices" | tr ',' '\n' | wc -l)
clocks=$(echo "$devices" | sed -E 's/reference[^,]*/host/g; s/(opencl|vulkan)[^,]*/device/g')
fail=0
train() { # FILE STEPS: one epoch of 23 steps
  "$tandem" train --devices "$devices" --epochs 1 --layers 512,512 --no-progress \
    --trace "$1" --trace-steps "$2" >"$out/log" 2>&1 || { cat "$out/log"; fail=1; }
}
train "$out/t.json" 3:7
/usr/bin/python3 "$check" "$out/t.json" 0 "$replicas" 3 7 "$clocks" || fail=1
train "$out/end.json" 20:1000
/usr/bin/python3 "$check" "$out/end.json" 0 "$replicas" 20 22 "$clocks" || fail=1
[ -z "$(find "$out" -name '.*tmp*')" ] || { echo "a temporary file was left"; fail=1; }
refused() { # REASON OPTIONS...
  reason=$1
  shift
  if "$tandem" train --devices "$devices" --no-progress "$@" >"$out/refused" 2>&1 ||
     ! grep -q -- "$reason" "$out/refused"; then
    cat "$out/refused"; echo "want a refusal: $reason"; fail=1
  fi
}
refused "out of range" --trace "$out/r.json" --trace-steps 5:2
refused "is not FROM:TO" --trace "$out/r.json" --trace-steps 5
refused "--trace-steps is for --trace" --trace-steps 1:2
refused "--trace: cannot write $out/none/t.json" --trace "$out/none/t.json"
[ $fail -eq 0 ] && echo "cli_train_trace: ok"
exit $fail
