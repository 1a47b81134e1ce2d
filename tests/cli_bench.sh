#!/bin/sh
# The benchmarks run from a build and say what they measured: every row of bench
# kernels, gemm, allreduce, allgather, reducescatter, reduce and broadcast present, each
# with its in-run ceiling or peer, and no
# wrong result; bench train's rows, with each replica's buffers; bench input's four
# configurations and bench launch's two patterns. Nothing here asserts a speed.
# usage: cli_bench.sh TANDEM
set -eu
tandem=$1
out=$(mktemp -d "${TMPDIR:-/tmp}/tandem-bench-XXXXXX")
trap 'rm -rf "$out"' EXIT
fail=0
count() { grep -c -- "$1" "$2" || true; }

"$tandem" bench kernels -d opencl:0,vulkan:0 -k copy,axpy,sum -s 256K -r 2 \
    --json "$out/k.json" >"$out/kernels"
cat "$out/kernels"
[ "$(grep -cE '^  (copy|axpy|sum) +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9]+% +[0-9.]+ +[0-9]+%$' "$out/kernels")" -eq 6 ] ||
    { echo "want copy, axpy and sum with ms, GB/s and both ceilings on each device"; fail=1; }
[ "$(count '"device_copy_gbs"' "$out/k.json")" -eq 6 ] || { echo "want 6 rows in the JSON"; fail=1; }
# --back-to-back: per launch of 4 enqueued before one wait, in two more columns.
"$tandem" bench kernels -d opencl:0,vulkan:0 -k copy -s 64K -r 1 --back-to-back 4 \
    --json "$out/b2b.json" >"$out/b2b"
cat "$out/b2b"
[ "$(grep -cE '^  copy +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9]+% +[0-9.]+ +[0-9]+% +[0-9.]+ +[0-9.]+$' "$out/b2b")" -eq 2 ] &&
    [ "$(count '"b2b_gbs"' "$out/b2b.json")" -eq 2 ] ||
    { echo "want copy's back-to-back launches on each device, and in the JSON"; fail=1; }
# --image: the image kernels on one layer's shape; a memory-bound kernel is refused.
"$tandem" bench kernels -d opencl:0,vulkan:0 --image 2x9x9x4 --window 2 --stride 2 \
    -k im2col,max_pool2d_grad -s 64K -r 1 >"$out/image"
cat "$out/image"
[ "$(count 'image 2x9x9x4, window 2x2, stride 2, SAME' "$out/image")" -eq 2 ] &&
    [ "$(grep -cE '^  (im2col|max_pool2d_grad) +[0-9.]+ +[0-9.]+ ' "$out/image")" -eq 4 ] ||
    { echo "want im2col and max_pool2d_grad on the image on each device"; fail=1; }
if "$tandem" bench kernels -d opencl:0 --image 2x9x9x4 -k copy >/dev/null 2>&1; then
    echo "want copy refused with --image"; fail=1
fi

"$tandem" bench gemm -d opencl:0,vulkan:0 -b 16 -e 64 -f 2 -r 1 --json "$out/g.json" >"$out/gemm"
cat "$out/gemm"
# OpenBLAS is measured beside each row where it is installed, CLBlast beside PoCL's,
# else shown as '-'; NN by default (tests/cli_bench_gemm.sh: the other cases).
[ "$(grep -cE '^  NN +(16|32|64) +[0-9.]+( +([0-9.]+ +[0-9]+%|- +-)){2} +0$' "$out/gemm")" -eq 6 ] ||
    { echo "want sizes 16, 32 and 64 on each device, the peers beside them, none wrong"; fail=1; }

"$tandem" bench allreduce -d opencl:0,opencl:1 -b 1K -e 64K -f 8 -n 2 -w 1 -r 1 >"$out/allreduce"
cat "$out/allreduce"
[ "$(grep -cE '^ +[0-9]+ +[0-9]+ +float +sum +-1 ' "$out/allreduce")" -eq 3 ] ||
    { echo "want 3 all-reduce rows"; fail=1; }
grep -q '# Avg bus bandwidth' "$out/allreduce" || { echo "want the average busbw footer"; fail=1; }
# The gather, scatter, reduce and broadcast on every plan of PoCL x2 (TREE refused for
# the gather: nothing to fold), 3 sizes each, none wrong (a wrong element fails the
# command); the reduce and broadcast name their root, replica 0, the others -1.
for c in allgather reducescatter reduce broadcast; do
    "$tandem" bench $c -d opencl:0,opencl:1 -b 1K -e 64K -f 8 -n 2 -w 1 -r 1 -a all \
        --json "$out/$c.json" >"$out/$c"
    cat "$out/$c"
    redop=sum plans=6 root=-1
    [ $c = allgather ] && redop=none plans=5
    [ $c = reduce ] && root=0
    [ $c = broadcast ] && redop=none root=0
    [ "$(grep -cE "^ +[0-9]+ +[0-9]+ +float +$redop +$root +[a-z-]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +0 " \
        "$out/$c")" -eq $((plans * 3)) ] || { echo "want $plans plans x 3 sizes of $c"; fail=1; }
    grep -q '# Wrong elements: 0 OK' "$out/$c" || { echo "want $c's wrong count"; fail=1; }
    [ "$(count '"ceiling_busbw"' "$out/$c.json")" -eq $((plans * 3)) ] ||
        { echo "want $c's rows with their ceiling in the JSON"; fail=1; }
done
"$tandem" bench train -m digits -d opencl:0,opencl:1 -n 2 -w 1 >"$out/train"
cat "$out/train"
[ "$(grep -cE '^ digits +[12] opencl:' "$out/train")" -eq 3 ] ||
    { echo "want digits on each device and on both"; fail=1; }
[ "$(grep -cE '^# opencl:[01]: training buffers [0-9.]+ MiB, optimizer slots [0-9.]+ MiB$' "$out/train")" -eq 4 ] ||
    { echo "want each replica's training buffers in each configuration"; fail=1; }
# A model asked for by name whose data is missing measures nothing: a failure, named.
if "$tandem" bench train -m wide -d opencl:0 --data-dir "$out/none" >/dev/null 2>"$out/err"; then
    echo "want bench train -m wide without its data to fail"; fail=1
fi
grep -q "^tandem bench train: -m wide needs Fashion-MNIST: no $out/none/train-images-idx3-ubyte.gz" \
    "$out/err" || { cat "$out/err"; echo "want the missing file named"; fail=1; }

"$tandem" bench input --backend opencl --replicas 2 --steps 20 --rounds 3 >"$out/input"
cat "$out/input"
[ "$(grep -cE '^  prefetch [01], cache_on_devices [01]: median +[0-9]+ steps/s, best +[0-9]+$' \
    "$out/input")" -eq 4 ] || { echo "want the four input configurations"; fail=1; }
"$tandem" bench launch --device vulkan:0 --launches 100 --rounds 3 >"$out/launch"
cat "$out/launch"
[ "$(grep -cE '^  (chain|independent) +median +[0-9]+ launches/s, best +[0-9]+$' \
    "$out/launch")" -eq 2 ] || { echo "want chained and independent launches"; fail=1; }
[ $fail -eq 0 ] && echo "cli_bench: ok"
exit $fail
