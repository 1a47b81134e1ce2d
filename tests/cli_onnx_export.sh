#!/bin/sh
# tandem export: models of every layer kind, trained for an epoch on the digits (the
# language models on a slice of the text) on the reference device, written as ONNX;
# onnx's checker accepts each, and onnxruntime computes on held rows what tandem
# predict prints for them (onnx_check.py: within 1e-5 relative, 1e-6 absolute,
# predict's six digits included). A missing model, and a path that names no file,
# are refused.
# usage: cli_onnx_export.sh TANDEM DIGITS CHECK_PYTHON TEXT
set -u
tandem=$1 digits=$2 python=$3 text=$4
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp -d "${TMPDIR:-/tmp}/tandem-cli-onnx-XXXXXX")
trap 'rm -rf "$out"' EXIT
. "$here/cli_checks.sh"

# The rows checked: the first 48 digits, features only; the embedding's also
# with ids outside its vocabulary, which it looks up as zeros.
zcat "$digits" | head -n 48 >"$out/rows.csv"
cut -d, -f1-64 "$out/rows.csv" >"$out/features.csv"
cut -d, -f1-63 "$out/rows.csv" >"$out/features63.csv" # the regression's: pixel 63 is a target
awk -F, -v OFS=, 'NR <= 4 { $1 = 17; $2 = 99; $3 = -1 } { print }' "$out/features.csv" >"$out/ids.csv"
# yes/no targets, whether the digit is 5 or more, for the sigmoid model
zcat "$digits" | awk -F, -v OFS=, '{ $65 = $65 >= 5 ? 1 : 0; print }' >"$out/binary.csv"

check_options= # onnx_check.py's own options, beside the files
check() { # NAME FEATURES TRAIN_OPTIONS...: train, export, predict, compare
  name=$1 rows=$2
  shift 2
  "$tandem" train --devices reference --epochs 1 --no-progress --save "$out/$name.st" "$@" \
    >"$out/$name.train.log" 2>&1 || { say "$name: train: $(tail -n 2 "$out/$name.train.log")"; return; }
  "$tandem" export --model "$out/$name.st" --onnx "$out/$name.onnx" >"$out/$name.export.log" 2>&1 ||
    { say "$name: export: $(cat "$out/$name.export.log")"; return; }
  "$tandem" predict --model "$out/$name.st" --data "$rows" --device reference \
    --output "$out/$name.csv" >"$out/$name.predict.log" 2>&1 ||
    { say "$name: predict: $(tail -n 2 "$out/$name.predict.log")"; return; }
  "$python" "$here/onnx_check.py" $check_options "$out/$name.onnx" "$rows" "$out/$name.csv" >"$out/$name.check.log" 2>&1 ||
    say "$name: $(tail -n 3 "$out/$name.check.log")"
  cat "$out/$name.check.log"
}

printf 'top = input(32)\nbottom = input(32)\na = dense16(top) relu\nb = dense16(bottom) sigmoid\nm = multiply(a, b)\nc = concatenate(m, a)\nout = dense10(c)\n' >"$out/two_inputs.txt"

check mlp "$out/features.csv" --layers 32,16 --activation gelu --dropout 0.2
check cnn "$out/features.csv" --layers conv8k3,bn,pool2,conv8k3s2,avgpool3s1,16 --activation tanh
check norm_residual "$out/features.csv" --layers 32,ln,32,res2,16
check embedding "$out/ids.csv" --layers emb17x4,conv4k3,ln,gap --input-shape 8x8x1
check two_branch "$out/features.csv" --model-file "$(dirname "$here")/examples/models/digits_two_branch.txt"
check two_inputs "$out/features.csv" --model-file "$out/two_inputs.txt"
check regression "$out/features63.csv" --loss mse --label-columns 63,64 --layers 16 --activation sigmoid
check binary "$out/features.csv" --data "$out/binary.csv" --loss binary_crossentropy --layers 16

# Language models of 16-byte windows, attention causal (block2's) and full: 48
# windows of the slice as ids. Predict prints each position's class and softmax, as
# the export's probabilities are; checked to 1e-9 absolute, below predict's six digits
# of values near 1/256.
gzip -dc "$text" | head -c 4000 >"$out/slice.txt"
head -c 768 "$out/slice.txt" | od -An -tu1 -v |
  awk '{ for (i = 1; i <= NF; i++) printf "%s%s", $i, ++n % 16 ? "," : "\n" }' >"$out/windows.csv"
check_options="--atol 1e-9"
check causal_lm "$out/windows.csv" --text "$out/slice.txt" --context 16 \
  --layers emb256x16,pos,block2,ln
check full_attention "$out/windows.csv" --text "$out/slice.txt" --context 16 \
  --layers emb256x16,pos,ln,mha2full,res2,ln,ffn,res2,ln
check_options=

refused missing "tandem export: --model:" "$tandem" export --model "$out/none.st" --onnx "$out/none.onnx"
refused directory "names no file" "$tandem" export --model "$out/mlp.st" --onnx "$out/"
refused required "--model and --onnx are required" "$tandem" export --model "$out/mlp.st"
[ ! -e "$out/none.onnx" ] || say "a refused export left $out/none.onnx"
[ $fail -eq 0 ] && echo "cli_onnx_export: ok"
exit $fail
