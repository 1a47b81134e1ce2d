#!/bin/sh
# The processes of a job must agree before they train (cli_job_agreement.sh TANDEM
# MPIEXEC), started as MPMD jobs, one command line per process:
# - 2 multi-worker processes that differ in --lr, --activation, --seed, --batch or the
#   order of their data rows each exit 2 before training, every process naming the
#   option and both values;
# - a 3-process parameter-server job whose server differs in --optimizer does the same;
# - a parameter-server job given TDM_COLLECTIVE_TIMEOUT by mpirun's -x for its first
#   program alone (what the MPMD form does with a -x before it) does the same, naming
#   the job's deadline: its processes would wait for each other by other deadlines;
# - jobs whose processes differ only in their own paths (--metrics) still train.
set -eu
tandem=$1 mpiexec=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
quick="--devices reference --layers 16 --epochs 1 --no-progress"
limit=120

# One process: its exit status, stdout and stderr kept by rank.
# shellcheck disable=SC2016 # expanded by each process's own sh
keep='d=$0 t=$1; shift; rc=0; r=$OMPI_COMM_WORLD_RANK
"$t" train "$@" > "$d/out.$r" 2> "$d/err.$r" || rc=$?; echo $rc > "$d/rc.$r"'

fail() {
    echo "FAIL: $*" >&2
    for f in "$dir"/err.*; do [ -f "$f" ] && { echo "--- $f" >&2; cat "$f" >&2; }; done
    exit 1
}

# job CASE MPIRUN-ARGS...: runs the job within the limit; each process's line is
# `-np 1 sh -c "$keep" "$dir" "$tandem" OPTIONS...`.
job() {
    name=$1
    shift
    rm -f "$dir"/rc.* "$dir"/err.* "$dir"/out.*
    rc=0
    timeout $limit "$mpiexec" --allow-run-as-root --oversubscribe "$@" > /dev/null 2>&1 || rc=$?
    [ $rc -ne 124 ] ||
        fail "$name: the job ran past $limit s: a process that differs was not stopped"
}

# refused CASE PROCESSES TEXT: every process exited 2 and said TEXT.
refused() {
    r=0
    while [ $r -lt "$2" ]; do
        rc=$(cat "$dir/rc.$r" 2> /dev/null || echo "no status")
        [ "$rc" = 2 ] ||
            fail "$1: rank $r exited with $rc, not 2: the job's processes differ and must not train"
        grep -qF -- "$3" "$dir/err.$r" || fail "$1: rank $r did not say '$3'"
        r=$((r + 1))
    done
    echo "$1: every process exited 2 saying '$3'"
}

# trained CASE PROCESSES: every process exited 0, the chief after its summary.
trained() {
    r=0
    while [ $r -lt "$2" ]; do
        rc=$(cat "$dir/rc.$r" 2> /dev/null || echo "no status")
        [ "$rc" = 0 ] || fail "$1: rank $r exited with $rc: processes that agree must train"
        r=$((r + 1))
    done
    grep -q '^done' "$dir/out.0" || fail "$1: the chief did not finish training"
    echo "$1: trained"
}

# two CASE TEXT RANK0-OPTIONS -- RANK1-OPTIONS: a multi-worker job of two processes.
two() {
    name=$1 text=$2
    shift 2
    first=""
    while [ "$1" != -- ]; do
        first="$first $1"
        shift
    done
    shift
    # shellcheck disable=SC2086 # the options are words
    job "$name" -np 1 sh -c "$keep" "$dir" "$tandem" --strategy multi-worker $quick $first \
        : -np 1 sh -c "$keep" "$dir" "$tandem" --strategy multi-worker $quick "$@"
    [ -z "$text" ] || refused "$name" 2 "$text"
}

two lr 'rank 1 differs from rank 0 in --lr: 0.01 against 0.001' --lr 0.001 -- --lr 0.01
two activation 'rank 1 differs from rank 0 in --activation: tanh against relu' \
    --activation relu -- --activation tanh
two seed 'rank 1 differs from rank 0 in --seed: 2 against 1' --seed 1 -- --seed 2
two batch 'rank 1 differs from rank 0 in --batch: 32 against 64' --batch 64 -- --batch 32

# The same rows in another order: a different hash of the data, the same size.
gzip -dc "$(dirname "$0")/../data/digits.csv.gz" > "$dir/rows.csv"
tac "$dir/rows.csv" > "$dir/reversed.csv"
two data 'rank 1 differs from rank 0 in --data: 1797 examples of 64 features' \
    --data "$dir/rows.csv" -- --data "$dir/reversed.csv"

two paths "" --metrics "$dir/m0.json" -- --metrics "$dir/m1.json"
trained paths 2

ps="--strategy parameter-server --ps-processes 1 $quick"
# shellcheck disable=SC2086
job ps-optimizer -np 2 sh -c "$keep" "$dir" "$tandem" $ps --optimizer adam \
    : -np 1 sh -c "$keep" "$dir" "$tandem" $ps --optimizer sgd
refused ps-optimizer 3 'rank 2 differs from rank 0 in --optimizer: sgd against adam'

# shellcheck disable=SC2086
job ps-paths -np 1 sh -c "$keep" "$dir" "$tandem" $ps --metrics "$dir/m0.json" \
    : -np 2 sh -c "$keep" "$dir" "$tandem" $ps
trained ps-paths 3

# -x before the first program reaches that program alone: the deadlines differ.
# shellcheck disable=SC2086
job ps-deadline -x TDM_COLLECTIVE_TIMEOUT=5 -np 1 sh -c "$keep" "$dir" "$tandem" $ps \
    : -np 2 sh -c "$keep" "$dir" "$tandem" $ps
refused ps-deadline 3 "differs from rank 0 in the job's deadline (collective_timeout, TDM_COLLECTIVE_TIMEOUT)"
