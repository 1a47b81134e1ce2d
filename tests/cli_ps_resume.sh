#!/bin/sh
# Checkpoints of parameter-server jobs (cli_ps_resume.sh TANDEM MPIEXEC):
# - in one process (--ps-devices), stopped after 2 epochs and resumed to 4: the
#   whole run's last checkpoint, byte for byte;
# - one worker and one server process (synchronous, so deterministic): the same, and
#   that checkpoint is one process's on the worker's device, byte for byte (the
#   servers' variables and slots under the same names);
# - one worker and two server processes, each keeping some of the variables: the
#   same, and every server saves the same step, so the resumed run ends on one
#   process's bits;
# - two workers and one server (asynchronous: the order of their pushes is not
#   fixed, so no bits are promised) resume from the chief's checkpoint at its step
#   and finish every worker's steps;
# - two workers and two servers with --deterministic (pushes in turn): two runs save
#   the same checkpoint at the same step, and two resumes from it end on the same
#   bits (not those of the run never stopped: each worker had read the servers at
#   another point of the round, and a checkpoint holds one state);
# - kill -9 of the server mid-run, then --resume: the job goes on from the newest
#   checkpoint left and finishes.
set -eu
tandem=$1 mpiexec=$2
dir=$(mktemp -d "${TMPDIR:-/tmp}/tandem-ps-resume-XXXXXX")
trap 'rm -rf "$dir"' EXIT
. "$(dirname "$0")/time_limit.sh"
run() { bounded 400 "$mpiexec" --allow-run-as-root --oversubscribe "$@"; }
last() { ls "$1" | grep '^ckpt-.*\.tdm$' | tail -n 1; }
ps="--strategy parameter-server --no-progress"

inproc="$ps --devices opencl:0,opencl:1 --ps-devices opencl:1"
"$tandem" train $inproc --epochs 4 --checkpoint-dir "$dir/in-whole" > /dev/null
"$tandem" train $inproc --epochs 2 --checkpoint-dir "$dir/in-cut" > /dev/null
"$tandem" train $inproc --epochs 4 --checkpoint-dir "$dir/in-cut" --resume > "$dir/in.txt"
grep -q '^resumed from global step 46' "$dir/in.txt"
cmp "$dir/in-whole/$(last "$dir/in-whole")" "$dir/in-cut/$(last "$dir/in-whole")"
echo "parameter devices in one process, resumed after 2 of 4 epochs: the same bits"

job="$ps --ps-processes 1 --devices opencl:0"
"$tandem" train --devices opencl:0 --no-progress --epochs 4 --checkpoint-dir "$dir/one" > /dev/null
run -np 2 "$tandem" train $job --epochs 4 --checkpoint-dir "$dir/whole" > /dev/null
run -np 2 "$tandem" train $job --epochs 2 --checkpoint-dir "$dir/cut" > /dev/null
run -np 2 "$tandem" train $job --epochs 4 --checkpoint-dir "$dir/cut" --resume > "$dir/cut.txt"
grep -q '^resumed from global step 46' "$dir/cut.txt"
final=$(last "$dir/whole")
cmp "$dir/whole/$final" "$dir/cut/$final"
cmp "$dir/one/$final" "$dir/whole/$final"
echo "1 worker, 1 server, resumed after 2 of 4 epochs: the same bits, one process's too"

job2="$ps --ps-processes 2 --devices opencl:0"
run -np 3 "$tandem" train $job2 --epochs 4 --checkpoint-dir "$dir/whole2" > /dev/null
run -np 3 "$tandem" train $job2 --epochs 2 --checkpoint-dir "$dir/cut2" > /dev/null
run -np 3 "$tandem" train $job2 --epochs 4 --checkpoint-dir "$dir/cut2" --resume > "$dir/cut2.txt"
grep -q '^resumed from global step 46' "$dir/cut2.txt"
cmp "$dir/whole2/$final" "$dir/cut2/$final"
cmp "$dir/one/$final" "$dir/cut2/$final"
echo "1 worker, 2 servers, resumed after 2 of 4 epochs: the same bits, one process's too"

# Two workers of 12 steps an epoch each: the job's global step counts both, and the
# chief's last checkpoint may precede the other worker's last steps (its own 24 are
# in).
step() { last "$1" | sed 's/^ckpt-0*\([0-9]*\)\.tdm$/\1/'; }
run -np 3 "$tandem" train $job --epochs 2 --checkpoint-dir "$dir/two" > /dev/null
saved=$(step "$dir/two")
run -np 3 "$tandem" train $job --epochs 4 --checkpoint-dir "$dir/two" --resume > "$dir/two.txt"
cat "$dir/two.txt"
grep -q "^resumed from global step $saved (epoch 2 of 4)" "$dir/two.txt"
grep -q '^done     4 epochs' "$dir/two.txt"
[ "$(step "$dir/two")" -ge $((saved + 24)) ]
echo "2 workers, 1 server, resumed at step $saved after 2 of 4 epochs: 4 epochs done"

turn="$ps --ps-processes 2 --devices opencl:0 --deterministic"
run -np 4 "$tandem" train $turn --epochs 4 --checkpoint-dir "$dir/turn" > /dev/null
run -np 4 "$tandem" train $turn --epochs 2 --checkpoint-dir "$dir/turn-a" > /dev/null
cut=$(last "$dir/turn-a")
cmp "$dir/turn/$cut" "$dir/turn-a/$cut"
cp -r "$dir/turn-a" "$dir/turn-b"
for copy in turn-a turn-b; do
  run -np 4 "$tandem" train $turn --epochs 4 --checkpoint-dir "$dir/$copy" --resume > "$dir/$copy.txt"
  grep -q "^resumed from global step 48 (epoch 2 of 4)" "$dir/$copy.txt"
done
cmp "$dir/turn-a/$(last "$dir/turn")" "$dir/turn-b/$(last "$dir/turn")"
echo "2 workers, 2 servers in turn: the same checkpoint at step 48, the same bits resumed"

# Each rank notes its pid; the server (rank 2) is killed once 3 checkpoints exist.
(exec "$mpiexec" --allow-run-as-root --oversubscribe -np 3 sh -c \
   'echo $$ > "$1/pid.$OMPI_COMM_WORLD_RANK"; shift; exec "$@"' sh "$dir" \
   "$tandem" train $job --epochs 100 --checkpoint-dir "$dir/kill") > "$dir/kill.log" 2>&1 &
job_pid=$!
tries=0
while [ "$(ls "$dir/kill" 2>/dev/null | grep -c '^ckpt-.*\.tdm$')" -lt 3 ]; do
  kill -0 $job_pid 2>/dev/null || { cat "$dir/kill.log"; echo "the job ended before the kill"; exit 1; }
  tries=$((tries + 1))
  [ $tries -lt 4800 ] || { kill $job_pid; echo "no third checkpoint within 4 minutes"; exit 1; }
  sleep 0.05
done
kill -9 "$(cat "$dir/pid.2")"
if bounded 60 sh -c 'while kill -0 "$0" 2>/dev/null; do sleep 0.1; done' $job_pid; then :; else
  kill $job_pid; echo "the job went on without its server"; exit 1
fi
wait $job_pid 2>/dev/null && { echo "the job without its server succeeded"; exit 1; }
left=$(step "$dir/kill")
run -np 3 "$tandem" train $job --epochs 100 --checkpoint-dir "$dir/kill" --resume > "$dir/kill2.txt"
grep -q "^resumed from global step $left " "$dir/kill2.txt" ||
  { head -n 3 "$dir/kill2.txt"; echo "did not resume from step $left"; exit 1; }
grep -q '^done     100 epochs' "$dir/kill2.txt"
echo "server killed after step $left, resumed there: 100 epochs done"
