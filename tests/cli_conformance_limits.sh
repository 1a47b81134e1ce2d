#!/bin/sh
# tandem conformance reports a case larger than a device's single allocation as NOT
# SUPPORTED, naming the limit, in the table and the JSON, and never as failed.
# usage: cli_conformance_limits.sh TANDEM DEVICE LIMIT_BYTES KERNELS [OPTIONS...]
set -eu
tandem=$1
device=$2
limit=$3
kernels=$4
shift 4
out=$(mktemp -d "${TMPDIR:-/tmp}/tandem-conformance-limits-XXXXXX")
trap 'rm -rf "$out"' EXIT
fail=0
"$tandem" conformance --device "$device" --kernel "$kernels" --json "$out/c.json" "$@" \
    >"$out/table" || { echo "conformance failed"; fail=1; }
cat "$out/table"
grep -q "^NOT SUPPORTED .* on $device: .*the device's max single allocation is $limit bytes" \
    "$out/table" || { echo "want a case NOT SUPPORTED, naming the $limit-byte limit"; fail=1; }
grep -q '"skipped_cases": [1-9]' "$out/c.json" &&
    grep -q "\"first_skip\": \".*max single allocation is $limit bytes\"" "$out/c.json" ||
    { echo "want the skipped cases and their limit in the JSON"; fail=1; }
grep -q '"failed": 0,' "$out/c.json" || { echo "want no failure in the JSON"; fail=1; }
exit $fail
