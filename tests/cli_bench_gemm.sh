#!/bin/sh
# bench gemm's transpose cases and f16 operands on the devices given: every row
# present with OpenBLAS beside it (or '-' where it is not installed), CLBlast on
# OpenCL devices only, none wrong (each product is checked once against the host, so
# a transpose flag that is not honoured fails here), the JSON's trans and dtype; a
# bad --trans or --dtype exits 2 naming the choices. Nothing here asserts a speed.
# usage: cli_bench_gemm.sh TANDEM DEVICES (comma-separated)
set -eu
tandem=$1
devices=$2
out=$(mktemp -d "${TMPDIR:-/tmp}/tandem-bench-gemm-XXXXXX")
trap 'rm -rf "$out"' EXIT
fail=0
n=$(echo "$devices" | tr ',' '\n' | wc -l)
peer='([0-9.]+ +[0-9]+%|- +-)'

"$tandem" bench gemm -d "$devices" --trans NN,NT,TN --dtype f16 -b 64 -e 128 -r 1 \
    --json "$out/g.json" >"$out/gemm" || { echo "bench gemm failed"; fail=1; }
cat "$out/gemm"
[ "$(grep -cE "^  (NN|NT|TN) +(64|128) +[0-9.]+ +$peer +$peer +0$" "$out/gemm")" -eq $((n * 6)) ] ||
    { echo "want NN, NT and TN at 64 and 128 on each device, the peers beside them, none wrong"; fail=1; }
[ "$(grep -c 'f16 operands summed in f32' "$out/gemm")" -eq "$n" ] ||
    { echo "want each device's header to name f16 operands"; fail=1; }
# CLBlast is a peer on OpenCL devices only.
others=$(echo "$devices" | tr ',' '\n' | grep -vc '^opencl:' || true)
[ "$(grep -c '^  peers: .*; no CLBlast off OpenCL$' "$out/gemm")" -eq "$others" ] ||
    { echo "want no CLBlast off OpenCL"; fail=1; }
for field in '"trans": "NN"' '"trans": "NT"' '"trans": "TN"'; do
    [ "$(grep -c "$field" "$out/g.json")" -eq $((n * 2)) ] || { echo "want $field in the JSON"; fail=1; }
done
[ "$(grep -c '"dtype": "f16"' "$out/g.json")" -eq $((n * 6)) ] &&
    [ "$(grep -c '"clblast_gflops"' "$out/g.json")" -eq $((n * 6)) ] &&
    [ "$(grep -c '"wrong": 0' "$out/g.json")" -eq $((n * 6)) ] ||
    { echo "want dtype, clblast_gflops and no wrong element in every JSON row"; fail=1; }

# Bad choices: exit status 2 and the choices named.
bad() {
    want=$1
    shift
    set +e
    "$tandem" bench gemm -d "$devices" "$@" >"$out/bad" 2>&1
    rc=$?
    set -e
    [ $rc -eq 2 ] && grep -q -- "$want" "$out/bad" ||
        { echo "want '$*' refused with exit 2 and '$want' (got $rc)"; cat "$out/bad"; fail=1; }
}
bad "no transpose case 'XY' (NN, NT, TN, TT)" --trans XY
bad "no transpose case 'XY' (NN, NT, TN, TT)" --trans NN,XY
bad "no dtype 'f64' (f32, f16)" --dtype f64
[ $fail -eq 0 ] && echo "cli_bench_gemm: ok"
exit $fail
