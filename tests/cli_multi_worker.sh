#!/bin/sh
# tandem train --strategy multi-worker under mpirun (cli_multi_worker.sh TANDEM MPIEXEC):
# - 2 processes of one PoCL device each train digits to the very bits of one process
#   training on both devices with the same global batch (2-way sums are exact in
#   either order), checked after every step across processes (--deterministic), and
#   again when stopped and resumed from the chief's checkpoint;
# - the same with the gradients summed in f16, which a 2-way sum rounds once either way
#   (and which differ from f32's);
# - the same for a CNN with batch normalisation, whose statistics are then summed
#   across the processes (each process's own would give another model);
# - a process on PoCL and one on lavapipe train to the bits of one process on both;
# - 3 processes of one reference device each stay bitwise identical to each other
#   (--deterministic) and reach the accuracy of one process on three devices within a
#   point (3-way sums round in another order);
# - 2 workers and 1 parameter server train asynchronously to the accuracy of one
#   process within two points;
# - --trace: each of 2 processes writes its rank's timeline, which check_trace.py
#   accepts (when python3 is there).
set -eu
tandem=$1 mpiexec=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
. "$(dirname "$0")/time_limit.sh"
run() { bounded 400 "$mpiexec" --allow-run-as-root --oversubscribe "$@"; }
accuracy() { sed -n 's/.*test accuracy \([0-9.]*\)%.*/\1/p' "$1"; }

"$tandem" train --devices opencl:0,opencl:1 --epochs 4 --no-progress --save "$dir/one.tdm" \
    > "$dir/one.txt"
run -np 2 "$tandem" train --strategy multi-worker --devices opencl:0 --epochs 4 --no-progress \
    --deterministic --save "$dir/two.tdm" > "$dir/two.txt"
cat "$dir/two.txt"
grep -q 'in 2 processes' "$dir/two.txt"
cmp "$dir/one.tdm" "$dir/two.tdm"
echo "2 workers: the same model, bit for bit, as 1 process on 2 devices"

"$tandem" train --devices opencl:0,opencl:1 --epochs 2 --no-progress --f16-all-reduce \
    --save "$dir/one16.tdm" > /dev/null
run -np 2 "$tandem" train --strategy multi-worker --devices opencl:0 --epochs 2 --no-progress \
    --f16-all-reduce --save "$dir/two16.tdm" > /dev/null
cmp "$dir/one16.tdm" "$dir/two16.tdm"
"$tandem" train --devices opencl:0,opencl:1 --epochs 2 --no-progress --loss-scale 32768 \
    --save "$dir/one32.tdm" > /dev/null
! cmp -s "$dir/one16.tdm" "$dir/one32.tdm"
echo "2 workers summing in f16: the same model, bit for bit, as 1 process doing so"

cnn="--layers conv8k3,bn,pool2,32,bn --epochs 2 --no-progress"
"$tandem" train --devices opencl:0,opencl:1 $cnn --save "$dir/bn1.tdm" > /dev/null
run -np 2 "$tandem" train --strategy multi-worker --devices opencl:0 $cnn --deterministic \
    --save "$dir/bn2.tdm" > /dev/null
cmp "$dir/bn1.tdm" "$dir/bn2.tdm"
echo "2 workers normalising their batch together: the same model, bit for bit, as 1 process"

# Stopped after 2 epochs and resumed to 4: the chief's checkpoint reaches the other
# process through the chief, and the run ends on the same bits.
run -np 2 "$tandem" train --strategy multi-worker --devices opencl:0 --epochs 2 --no-progress \
    --checkpoint-dir "$dir/ckpt" > /dev/null
run -np 2 "$tandem" train --strategy multi-worker --devices opencl:0 --epochs 4 --no-progress \
    --checkpoint-dir "$dir/ckpt" --resume --deterministic --save "$dir/resumed.tdm" \
    > "$dir/resumed.txt"
grep -q 'resumed from global step 46' "$dir/resumed.txt"
cmp "$dir/one.tdm" "$dir/resumed.tdm"
echo "2 workers resumed after 2 of 4 epochs: the same model, bit for bit"

# One process on PoCL, the other on lavapipe: OpenCL and Vulkan in one job, to the
# bits of one process holding both devices.
"$tandem" train --devices opencl:0,vulkan:0 --epochs 2 --no-progress --save "$dir/mixed1.tdm" \
    > /dev/null
run -np 2 sh -c 'exec "$0" train --strategy multi-worker --no-progress --epochs 2 \
    --devices "$([ "$OMPI_COMM_WORLD_RANK" = 0 ] && echo opencl:0 || echo vulkan:0)" \
    --save "$1"' "$tandem" "$dir/mixed2.tdm" > /dev/null
cmp "$dir/mixed1.tdm" "$dir/mixed2.tdm"
echo "PoCL in one process, lavapipe in the other: the same model, bit for bit"

"$tandem" train --devices reference --split 3 --epochs 4 --no-progress > "$dir/ref1.txt"
run -np 3 "$tandem" train --strategy multi-worker --devices reference --epochs 4 --no-progress \
    --deterministic > "$dir/ref3.txt"
cat "$dir/ref3.txt"
a1=$(accuracy "$dir/ref1.txt") a3=$(accuracy "$dir/ref3.txt")
echo "3 workers: test accuracy $a3% against $a1% for 1 process on 3 devices"
awk -v a="$a1" -v b="$a3" 'BEGIN { d = a - b; exit !(d < 1 && d > -1 && b > 90) }'

# Parameter servers across processes: ranks 0 and 1 train on their halves of the data
# and rank 2 keeps and updates the variables; the chief reaches the accuracy of one
# process within two points, and the server ends cleanly once both have said goodbye
# (mpirun's status). Their checkpoints: cli_ps_resume.sh.
"$tandem" train --devices opencl:0 --epochs 10 --no-progress > "$dir/ps1.txt"
run -np 3 "$tandem" train --strategy parameter-server --ps-processes 1 --devices opencl:0 \
    --epochs 10 --no-progress > "$dir/ps3.txt"
cat "$dir/ps3.txt"
grep -q 'in each of 2 worker processes, 1 parameter server' "$dir/ps3.txt"
p1=$(accuracy "$dir/ps1.txt") p3=$(accuracy "$dir/ps3.txt")
echo "parameter servers: test accuracy $p3% against $p1% for 1 process"
# Asynchronous: how far one worker runs ahead depends on the load (2.5 points apart
# with the suite and builds sharing 2 cores), so within 3 points, as the 8-process row.
awk -v a="$p1" -v b="$p3" 'BEGIN { d = a - b; exit !(d < 3 && d > -3 && b > 90) }'

run -np 2 "$tandem" train --strategy multi-worker --devices opencl:0 --epochs 1 --no-progress \
    --trace "$dir/t.json" --trace-steps 2:5 > /dev/null
if [ -x /usr/bin/python3 ]; then
  for rank in 0 1; do
    /usr/bin/python3 "$(dirname "$0")/check_trace.py" "$dir/t.rank$rank.json" $rank 1 2 5
  done
fi
