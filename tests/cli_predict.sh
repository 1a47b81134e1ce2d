#!/bin/sh
# tandem train --save and tandem predict on the reference device: data a user has
# (a CSV whose first line holds counts, with its own test split; IDX files with
# theirs), a saved model whose predictions match the accuracy train reported, a
# features-only CSV, class names from a count line kept and printed, an independent
# reader of the model file (Python, when present), and refused model files.
# usage: cli_predict.sh TANDEM DIGITS_CSV_GZ SOURCE_DIR
set -eu
tandem=$1
digits=$2
source=$3
out=$(mktemp -d "${TMPDIR:-/tmp}/tandem-cli-predict-XXXXXX")
trap 'rm -rf "$out"' EXIT
fail=0
check() { # MESSAGE COMMAND...: fails the test when the command fails
  message=$1
  shift
  "$@" || { echo "FAILED: $message"; fail=1; }
}

# scikit-learn's CSV exports start with a line of counts: 1437 training rows and
# 360 test rows of the digits, each behind such a line.
zcat -f "$digits" >"$out/all.csv"
{ echo "1437,64,digits"; head -n 1437 "$out/all.csv"; } >"$out/train.csv"
{ echo "360,64,digits"; tail -n 360 "$out/all.csv"; } >"$out/test.csv"

train() {
  "$tandem" train --devices reference:0 --epochs 10 --no-progress "$@"
}
if train --data "$out/train.csv" --test-data "$out/test.csv" >"$out/log" 2>&1; then
  echo "FAILED: a line of counts must not read as data"; fail=1
fi
check "the error names the line" grep -q "train.csv:1:3: label 'digits' is not a number" "$out/log"

train --data "$out/train.csv" --test-data "$out/test.csv" --skip-rows 1 \
  --save "$out/model.safetensors" >"$out/log"
cat "$out/log"
check "rows and columns shown" grep -q '^data .*train.csv: 1437 examples from lines 2-1438 (line 1 skipped), 64 features in columns 1-64, label in column 65$' "$out/log"
check "the test file shown" grep -q '^test .*test.csv: 360 examples from lines 2-361' "$out/log"
trained=$(sed -n 's/^done .*test accuracy \([0-9.]*\)%$/\1/p' "$out/log")

"$tandem" predict --model "$out/model.safetensors" --data "$out/test.csv" --skip-rows 1 \
  --device reference:0 --output "$out/p.csv" >"$out/plog"
cat "$out/plog"
predicted=$(sed -n 's/^done .*accuracy \([0-9.]*\)% (.*$/\1/p' "$out/plog")
check "predict's accuracy ($predicted%) is train's ($trained%)" [ -n "$trained" ] && [ "$predicted" = "$trained" ]
check "a header and 360 predictions" [ "$(wc -l <"$out/p.csv")" -eq 361 ]

# Class names on the count line (scikit-learn's iris.csv has them) are kept in the
# model file, and predict writes them in place of the class numbers.
names=zero,one,two,three,four,five,six,seven,eight,nine
{ echo "1437,64,$names"; head -n 1437 "$out/all.csv"; } >"$out/named.csv"
"$tandem" train --devices reference:0 --epochs 1 --no-progress --data "$out/named.csv" \
  --skip-rows 1 --save "$out/named.safetensors" >/dev/null 2>&1
"$tandem" predict --model "$out/named.safetensors" --data "$out/test.csv" --skip-rows 1 \
  --device reference:0 --output "$out/named.p.csv" >/dev/null
check "predict names the classes" [ "$(sed 1d "$out/named.p.csv" | cut -d, -f1 |
  grep -cvxE "$(echo "$names" | tr , '|')")" -eq 0 ]
check "predict numbers the classes of a model without names" [ "$(sed 1d "$out/p.csv" |
  cut -d, -f1 | grep -cvx '[0-9]')" -eq 0 ]

# A file of features only: no accuracy, the predictions on standard output.
tail -n 360 "$out/all.csv" | cut -d, -f1-64 >"$out/features.csv"
"$tandem" predict --model "$out/model.safetensors" --data "$out/features.csv" \
  --device reference:0 >"$out/p2.csv" 2>"$out/plog2"
check "features only: no accuracy" grep -q '^done     360 predictions$' "$out/plog2"
check "the same predictions" cmp -s "$out/p.csv" "$out/p2.csv"
# A backend's name, as train takes it: its first device.
"$tandem" predict --model "$out/model.safetensors" --data "$out/features.csv" \
  --device reference >"$out/p3.csv" 2>"$out/plog3"
check "--device reference: the same predictions" cmp -s "$out/p.csv" "$out/p3.csv"

if [ -x /usr/bin/python3 ]; then
  check "an independent reader agrees" /usr/bin/python3 "$source/read_model.py" \
    "$out/model.safetensors" "$out/features.csv" "$out/p.csv" 25
else
  echo "python3 is missing: the independent reader is skipped"
fi

# IDX images and labels with their own test split, as Fashion-MNIST ships.
to_idx() { # CSV FIRST_ROW LAST_ROW IMAGES LABELS
  LC_ALL=C awk -F, -v first="$2" -v last="$3" -v img="$4" -v lab="$5" '
    function be32(v, f) { printf "%c%c%c%c", int(v / 16777216) % 256, int(v / 65536) % 256,
                                 int(v / 256) % 256, v % 256 > f }
    NR >= first && NR <= last { n++; for (i = 1; i <= 64; i++) px[n, i] = $i + 0; y[n] = $65 + 0 }
    END { printf "%c%c%c%c", 0, 0, 8, 3 > img; be32(n, img); be32(8, img); be32(8, img)
          for (r = 1; r <= n; r++) for (i = 1; i <= 64; i++) printf "%c", px[r, i] > img
          printf "%c%c%c%c", 0, 0, 8, 1 > lab; be32(n, lab)
          for (r = 1; r <= n; r++) printf "%c", y[r] > lab }' "$1"
}
to_idx "$out/all.csv" 1 1437 "$out/train-images" "$out/train-labels"
to_idx "$out/all.csv" 1438 1797 "$out/test-images" "$out/test-labels"
# Trains on the IDX split with OPTIONS, saves NAME.safetensors, and predicts the test
# images with it into NAME.csv: sets $trained and $predicted (accuracies in %).
fit_and_predict() { # NAME OPTIONS...
  name=$1
  shift
  train --data "$out/train-images" --labels "$out/train-labels" --test-data "$out/test-images" \
    --test-labels "$out/test-labels" --save "$out/$name.safetensors" "$@" >"$out/log"
  trained=$(sed -n 's/^done .*test accuracy \([0-9.]*\)%$/\1/p' "$out/log")
  "$tandem" predict --model "$out/$name.safetensors" --data "$out/test-images" \
    --labels "$out/test-labels" --device reference:0 --output "$out/$name.csv" >"$out/plog"
  predicted=$(sed -n 's/^done .*accuracy \([0-9.]*\)% (.*$/\1/p' "$out/plog")
}
# NAME BAR: predict's accuracy is train's, which reaches BAR %.
same_accuracy() {
  check "$1: predict's accuracy ($predicted%) is train's ($trained%)" [ -n "$trained" ] &&
    [ "$predicted" = "$trained" ]
  awk -v a="$trained" -v bar="$2" 'BEGIN { exit !(a >= bar) }' || { echo "FAILED: $1 accuracy $trained%"; fail=1; }
}
fit_and_predict idx
check "IDX data shown" grep -q '^data .*train-images: 1437 examples of 64 features (IDX)' "$out/log"
same_accuracy IDX 85
if train --data "$out/train-images" --labels "$out/train-labels" --test-data "$out/test-images" \
     >/dev/null 2>"$out/err"; then
  echo "FAILED: IDX test images without labels must fail"; fail=1
fi
check "the error says why" grep -q 'test-labels' "$out/err"

# A convolutional network on the IDX images (8 x 8, one channel, read as a square):
# its file holds the layers, predict gives train's accuracy, and the independent
# reader computes the same probabilities through its own convolution and pooling.
fit_and_predict cnn --layers conv16k3,bn,pool2,avgpool2s1valid,conv16k2s2,ln,32,bn
check "the CNN's layers in the run" grep -q 'conv16k3,bn,pool2,avgpool2s1valid,conv16k2s2,ln,32,bn' "$out/log"
same_accuracy CNN 75
tail -n 360 "$out/all.csv" | cut -d, -f1-64 >"$out/test-features.csv"
if [ -x /usr/bin/python3 ]; then
  check "an independent reader computes the CNN" /usr/bin/python3 "$source/read_model.py" \
    "$out/cnn.safetensors" "$out/test-features.csv" "$out/cnn.csv" 25
fi
# The pixel values as ids (0 to 16) of an embedding, and a shortcut over a
# convolution: not standardised, saved with both, and the independent reader looks
# the ids up and adds the shortcut itself.
fit_and_predict emb --layers emb17x4,conv8k3,conv8k3,res1,pool2,32
check "the embedding in the run" grep -q 'layers emb17x4,conv8k3,conv8k3,res1,pool2,32,' "$out/log"
same_accuracy embedding 75
if [ -x /usr/bin/python3 ]; then
  check "an independent reader computes the embedding and the shortcut" /usr/bin/python3 \
    "$source/read_model.py" "$out/emb.safetensors" "$out/test-features.csv" "$out/emb.csv" 25
fi

# Mixed precision: f16 operands in the products under a loss scale of 32768; the saved
# model holds f32 weights, so predict (in f32) lands within a point of train's accuracy.
fit_and_predict mixed --layers conv16k3,pool2,32 --mixed-precision --mixed-products f16
cat "$out/log"
check "mixed precision in the run" grep -q '; mixed precision (f16 products, f32 sums)$' "$out/log"
check "its convolution lowered, every product f16" grep -q \
  '^  replica 0: reference:0 (reference (host C)), convolutions conv0 lowered; products conv0 f16, dense2 f16, dense3 f16$' "$out/log"
check "its loss scale" grep -q '^loss scale 32768, 0 steps skipped for overflow$' "$out/log"
awk -v a="$trained" -v p="$predicted" 'BEGIN { d = a - p; exit !(a >= 80 && d <= 1 && d >= -1) }' ||
  { echo "FAILED: mixed precision: train $trained%, predict $predicted%"; fail=1; }
# Measured, the default: each layer's products timed with f16 operands and in f32 at
# the first step; the choice is printed per replica and kept in the run's record.
train --layers conv8k3,pool2,16 --mixed-precision --epochs 1 --metrics "$out/mixed.json" \
  >"$out/log"
cat "$out/log"
choices='convolutions conv0 [a-z]+; products conv0 f(16|32), dense2 f(16|32), dense3 f(16|32)'
check "measured products in the run" grep -q 'f16 products, f32 sums, where they measure at least as fast as f32' "$out/log"
check "the products wait for the first step" grep -q '^  replica 0: .*; products measured at the first step$' "$out/log"
check "the choice printed" grep -Eq "^measured replica 0 \(reference:0\), $choices\$" "$out/log"
check "the choice recorded" grep -Eq "\"layer-choices\": \"reference:0: $choices\"" "$out/mixed.json"
if train --layers conv8k3,24 --input-shape 8x4x3 >/dev/null 2>"$out/err"; then
  echo "FAILED: an input shape of another size must fail"; fail=1
fi
check "the error says why" grep -q 'the data has 64 features, which is not the count --input-shape gives' "$out/err"

# Files that are no model: refused with the reason, nothing predicted.
refused() { # FILE REASON
  if "$tandem" predict --model "$1" --data "$out/features.csv" >/dev/null 2>"$out/err"; then
    echo "FAILED: $1 must be refused"; fail=1
  fi
  check "$1 refused: $2" grep -q "$2" "$out/err"
}
refused "$out/missing.safetensors" "missing.safetensors: No such file"
refused "$out/features.csv" "not a safetensors file"
head -c 100 "$out/model.safetensors" >"$out/cut.safetensors"
refused "$out/cut.safetensors" "truncated"
"$tandem" predict --model "$out/model.safetensors" --data "$out/features.csv" \
  --output "$out/no-such-dir/p.csv" >/dev/null 2>"$out/err" && fail=1
check "an unwritable --output is refused first" grep -q 'output: cannot write .*no-such-dir' "$out/err"

[ $fail -eq 0 ] && echo "cli_predict: ok"
exit $fail
