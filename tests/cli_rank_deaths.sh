#!/bin/sh
# A process of a parameter-server job killed with kill -9 mid-run (cli_rank_deaths.sh
# TANDEM MPIEXEC; two workers and one server, TDM_COLLECTIVE_TIMEOUT=5): every
# surviving process names the dead one by rank and role within the bound and exits
# non-zero, its message starting with that cause:
# - the server killed: both workers name it;
# - worker 1 killed: the chief and the server name it and its shard of the data;
# - the chief killed: worker 1 and the server name it;
# - worker 1 killed in a job started with --tolerate-lost-workers: the chief trains
#   every epoch and, with the server, exits 0 (an option refused, exit 2, without
#   --ps-processes).
set -eu
tandem=$1 mpiexec=$2
dir=$(mktemp -d "${TMPDIR:-/tmp}/tandem-rank-deaths-XXXXXX")
trap 'rm -rf "$dir"' EXIT
. "$(dirname "$0")/time_limit.sh"
bound=$((5 * time_scale)) # a sanitizer's slower steps must not look like a death
job="--strategy parameter-server --ps-processes 1 --devices reference:0 --no-progress"

fail() {
  for f in "$run"/err.* "$run"/mpirun.log; do echo "== $f"; tail -n 5 "$f"; done
  echo "FAIL ($name): $*"
  exit 1
}

# start NAME ARGS...: the job in the background; rank R's pid in pid.R, its output in
# out.R and err.R, and, once it has ended, its exit status in status.R.
start() {
  name=$1
  shift
  run="$dir/$name"
  mkdir "$run"
  (bounded 400 "$mpiexec" --allow-run-as-root --oversubscribe --enable-recovery \
    -x TDM_COLLECTIVE_TIMEOUT=$bound -np 3 sh -c \
    'd=$1 r=$OMPI_COMM_WORLD_RANK; shift
     "$@" > "$d/out.$r" 2> "$d/err.$r" & echo $! > "$d/pid.$r"; wait $!; echo $? > "$d/status.$r"' \
    sh "$run" "$tandem" train $job "$@") > "$run/mpirun.log" 2>&1 &
  mpirun_pid=$!
}

# kill_after_epochs N RANK: kill -9 of RANK once the chief has trained N epochs.
kill_after_epochs() {
  why=$(until_epoch "$run/out.0" "$1" $mpirun_pid) || fail "$why"
  kill -9 "$(cat "$run/pid.$2")"
  killed_at=$(date +%s)
}

# ended: mpirun has ended (every survivor has exited) within 60 s.
ended() {
  bounded 60 sh -c 'while kill -0 "$0" 2>/dev/null; do sleep 0.1; done' $mpirun_pid ||
    fail "the survivors still ran after the kill (went on without the dead rank)"
  wait $mpirun_pid || :
}

# names RANK TEXT: RANK exited non-zero, and its error, written within the bound
# (and 30 s for a slow or busy machine), begins with TEXT: no later failure took its
# place.
names() {
  [ -f "$run/status.$1" ] || fail "rank $1 left no exit status"
  [ "$(cat "$run/status.$1")" -ne 0 ] || fail "rank $1 exited 0"
  grep -q "^tandem train: [a-z ]*: [a-z_]*: \(step [0-9]*: \)\?\([a-z_]*: \)\?.*$2" "$run/err.$1" ||
    fail "rank $1 does not name the dead rank first: '$2'"
  late=$(($(stat -c %Y "$run/err.$1") - killed_at))
  [ $late -le $((bound + 30)) ] || fail "rank $1 named it $late s after the kill"
  echo "$name: rank $1 named it ${late} s after the kill, exit $(cat "$run/status.$1")"
}

# The option is for jobs of parameter-server processes alone.
status=0
"$tandem" train --tolerate-lost-workers --epochs 1 > /dev/null 2> "$dir/option.txt" || status=$?
[ $status -eq 2 ] && grep -q -- '--tolerate-lost-workers is for --ps-processes' "$dir/option.txt" ||
  { cat "$dir/option.txt"; echo "FAIL: --tolerate-lost-workers without --ps-processes"; exit 1; }

start server --epochs 1000
kill_after_epochs 2 2
ended
names 0 "rank 2 (parameter server 0) stopped answering"
names 1 "rank 2 (parameter server 0) stopped answering"
! grep -q "has no slot" "$run/err.0" "$run/err.1" || fail "a follow-up replaced the cause"

worker1="rank 1 (worker 1 of 2, training shard 1 of the data) stopped answering"
start worker --epochs 1000
kill_after_epochs 2 1
ended
names 0 "$worker1"
names 2 "$worker1"

start chief --epochs 1000
kill_after_epochs 2 0
ended
names 1 "rank 0 (the chief, worker 0 of 2, training shard 0 of the data) stopped answering"
names 2 "rank 0 (the chief, worker 0 of 2, training shard 0 of the data) stopped answering"

start tolerated --epochs 30 --tolerate-lost-workers
kill_after_epochs 2 1
ended
for r in 0 2; do
  [ "$(cat "$run/status.$r" 2>/dev/null)" = 0 ] || fail "rank $r did not exit 0"
done
grep -q '^done *30 epochs' "$run/out.0" || fail "the chief did not train every epoch"
echo "tolerated: worker 1 dropped, the chief trained 30 epochs, exit 0"
