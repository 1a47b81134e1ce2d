#!/bin/sh
# tandem conformance --json holds its three tables: a result per kernel and device,
# per gradient check and device (the reference's included), and per collective
# device set, operation and algorithm, with the table's verdicts; --device keeps the
# collectives to the sets of the named devices. Each NOT SUPPORTED cell says why, in
# the table and the JSON; the JSON names tandem's version and each device's driver,
# and times each cell; --list names the checks.
# usage: cli_conformance_json.sh TANDEM
set -eu
tandem=$1
out=$(mktemp -d "${TMPDIR:-/tmp}/tandem-conformance-XXXXXX")
trap 'rm -rf "$out"' EXIT
"$tandem" conformance --device opencl --kernel axpy,tanh_grad --grad --collectives --no-large \
    --json "$out/c.json" >"$out/table"
cat "$out/table"
count() { grep -c -- "$1" "$2" || true; }
fail=0
devices=$(head -n 1 "$out/table" | wc -w)
devices=$((devices - 1))
sets=$(sed -n '/^collectives /,/ passed, /p' "$out/table" | grep -c '^[a-z].* \(PASS\|FAIL\|NOT SUPPORTED\)' || true)
[ "$devices" -ge 1 ] && [ "$sets" -ge 1 ] || { echo "the table lacks devices or device sets"; fail=1; }
others=$(sed -n '/^collectives /,/ passed, /p' "$out/table" | grep -c '^\(reference\|vulkan\|opencl +\)' || true)
[ "$others" -eq 0 ] || { echo "--device opencl, yet $others collective rows of other sets"; fail=1; }
[ "$(count '"kernel": "axpy"' "$out/c.json")" -eq "$devices" ] ||
    { echo "want a kernel result per device in the JSON"; fail=1; }
grad_devices=$(grep '^gradients ' "$out/table" | wc -w)
grad_devices=$((grad_devices - 1))
[ "$grad_devices" -eq $((devices + 1)) ] ||
    { echo "want the gradient checks on the reference and the $devices devices"; fail=1; }
[ "$(count '"check": "tanh_grad"' "$out/c.json")" -eq "$grad_devices" ] &&
    [ "$(count '"check": ' "$out/c.json")" -eq "$grad_devices" ] ||
    { echo "want tanh_grad's check alone, a result per device, in the JSON's gradients"; fail=1; }
algorithms=$(grep '^collectives ' "$out/table" | wc -w)
algorithms=$((algorithms - 2)) # less "collectives" and "operation"
[ "$(count '"algorithm": ' "$out/c.json")" -eq $((sets * algorithms)) ] ||
    { echo "want $sets device set x operation rows x $algorithms algorithms in the JSON's collectives"; fail=1; }
for op in all-reduce all-gather reduce-scatter reduce broadcast; do
    [ "$(count "\"operation\": \"$op\"" "$out/c.json")" -eq $((sets / 5 * algorithms)) ] ||
        { echo "want every device set's $op in the JSON's collectives"; fail=1; }
done
table_skipped=$(sed -n '/^collectives /,/ passed, /p' "$out/table" | grep '^[a-z]' | grep -o 'NOT SUPPORTED' | wc -l)
json_skipped=$(grep -A1 '"algorithm": ' "$out/c.json" | grep -c '"status": "NOT SUPPORTED"' || true)
[ "$table_skipped" -eq "$json_skipped" ] ||
    { echo "the JSON's collectives disagree with the table ($json_skipped vs $table_skipped NOT SUPPORTED)"; fail=1; }
reasons=$(grep -c '^NOT SUPPORTED [a-z-]* [a-z-]* on .*: .' "$out/table" || true)
[ "$reasons" -eq "$table_skipped" ] ||
    { echo "want a reason line for each of the $table_skipped NOT SUPPORTED collectives, got $reasons"; fail=1; }
[ "$(grep -A5 '"status": "NOT SUPPORTED"' "$out/c.json" | grep -c '"first_skip": ""' || true)" -eq 0 ] ||
    { echo "a NOT SUPPORTED result without its reason in the JSON"; fail=1; }
grep -q "^ *\"tandem_version\": \"$("$tandem" --version | cut -d' ' -f2)\"" "$out/c.json" ||
    { echo "want tandem's version in the JSON"; fail=1; }
[ "$(count '"driver": "' "$out/c.json")" -ge "$devices" ] ||
    { echo "want each device's driver in the JSON"; fail=1; }
results=$(count '"status": ' "$out/c.json")
[ "$(count '"seconds": ' "$out/c.json")" -eq "$results" ] ||
    { echo "want a time for each of the $results results in the JSON"; fail=1; }
"$tandem" conformance --list >"$out/list"
for kind in kernel gradient collective algorithm; do
    grep -q "^$kind [a-z]" "$out/list" || { echo "want --list to name the $kind checks"; fail=1; }
done
grep -qx 'kernel axpy' "$out/list" && grep -qx 'gradient tanh_grad' "$out/list" &&
    grep -qx 'collective all-gather' "$out/list" ||
    { echo "want --list to name axpy, tanh_grad and all-gather"; fail=1; }
[ $fail -eq 0 ] && echo "cli_conformance_json: ok ($devices devices, $grad_devices for gradients, $sets device set x operation rows, $algorithms algorithms)"
exit $fail
