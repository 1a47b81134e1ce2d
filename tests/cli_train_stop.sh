#!/bin/sh
# SIGTERM and SIGHUP, as a batch scheduler sends them before it kills, stop tandem
# train after the step in progress: it says so on stderr, saves a checkpoint of that
# step, leaves no temporary file and exits 128 + the signal. --resume goes on from
# the middle of the epoch, and with --deterministic ends with the bytes of a run
# never stopped.
# usage: cli_train_stop.sh TANDEM DEVICES
set -eu
tandem=$1
devices=$2
out=$(mktemp -d "${TMPDIR:-/tmp}/tandem-cli-stop-XXXXXX")
trap 'rm -rf "$out"' EXIT
opts="--devices $devices --epochs 4 --deterministic --no-progress"
"$tandem" train $opts --checkpoint-dir "$out/whole" >/dev/null

# stop SIGNAL STATUS DIR: sends SIGNAL once the first epoch's checkpoint is there, so
# that the run is inside the second epoch; checks what it leaves.
stop() {
  (exec "$tandem" train $opts --checkpoint-dir "$3") >"$out/log" 2>"$out/err" &
  pid=$!
  while ! ls "$3" 2>/dev/null | grep -q '^ckpt-.*\.tdm$'; do
    kill -0 $pid 2>/dev/null || { cat "$out/err"; echo "the run ended before $1"; exit 1; }
    sleep 0.02
  done
  kill -s "$1" $pid
  status=0
  wait $pid || status=$?
  [ "$status" -eq "$2" ] || { cat "$out/err"; echo "$1: exit $status, not $2"; exit 1; }
  step=$(sed -n "s/.*SIG$1: stopped after global step \([0-9]*\), checkpoint saved in.*/\1/p" \
    "$out/err")
  [ -n "$step" ] || { cat "$out/err"; echo "$1: no message naming the step and checkpoint"; exit 1; }
  ls -a "$3" | grep -q 'tmp-' && { ls -a "$3"; echo "$1: a temporary file is left"; exit 1; }
  ls "$3" | grep -q "^ckpt-0*$step\.tdm\$" ||
    { ls "$3"; echo "$1: no checkpoint of step $step"; exit 1; }
  return 0
}

stop TERM 143 "$out/term"
term_step=$step
"$tandem" train $opts --checkpoint-dir "$out/term" --resume >"$out/log2"
grep -q "^resumed from global step $term_step " "$out/log2" ||
  { cat "$out/log2"; echo "--resume did not take the checkpoint of step $term_step"; exit 1; }
last=$(ls "$out/whole" | grep '^ckpt-' | tail -n 1)
cmp "$out/whole/$last" "$out/term/$last" ||
  { echo "the run stopped at step $term_step and resumed differs from the whole run"; exit 1; }

stop HUP 129 "$out/hup"
echo "cli_train_stop: ok (SIGTERM at step $term_step resumed to the whole run's $last; SIGHUP at step $step)"
