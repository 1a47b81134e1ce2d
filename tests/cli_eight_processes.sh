#!/bin/sh
# Jobs of 8 processes, oversubscribed (cli_eight_processes.sh TANDEM MPIEXEC):
# - 8 multi-worker processes of one reference device each stay bitwise identical to
#   each other (--deterministic) and reach the accuracy of one process on 8 devices
#   within a point; not its bits: around a ring of more than 2 ranks each part of the
#   gradients is summed from another rank, so in another order than one process's;
# - the same job stopped after 2 epochs and resumed to 4: the uninterrupted run's
#   bits;
# - the same on PoCL, one pthread device a process;
# - parameter-server jobs of 6 workers and 2 servers, on reference and on PoCL,
#   train 4 epochs and finish (asynchronous: accuracy, not bits; six workers pushing
#   in an order the machine's load decides ended 4.2 points below one process once, so
#   the bound is 6 points and above 90 %).
set -eu
tandem=$1 mpiexec=$2
dir=$(mktemp -d "${TMPDIR:-/tmp}/tandem-eight-XXXXXX")
trap 'rm -rf "$dir"' EXIT
run() { timeout 120 "$mpiexec" --allow-run-as-root --oversubscribe -np 8 "$@"; }
accuracy() { sed -n 's/.*test accuracy \([0-9.]*\)%.*/\1/p' "$1"; }
near() { awk -v a="$1" -v b="$2" -v d="$3" 'BEGIN { e = a - b; exit !(e < d && e > -d && b > 90) }'; }
mw="--strategy multi-worker --no-progress --deterministic"

"$tandem" train --devices reference --split 8 --epochs 4 --no-progress > "$dir/one.txt"
run "$tandem" train $mw --devices reference --epochs 4 --save "$dir/eight.tdm" > "$dir/eight.txt"
cat "$dir/eight.txt"
grep -q 'in 8 processes' "$dir/eight.txt"
a1=$(accuracy "$dir/one.txt") a8=$(accuracy "$dir/eight.txt")
echo "8 workers: test accuracy $a8% against $a1% for 1 process on 8 devices"
near "$a1" "$a8" 1

run "$tandem" train $mw --devices reference --epochs 2 --checkpoint-dir "$dir/ckpt" > /dev/null
run "$tandem" train $mw --devices reference --epochs 4 --checkpoint-dir "$dir/ckpt" --resume \
    --save "$dir/resumed.tdm" > "$dir/resumed.txt"
grep -q 'resumed from global step 46' "$dir/resumed.txt"
cmp "$dir/eight.tdm" "$dir/resumed.tdm"
echo "8 workers resumed after 2 of 4 epochs: the same model, bit for bit"

POCL_DEVICES=pthread run "$tandem" train $mw --devices opencl:0 --epochs 4 > "$dir/pocl.txt"
ap=$(accuracy "$dir/pocl.txt")
echo "8 workers on PoCL: test accuracy $ap%"
near "$a1" "$ap" 1

for devices in reference opencl:0; do
  POCL_DEVICES=pthread run "$tandem" train --strategy parameter-server --ps-processes 2 \
      --devices $devices --epochs 4 --no-progress > "$dir/ps.txt"
  grep -q 'in each of 6 worker processes, 2 parameter servers' "$dir/ps.txt"
  grep -q '^done     4 epochs' "$dir/ps.txt"
  p=$(accuracy "$dir/ps.txt")
  echo "6 workers, 2 servers on $devices: test accuracy $p%"
  near "$a1" "$p" 6
done
