#!/bin/sh
# A multi-worker job stopped by SIGTERM, as a batch scheduler stops one (it signals
# every process of the job): every process stops after the same global step,
# says so and exits 143, the chief's checkpoint holds that step (once each process
# ended at once, and processes stopped at different steps could wait on each other),
# and --resume finishes the run to the bits of one never stopped (--deterministic).
# Also with SIGTERM sent to one process alone: the others stop with it.
# usage: cli_job_stop.sh TANDEM MPIEXEC
set -eu
tandem=$1 mpiexec=$2
dir=$(mktemp -d "${TMPDIR:-/tmp}/tandem-job-stop-XXXXXX")
trap 'rm -rf "$dir"' EXIT
. "$(dirname "$0")/time_limit.sh"
# Many short epochs: the signal lands inside the run, wherever the machine's load puts it
# (it is sent once epoch 2 ends, 18 epochs before the end). Not more: the whole run and
# the resumed one each train them all, under mpirun on a busy 2-core machine too.
opts="--strategy multi-worker --devices reference --layers 32 --epochs 20 --deterministic --no-progress"
fail() {
    for f in "$dir"/*/err.* "$dir"/*/out.*; do [ -f "$f" ] && { echo "== $f"; tail -n 4 "$f"; }; done
    echo "FAIL: $*"
    exit 1
}

# job NAME ARGS...: 2 processes in the background, rank R's output in NAME/out.R and
# err.R, each process the program itself (exec), so that the signal reaches it. The
# signals go to the processes, not to mpirun: mpirun, signalled, passes a SIGTERM on
# odls_base_sigkill_timeout seconds later and a SIGKILL as long after that (1 s by
# default: too short for a busy machine's job to reach its next comparison).
job() {
    name=$1
    shift
    mkdir -p "$dir/$name"
    # shellcheck disable=SC2016 # expanded by each process's own sh
    (exec timeout --kill-after=10 $((400 * time_scale)) "$mpiexec" --allow-run-as-root \
        --oversubscribe -np 2 sh -c \
        'd=$1; shift; r=$OMPI_COMM_WORLD_RANK; exec "$@" > "$d/out.$r" 2> "$d/err.$r"' \
        sh "$dir/$name" "$tandem" train $opts "$@") &
    job_pid=$!
}

# after_epoch NAME N: waits until the chief has trained N epochs.
after_epoch() {
    why=$(until_epoch "$dir/$1/out.0" "$2" $job_pid) || fail "$1: $why"
}

# stopped NAME: both processes stopped after one step, which the chief saved.
stopped() {
    wait $job_pid || :
    steps=""
    for r in 0 1; do
        step=$(sed -n 's/.*: stopped after global step \([0-9]*\).*/\1/p' "$dir/$1/err.$r")
        [ -n "$step" ] || fail "$1: rank $r did not say where it stopped"
        steps="$steps $step"
    done
    set -- "$1" $steps
    [ "$2" = "$3" ] || fail "$1: rank 0 stopped after step $2, rank 1 after step $3"
    grep -q "checkpoint saved in $dir/$1/ckpt; --resume continues from it" "$dir/$1/err.0" ||
        fail "$1: the chief did not say its checkpoint was saved"
    ls "$dir/$1/ckpt" | grep -q "^ckpt-0*$2\.tdm$" || fail "$1: no checkpoint of step $2"
    echo "$1: both processes stopped after global step $2, its checkpoint saved"
}

# rank_pid NAME R: the pid of rank R of job NAME.
rank_pid() {
    for p in $(pgrep -x tandem || true); do
        tr '\0' '\n' <"/proc/$p/cmdline" 2>/dev/null | grep -qxF "$dir/$1/ckpt" || continue
        tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$2" &&
            { echo "$p"; return; }
    done
}

job whole --checkpoint-dir "$dir/whole/ckpt"
wait $job_pid || fail "whole: the job ended with status $?"
last=$(ls "$dir/whole/ckpt" | grep '^ckpt-' | tail -n 1)

# The scheduler's SIGTERM to every process of the job.
job all --checkpoint-dir "$dir/all/ckpt"
after_epoch all 2
pids="$(rank_pid all 0) $(rank_pid all 1)"
[ "$(echo $pids | wc -w)" -eq 2 ] || fail "all: the ranks' processes not found ($pids)"
kill -TERM $pids
stopped all
grep -q "SIGTERM: stopped after global step" "$dir/all/err.1" || fail "all: rank 1 did not name SIGTERM"
job all --checkpoint-dir "$dir/all/ckpt" --resume
wait $job_pid || fail "all --resume: the job ended with status $?"
grep -q '^resumed from global step' "$dir/all/out.0" || fail "all: the resumed run did not resume"
cmp "$dir/whole/ckpt/$last" "$dir/all/ckpt/$last" || fail "all: the resumed run differs from the whole run"
echo "all: resumed to the bits of the whole run"

# SIGTERM to rank 1 alone: rank 0 stops with it, at the same step.
job one --checkpoint-dir "$dir/one/ckpt"
after_epoch one 2
pid=$(rank_pid one 1)
[ -n "$pid" ] || fail "one: rank 1's process not found"
kill -TERM "$pid"
stopped one
grep -q "another process of the job asked to stop" "$dir/one/err.0" ||
    fail "one: rank 0, without the signal, did not say why it stopped"
exit 0
