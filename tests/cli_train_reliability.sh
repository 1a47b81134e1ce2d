#!/bin/sh
# tandem train against a hostile but realistic user: values that once wrapped, a
# second run in the same checkpoint directory, a damaged newest checkpoint, a resume
# with another configuration, data that is a FIFO, a device or a gzip bomb. Every
# refusal must be said, and no checkpoint lost.
# usage: cli_train_reliability.sh TANDEM
set -eu
tandem=$1
out=$(mktemp -d "${TMPDIR:-/tmp}/tandem-cli-reliability-XXXXXX")
pid=
trap '[ -n "$pid" ] && kill -9 $pid 2>/dev/null; rm -rf "$out"' EXIT
fail=0
train() { "$tandem" train --devices reference:0 --layers 16 --no-progress "$@"; }

# Expects a refusal: exit status $1, stderr containing $2, for the rest of the line.
refused() {
  want_status=$1 want_text=$2
  shift 2
  status=0
  train "$@" >"$out/stdout" 2>"$out/stderr" || status=$?
  if [ "$status" -ne "$want_status" ] || ! grep -qF -- "$want_text" "$out/stderr"; then
    echo "FAIL: tandem train $*: exit $status (want $want_status), stderr:"
    cat "$out/stderr"
    echo "  (want: $want_text)"
    fail=1
  fi
}

# Values that wrapped or were replaced without a word.
refused 2 "--epochs: '-1' is not a whole number from 1 to 1000000" --epochs -1
refused 2 "--epochs: 4294967296 is out of range" --epochs 4294967296
refused 2 "--lr: 'nan' is not a finite number" --lr nan
refused 2 "--batch: 4611686018427387904 is out of range" --batch 4611686018427387904
refused 2 "unknown option --epoch; did you mean --epochs?" --epoch 3

# Data that is no regular file (Windows has no FIFO and no /dev), or decompresses past
# the input limit.
if [ -z "${TDM_TEST_WINDOWS:-}" ]; then
  mkfifo "$out/fifo.csv"
  refused 1 "fifo.csv is a FIFO (named pipe), not a regular file" --data "$out/fifo.csv"
  refused 1 "/dev/zero is a character device, not a regular file" --data /dev/zero
fi
awk 'BEGIN { for (i = 0; i < 200000; i++) print "1,2,3,0" }' | gzip >"$out/bomb.csv.gz"
TDM_MAX_INPUT_BYTES=64K refused 1 "more than 65536 bytes, the input limit" \
  --data "$out/bomb.csv.gz"

# One stray label would make a model of a million classes: refused, naming its row.
awk 'BEGIN { for (i = 0; i < 40; i++) print i % 7 "," i % 3 "," (i == 17 ? 1000000 : i % 2) }' \
  >"$out/stray.csv"
refused 1 "stray.csv:18:3: label 1000000 would make 1000001 classes, more than the limit of 65536" \
  --data "$out/stray.csv"
refused 1 "stray.csv:18:3: label 1000000 would make 1000001 classes, more than the limit of 1000" \
  --data "$out/stray.csv" --max-classes 1000

# A second run in a directory that a first one holds is refused, naming the holder.
"$tandem" train --devices reference:0 --layers 16 --no-progress --epochs 1000 \
  --checkpoint-dir "$out/held" >/dev/null 2>&1 &
pid=$!
while ! grep -q pid "$out/held/.tandem-lock" 2>/dev/null; do
  kill -0 $pid 2>/dev/null || { echo "FAIL: the first run ended early"; exit 1; }
  sleep 0.05
done
# (Under Wine the holder's pid is Windows' own, not the shell's.)
holder="pid $pid"
[ -n "${TDM_TEST_WINDOWS:-}" ] && holder="pid "
refused 1 "is in use by another run: tandem ($holder" --epochs 1 --checkpoint-dir "$out/held"
kill -9 $pid
wait $pid 2>/dev/null || true
pid=
train --epochs 1 --checkpoint-dir "$out/held" >/dev/null || { echo "FAIL: the lock outlived its run"; fail=1; }

# The first --resume into an empty directory (once qsort(NULL, 0) under UBSan).
train --epochs 1 --checkpoint-dir "$out/empty" --resume >"$out/stdout" 2>&1 &&
  grep -q "^no checkpoint in $out/empty: starting afresh" "$out/stdout" || {
  echo "FAIL: --resume into an empty directory:"; cat "$out/stdout"; fail=1; }

# A checkpoint folder that is a link to a folder not made yet (once "File exists"):
# made where the link points, as the user who made the link expects; where that
# cannot be, the error names both.
# (The Windows build follows no link: docs/WINDOWS.md.)
if [ -z "${TDM_TEST_WINDOWS:-}" ]; then
  ln -s "$out/later" "$out/ck-link"
  train --epochs 1 --checkpoint-dir "$out/ck-link" >/dev/null 2>"$out/stderr" &&
    [ -L "$out/ck-link" ] && ls "$out/later" | grep -q '^ckpt-.*\.tdm$' || {
    echo "FAIL: a checkpoint folder that is a dangling link:"; cat "$out/stderr"; fail=1; }
  ln -s "$out/missing/far" "$out/ck-far"
  refused 1 "cannot create the directory $out/missing/far, where the symbolic link $out/ck-far points: No such file or directory" \
    --epochs 1 --checkpoint-dir "$out/ck-far"
fi

# A damaged newest checkpoint: said on stderr, kept aside untouched, the older one used.
ck="$out/ck"
train --epochs 3 --checkpoint-dir "$ck" >/dev/null
newest=$(ls "$ck" | grep '^ckpt-.*\.tdm$' | tail -n 1)
printf 'X' | dd of="$ck/$newest" bs=1 seek=200 conv=notrunc 2>/dev/null
cp "$ck/$newest" "$out/damaged-copy"
train --epochs 4 --checkpoint-dir "$ck" --resume >"$out/stdout" 2>"$out/stderr"
grep -qF "$newest is damaged and was not used" "$out/stderr" &&
  grep -qF "kept as $ck/$newest.damaged" "$out/stderr" &&
  grep -q '^resumed from global step 46 ' "$out/stdout" || {
  echo "FAIL: damaged newest checkpoint:"; cat "$out/stderr" "$out/stdout"; fail=1; }
cmp -s "$ck/$newest.damaged" "$out/damaged-copy" || { echo "FAIL: the damaged file changed"; fail=1; }
[ -f "$ck/$newest" ] || { echo "FAIL: the resumed run did not write $newest again"; fail=1; }

# Another configuration is refused, naming both values, unless allowed.
refused 1 "--lr: the checkpoint has 0.001, this run 0.01" \
  --epochs 5 --checkpoint-dir "$ck" --resume --lr 0.01
refused 1 "--activation: the checkpoint has relu, this run tanh" \
  --epochs 5 --checkpoint-dir "$ck" --resume --activation tanh
refused 1 "--allow-config-change lr" --epochs 5 --checkpoint-dir "$ck" --resume --lr 0.01
train --epochs 5 --checkpoint-dir "$ck" --resume --lr 0.01 --allow-config-change lr \
  >"$out/stdout" 2>&1 && grep -q '^note     --lr changed from 0.001 to 0.01' "$out/stdout" &&
  grep -q '^resumed from global step 92 ' "$out/stdout" || {
  echo "FAIL: --allow-config-change lr:"; cat "$out/stdout"; fail=1; }

# A decaying rate belongs to the configuration: a run of other length decays another
# way, so resuming it with more epochs is refused like another --lr.
train --epochs 2 --lr-decay cosine --checkpoint-dir "$out/cosine" >"$out/stdout"
grep -q '^ *optimizer Adam, learning rate 0.001, cosine decay to 0 over 46 steps,' "$out/stdout" || {
  echo "FAIL: --lr-decay cosine:"; cat "$out/stdout"; fail=1; }
refused 1 "--lr: the checkpoint has 0.001, cosine decay to 0 over 46 steps, this run 0.001, cosine decay to 0 over 69 steps" \
  --epochs 3 --lr-decay cosine --checkpoint-dir "$out/cosine" --resume
# A path longer than the system allows: every message keeps its reason, and stays short
# of the 9 KB that once cut it (the path gives way in the middle). POSIX's words.
if [ -z "${TDM_TEST_WINDOWS:-}" ]; then
  long=$out/$(printf '%0300d' 0)/$(printf '%05000d' 0).csv
  for option in --data --save --metrics --checkpoint-dir; do
    refused 1 "File name too long" --epochs 1 "$option" "$long"
    [ "$(wc -c <"$out/stderr")" -lt 8192 ] || { echo "FAIL: $option: a message of $(wc -c <"$out/stderr") bytes"; fail=1; }
    tail -n 1 "$out/stderr" | grep -q 'File name too long$' || { echo "FAIL: $option: the reason is not last"; fail=1; }
  done
fi
[ $fail -eq 0 ] && echo "cli_train_reliability: ok"
exit $fail
