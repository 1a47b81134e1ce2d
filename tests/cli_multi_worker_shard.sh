#!/bin/sh
# tandem train --strategy multi-worker --shard-optimizer under mpirun
# (cli_multi_worker_shard.sh TANDEM MPIEXEC): 2 processes whose replicas each hold a
# slice of Adam's slots save the model file of the same job unsharded, byte for byte:
# - on one reference device and one PoCL device per process, and two PoCL devices per
#   process (4 replicas);
# - stopped after an epoch sharded and resumed unsharded, and the other way round:
#   the chief's checkpoint holds every slot whole, gathered from both processes;
# - a 2-process sharded checkpoint resumed sharded by 1 process on 2 devices, and a
#   1-process one by 2 processes: each takes its replicas' parts of the slots.
set -eu
tandem=$1 mpiexec=$2
dir=$(mktemp -d "${TMPDIR:-/tmp}/tandem-mw-shard-XXXXXX")
trap 'rm -rf "$dir"' EXIT
. "$(dirname "$0")/time_limit.sh"
run() { # NP DEVICES NAME OPTIONS...
  np=$1 devices=$2 name=$3
  shift 3
  bounded 400 "$mpiexec" --allow-run-as-root --oversubscribe -np "$np" "$tandem" train \
    --strategy multi-worker --devices "$devices" --optimizer adam --deterministic \
    --no-progress "$@" > "$dir/$name.txt"
}
one() { # DEVICES NAME OPTIONS...: one process
  devices=$1 name=$2
  shift 2
  "$tandem" train --devices "$devices" --optimizer adam --deterministic --no-progress "$@" \
    > "$dir/$name.txt"
}
same() { # A B WHAT
  cmp "$dir/$1.tdm" "$dir/$2.tdm" || { echo "$3: other bytes"; exit 1; }
  echo "$3: the same model, bit for bit"
}

for devices in reference opencl:0 opencl:0,opencl:1; do
  tag=$(echo "$devices" | tr ':,' '__')
  run 2 "$devices" "plain_$tag" --epochs 2 --save "$dir/plain_$tag.tdm"
  run 2 "$devices" "sharded_$tag" --epochs 2 --shard-optimizer --save "$dir/sharded_$tag.tdm"
  grep -q 'in 2 processes' "$dir/sharded_$tag.txt"
  same "plain_$tag" "sharded_$tag" "2 processes on $devices each, sharded against not"
done

# Resumed with the state kept the other way: the bits of the run without a stop.
for first in sharded plain; do
  if [ $first = sharded ]; then before=--shard-optimizer after=; else before= after=--shard-optimizer; fi
  run 2 opencl:0 "${first}_1" --epochs 1 $before --checkpoint-dir "$dir/$first"
  run 2 opencl:0 "${first}_resumed" --epochs 2 $after --checkpoint-dir "$dir/$first" --resume \
    --save "$dir/${first}_resumed.tdm"
  grep -q 'resumed from global step 23' "$dir/${first}_resumed.txt"
  same plain_opencl_0 "${first}_resumed" "2 processes resumed from a $first checkpoint"
done

# Another process count: 2 processes of 1 replica against 1 process of 2, sharded
# both ways round, on the same 2 replicas of the job.
run 2 opencl:0 two_1 --epochs 1 --shard-optimizer --checkpoint-dir "$dir/two"
one opencl:0,opencl:1 two_on_one --epochs 2 --shard-optimizer --checkpoint-dir "$dir/two" \
  --resume --save "$dir/two_on_one.tdm"
same plain_opencl_0 two_on_one "1 process resumed from 2 processes' sharded checkpoint"
one opencl:0,opencl:1 one_1 --epochs 1 --shard-optimizer --checkpoint-dir "$dir/one"
run 2 opencl:0 one_on_two --epochs 2 --shard-optimizer --checkpoint-dir "$dir/one" --resume \
  --save "$dir/one_on_two.tdm"
same plain_opencl_0 one_on_two "2 processes resumed from 1 process's sharded checkpoint"
