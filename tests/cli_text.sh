#!/bin/sh
# tandem train --text: 2 epochs of gpt-tiny (the default model) on a 20000-byte slice
# of the bundled text with windows of 32 bytes, on one PoCL device and on two; the
# metrics' val_bpb is val_loss / ln 2 and falls well below 8 bits (uniform over 256
# bytes), the two runs agree; the
# bundled text is found (--text -); an empty, a binary and a too short text, and a
# model that loses the window's positions, are refused naming the file and why.
# usage: cli_text.sh TANDEM SHAKESPEARE_TXT_GZ
set -eu
tandem=$1
bundled=$2
out=$(mktemp -d "${TMPDIR:-/tmp}/tandem-cli-text-XXXXXX")
trap 'rm -rf "$out"' EXIT
gzip -dc "$bundled" | head -c 20000 >"$out/slice.txt"
fail=0

train() { # POCL_DEVICES DEVICES METRICS
  POCL_DEVICES=$1 "$tandem" train --text "$out/slice.txt" --context 32 --epochs 2 --lr 0.01 \
    --devices "$2" --no-progress --metrics "$3" >"$out/log" 2>&1 || { cat "$out/log"; exit 1; }
  cat "$out/log"
}

# The last epoch's val_bpb, after checking every epoch's against val_loss / ln 2.
last_bpb() { # CSV
  awk -F, '/^epoch,/ { for (i = 1; i <= NF; i++) col[$i] = i; next }
    /^[0-9]/ { loss = $col["val_loss"]; bpb = $col["val_bpb"]; n++
               d = bpb - loss / log(2); if (d < 0) d = -d
               if (d > 1e-6 * bpb) { print "epoch " $1 ": val_bpb " bpb " is not val_loss / ln 2"; exit 1 } }
    END { if (n != 2 || !col["val_bpb"]) { print "want 2 epochs with val_loss and val_bpb"; exit 1 }
          print bpb }' "$1"
}

train pthread opencl:0 "$out/one.csv"
grep -q "^data .*slice.txt: 20000 bytes, windows of 33 every 32: bytes 1-17984 for training" "$out/log" &&
  grep -q "^model    layers emb256x128,pos,ln,mha4,res2,ln,ffn,res2,ln,mha4,.*,ffn,res2,ln, 8192 outputs" "$out/log" &&
  grep -q "^epoch 2/2 .*val loss [0-9.]*  val bpb [0-9.]*" "$out/log" ||
  { echo "want the text's layout and val bpb per epoch"; fail=1; }
one=$(last_bpb "$out/one.csv") || { echo "$one"; exit 1; }
train "pthread pthread" opencl:0,opencl:1 "$out/two.json"
two=$(sed -n 's/^ *"val_bpb": \([0-9.e+-]*\),$/\1/p' "$out/two.json" | tail -n 1)
echo "val bpb after 2 epochs: $one on one device, $two on two"
# Above 3: 36 steps do not take a model past the text's bigram entropy (about 3.5),
# so less would mean a label leaked into the ids (or the mask let a position see the
# next).
awk -v a="$one" -v b="$two" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a > 3 && a < 6 && d < 1e-3 * a) }' ||
  { echo "want val bpb between 3 and 6 bits, one device's and two's alike"; fail=1; }

refused() { # REASON OPTIONS...: fails before the first epoch, saying why
  reason=$1
  shift
  if POCL_DEVICES=pthread "$tandem" train --devices opencl:0 --no-progress "$@" >"$out/refused" 2>&1 ||
     grep -q '^epoch' "$out/refused" || ! grep -q -- "$reason" "$out/refused"; then
    cat "$out/refused"; echo "want a refusal before training: $reason"; fail=1
  fi
}
: >"$out/empty.txt"
printf 'some text\0\1\2\3' >"$out/binary.dat"
refused "$out/empty.txt: the file is empty" --text "$out/empty.txt"
refused "$out/binary.dat: byte 10 is NUL: a binary file" --text "$out/binary.dat"
refused "$out/slice.txt: its training part (its first 0 of 20000 bytes, cut at a multiple of the stride 20000) is shorter than one window of context + 1 = 20001 bytes" \
  --text "$out/slice.txt" --context 20000
refused "shakespeare.txt.gz: its held-out part (its last 70000 of 699999 bytes) is shorter than one window" \
  --text - --context 100000 --stride 1
refused "the model gives 256 outputs per window, not 32 positions x 256 byte values" \
  --text "$out/slice.txt" --context 32 --layers emb256x8,pool32
refused "--context is for --text" --context 32
exit $fail
