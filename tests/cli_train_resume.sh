#!/bin/sh
# Kill -9 during tandem train, then --resume: with --deterministic the run ends with
# checkpoints identical, byte for byte, to those of an uninterrupted run. The metrics
# file of the killed run already holds the epochs it finished.
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

# A CNN with batch normalisation: the moving statistics are in the checkpoints too,
# so a run stopped after 2 epochs and resumed ends with the whole run's bytes.
cnn="--devices $devices --layers conv4k3,bn,pool2,16 --deterministic --no-progress"
"$tandem" train $cnn --epochs 3 --checkpoint-dir "$out/bn-whole" >/dev/null
"$tandem" train $cnn --epochs 2 --checkpoint-dir "$out/bn-cut" >/dev/null
"$tandem" train $cnn --epochs 3 --checkpoint-dir "$out/bn-cut" --resume >/dev/null
last_bn=$(ls "$out/bn-whole" | grep '^ckpt-' | tail -n 1)
cmp "$out/bn-whole/$last_bn" "$out/bn-cut/$last_bn" ||
  { echo "the resumed CNN with batch norm differs from the whole run"; exit 1; }
echo "cli_train_resume: ok ($(head -n 1 "$out/log2"), final $last identical; with batch norm too)"
