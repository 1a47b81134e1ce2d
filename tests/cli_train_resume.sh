#!/bin/sh
# Kill -9 during tandem train, then --resume: with --deterministic the run ends with
# checkpoints identical, byte for byte, to those of an uninterrupted run. The metrics
# file of the killed run already holds the epochs it finished.
# SIGTERM and SIGHUP, as a batch scheduler sends them before it kills, stop the run
# after the step in progress: it says so on stderr, saves a checkpoint of that step,
# leaves no temporary file and exits 128 + the signal; --resume goes on from the
# middle of the epoch to the same bytes.
# usage: cli_train_resume.sh TANDEM DEVICES
set -eu
tandem=$1
devices=$2
out=$(mktemp -d "${TMPDIR:-/tmp}/tandem-cli-resume-XXXXXX")
trap 'rm -rf "$out"' EXIT
opts="--devices $devices --epochs 8 --dropout 0.1 --deterministic --no-progress"
run() { "$tandem" train $opts --checkpoint-dir "$@"; }
run "$out/whole" >/dev/null
# exec: $! must be tandem itself, not a subshell that kill -9 would leave it behind.
(exec "$tandem" train $opts --checkpoint-dir "$out/cut" --metrics "$out/cut.csv") >"$out/log" &
pid=$!
# Kill once the metrics hold the third epoch: each epoch's checkpoint is saved before
# its metrics row, and both files are replaced whole, so this waits for neither half.
rows() { n=$(grep -c '^[0-9]' "$out/cut.csv" 2>/dev/null) || true; echo "${n:-0}"; }
while [ "$(rows)" -lt 3 ]; do
  kill -0 $pid 2>/dev/null || { echo "the run ended before it could be killed"; exit 1; }
  sleep 0.05
done
kill -9 $pid
wait $pid 2>/dev/null || true
ckpts=$(ls "$out/cut" | grep -c '^ckpt-.*\.tdm$' || true)
[ "$ckpts" -ge 3 ] || { echo "the killed run holds $ckpts checkpoints after 3 epochs' metrics"; exit 1; }
run "$out/cut" --resume >"$out/log2"
grep -q '^resumed from global step' "$out/log2" || { cat "$out/log2"; echo "did not resume"; exit 1; }
last=$(ls "$out/whole" | grep '^ckpt-' | tail -n 1)
cmp "$out/whole/$last" "$out/cut/$last" || { echo "resumed run differs from the whole run"; exit 1; }

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

# Windows has no SIGTERM or SIGHUP to send (its console's Ctrl-C events stand for
# them), and Wine does not turn kill -TERM into one.
term_step=none
if [ -z "${TDM_TEST_WINDOWS:-}" ]; then
  stop TERM 143 "$out/term"
  term_step=$step
  run "$out/term" --resume >"$out/log3"
  grep -q "^resumed from global step $term_step " "$out/log3" ||
    { cat "$out/log3"; echo "--resume did not take the checkpoint of step $term_step"; exit 1; }
  cmp "$out/whole/$last" "$out/term/$last" ||
    { echo "the run stopped at step $term_step and resumed differs from the whole run"; exit 1; }
  stop HUP 129 "$out/hup"
fi

# A CNN with batch normalisation: the moving statistics are in the checkpoints too,
# so a run stopped after 2 epochs and resumed ends with the whole run's bytes.
cnn="--devices $devices --layers conv4k3,bn,pool2,16 --deterministic --no-progress"
"$tandem" train $cnn --epochs 3 --checkpoint-dir "$out/bn-whole" >/dev/null
"$tandem" train $cnn --epochs 2 --checkpoint-dir "$out/bn-cut" >/dev/null
"$tandem" train $cnn --epochs 3 --checkpoint-dir "$out/bn-cut" --resume >/dev/null
last_bn=$(ls "$out/bn-whole" | grep '^ckpt-' | tail -n 1)
cmp "$out/bn-whole/$last_bn" "$out/bn-cut/$last_bn" ||
  { echo "the resumed CNN with batch norm differs from the whole run"; exit 1; }
echo "cli_train_resume: ok ($(head -n 1 "$out/log2"), final $last identical; SIGTERM at step $term_step too; with batch norm too)"
