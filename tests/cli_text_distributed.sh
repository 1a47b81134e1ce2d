#!/bin/sh
# A small transformer language model (emb256x16,pos,block2,ln over windows of 16
# bytes of a slice of the bundled text) under every distribution feature tandem train
# has, each against what it promises:
# - two processes of one PoCL device each (multi-worker under mpirun) train to the
#   bits of one process on both devices (2-way sums are exact in either order);
# - the optimizer state sharded across two PoCL replicas: the bits of the unsharded run;
# - killed (SIGTERM) in the second epoch and resumed: the checkpoints of an
#   uninterrupted run, byte for byte;
# - PoCL beside lavapipe (two APIs), mixed precision, gradients all-reduced in f16:
#   each trains to a validation bits per byte below the uniform 8 and near the f32 run's;
# - lavapipe alone trains steps of 5120 positions (its driver's loop limit);
# - --trace: a timeline check_trace.py accepts (when python3 is there).
# usage: cli_text_distributed.sh TANDEM SHAKESPEARE_TXT_GZ MPIEXEC
set -eu
tandem=$1 bundled=$2 mpiexec=$3
out=$(mktemp -d "${TMPDIR:-/tmp}/tandem-cli-text-dist-XXXXXX")
trap 'rm -rf "$out"' EXIT
. "$(dirname "$0")/time_limit.sh"
gzip -dc "$bundled" | head -c 12000 >"$out/slice.txt"
lm="--text $out/slice.txt --context 16 --layers emb256x16,pos,block2,ln --lr 0.005 --no-progress"
fail=0

train() { # NAME OPTIONS...: trains, saving NAME.tdm; its log in NAME.log
  name=$1
  shift
  bounded 300 "$tandem" train $lm --save "$out/$name.tdm" "$@" >"$out/$name.log" 2>&1 ||
    { cat "$out/$name.log"; echo "FAIL: $name"; fail=1; }
}
bpb() { sed -n 's/^done .*val bpb \([0-9.]*\),.*/\1/p' "$out/$1.log"; }
same() { # A B WHAT
  cmp -s "$out/$1.tdm" "$out/$2.tdm" || { echo "FAIL: $3: $1 and $2 differ"; fail=1; }
}

train one --devices opencl:0,opencl:1 --epochs 3 --deterministic
bounded 400 "$mpiexec" --allow-run-as-root --oversubscribe -np 2 "$tandem" train $lm \
  --strategy multi-worker --devices opencl:0 --epochs 3 --deterministic \
  --save "$out/workers.tdm" >"$out/workers.log" 2>&1 ||
  { cat "$out/workers.log"; echo "FAIL: multi-worker"; fail=1; }
same one workers "two processes against one on both devices"
train sharded --devices opencl:0,opencl:1 --epochs 3 --deterministic --shard-optimizer
same one sharded "the sharded optimizer state against the unsharded"

# Stopped in the second epoch, resumed: the bytes of the uninterrupted run.
opts="--devices opencl:0,opencl:1 --epochs 3 --deterministic"
bounded 300 "$tandem" train $lm $opts --checkpoint-dir "$out/whole" >"$out/whole.log" 2>&1 ||
  { cat "$out/whole.log"; fail=1; }
(exec "$tandem" train $lm $opts --checkpoint-dir "$out/cut") >"$out/cut.log" 2>&1 &
pid=$!
waited=0
until ls "$out/cut" 2>/dev/null | grep -q '^ckpt-'; do
  kill -0 $pid 2>/dev/null || break
  waited=$((waited + 1))
  [ $waited -lt 6000 ] || { echo "FAIL: no first checkpoint"; fail=1; break; }
  sleep 0.05
done
kill -TERM $pid 2>/dev/null || true
wait $pid 2>/dev/null || true
bounded 300 "$tandem" train $lm $opts --checkpoint-dir "$out/cut" --resume >"$out/resumed.log" 2>&1 ||
  { cat "$out/resumed.log"; fail=1; }
grep -h "SIGTERM\|^resumed from" "$out/cut.log" "$out/resumed.log" || true
last=$(ls "$out/whole" | grep '^ckpt-' | tail -n 1)
cmp -s "$out/whole/$last" "$out/cut/$last" ||
  { cat "$out/cut.log" "$out/resumed.log"; echo "FAIL: the resumed run differs from the whole run"; fail=1; }

train apis --devices opencl:0,vulkan:0 --epochs 3
# A step of 40 windows of 128 on lavapipe: bias gradients over 5120 positions, past
# what one loop of its driver runs right, summed over the examples then the positions.
bounded 300 "$tandem" train --text "$out/slice.txt" --context 128 --batch 40 --epochs 1 \
  --layers emb256x16,pos,block2,ln --devices vulkan:0 --no-progress >"$out/long.log" 2>&1 ||
  { cat "$out/long.log"; echo "FAIL: 128-byte windows on lavapipe"; fail=1; }
train mixed --devices opencl:0,opencl:1 --epochs 3 --mixed-precision
train f16_sums --devices opencl:0,opencl:1 --epochs 3 --f16-all-reduce
f32=$(bpb one)
for name in apis mixed f16_sums; do
  b=$(bpb $name)
  echo "val bpb after 3 epochs: $name $b, f32 on PoCL x2 $f32"
  awk -v b="$b" -v f="$f32" 'BEGIN { d = b - f; if (d < 0) d = -d; exit !(b > 0 && b < 8 && d < 0.05 * f) }' ||
    { echo "FAIL: $name: want val bpb below 8 and within 5 % of f32's"; fail=1; }
done

if [ -x /usr/bin/python3 ]; then
  train traced --devices opencl:0,opencl:1 --epochs 1 --trace "$out/t.json" --trace-steps 2:4
  /usr/bin/python3 "$(dirname "$0")/check_trace.py" "$out/t.json" 0 2 2 4 device,device || fail=1
fi
exit $fail
