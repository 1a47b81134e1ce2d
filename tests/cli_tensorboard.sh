#!/bin/sh
# tandem train --tensorboard writes event files that TensorBoard's own reader takes,
# holding the values of the --metrics file (tensorboard_check.py): a classifier with a
# cosine rate and batch_loss at every step, a regression's errors with batch_loss every
# 7 steps, and a run resumed into the same folder, which adds a file of the epochs it
# ran beside the first run's. Refusals name the option. On the reference device.
# usage: cli_tensorboard.sh TANDEM CHECK_PYTHON DATA_DIR
set -eu
tandem=$1 python=$2 data=$3
check=$(dirname "$0")/tensorboard_check.py
out=$(mktemp -d "${TMPDIR:-/tmp}/tandem-cli-tensorboard-XXXXXX")
trap 'rm -rf "$out"' EXIT
fail=0
train() { # NAME OPTIONS...: --tensorboard out/NAME, --metrics out/NAME.csv
  name=$1
  shift
  "$tandem" train --devices reference --no-progress --tensorboard "$out/$name" \
    --metrics "$out/$name.csv" "$@" >"$out/log" 2>&1 || { cat "$out/log"; fail=1; }
}
files() { # DIR: its event files
  find "$1" -name 'events.out.tfevents.*' | wc -l
}

train digits --epochs 3 --layers 32 --lr 0.01 --lr-decay cosine --tensorboard-every 1
grep -q "wrote $out/digits (--tensorboard)" "$out/log" || { echo "the folder is not named"; fail=1; }
"$python" "$check" "$out/digits" "$out/digits.csv" --lr 0.01 --cosine --every 1 || fail=1

train diabetes --data "$data/diabetes.csv.gz" --header --label-column progression --loss mse \
  --epochs 3 --lr 0.1 --tensorboard-every 7
"$python" "$check" "$out/diabetes" "$out/diabetes.csv" --lr 0.1 --every 7 || fail=1

train resumed --epochs 2 --layers 32 --checkpoint-dir "$out/ckpt"
train resumed --epochs 4 --layers 32 --checkpoint-dir "$out/ckpt" --resume
[ "$(files "$out/resumed/train")" = 2 ] && [ "$(files "$out/resumed/validation")" = 2 ] ||
  { echo "a resumed run does not add its own event files"; fail=1; }
"$python" "$check" "$out/resumed" "$out/resumed.csv" --lr 0.001 || fail=1

refused() { # REASON OPTIONS...
  reason=$1
  shift
  if "$tandem" train --devices reference --no-progress --epochs 1 "$@" >"$out/refused" 2>&1 ||
     ! grep -q -- "$reason" "$out/refused"; then
    echo "tandem train $*: expected a refusal with '$reason', got:"
    cat "$out/refused"
    fail=1
  fi
}
refused "tensorboard-every is for --tensorboard" --tensorboard-every 5
touch "$out/a_file"
refused "tensorboard: cannot make the folder $out/a_file/logs" --tensorboard "$out/a_file/logs"
[ ! -e "$out/a_file/logs" ] || fail=1
[ $fail -eq 0 ] && echo "cli_tensorboard: ok"
exit $fail
