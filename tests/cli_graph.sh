#!/bin/sh
# tandem train --model-file: the example's two-branch graph trains on the digits and
# repeats byte for byte, its file records the graph and predict reads it back; the
# same model over two devices; a file that makes no model is refused naming its line,
# layer or reason, and so are the options it replaces. A graph of two inputs (the
# top and bottom halves of each image) trains, and its file keeps them.
# usage: cli_graph.sh TANDEM SOURCE_DIR DEVICES [DEVICES2]
set -u
tandem=$1
graph=$2/examples/models/digits_two_branch.txt
digits=$2/data/digits.csv.gz
devices=$3
pair=${4:-}
out=$(mktemp -d "${TMPDIR:-/tmp}/tandem-cli-graph-XXXXXX")
trap 'rm -rf "$out"' EXIT
. "$(dirname "$0")/cli_checks.sh"
train() { # NAME DEVICES OPTIONS...
  name=$1 on=$2
  shift 2
  "$tandem" train --devices "$on" --deterministic --no-progress --epochs 8 \
    --save "$out/$name.st" "$@" >"$out/$name.log" 2>&1 ||
    say "$name: exit $?: $(tail -n 3 "$out/$name.log")"
}

train graph "$devices" --model-file "$graph"
has "$out/graph.log" "model    layers conv2d0 = conv16k3(input) relu;conv2d1 = conv8k1(input) relu;"
acc=$(sed -n 's/^done .*test accuracy \([0-9.]*\)%.*/\1/p' "$out/graph.log")
awk -v a="$acc" 'BEGIN { exit !(a > 90) }' || say "graph: test accuracy '$acc'%, expected > 90%"
train graph_again "$devices" --model-file "$graph"
cmp -s "$out/graph.st" "$out/graph_again.st" || say "the graph repeated saved other bytes"
grep -qa '"format_version":"3"' "$out/graph.st" || say "the graph's file is not version 3"
grep -qa '"concatenate7/inputs":"5,6"' "$out/graph.st" || say "the file lacks layer 7's inputs"
"$tandem" predict --model "$out/graph.st" --data "$digits" --device "${devices%%,*}" --output "$out/p.csv" \
  >"$out/predict.log" 2>&1 || say "predict: $(tail -n 2 "$out/predict.log")"
has "$out/predict.log" "predictions in $out/p.csv: accuracy"
if [ -n "$pair" ]; then
  train graph_pair "$pair" --model-file "$graph"
  has "$out/graph_pair.log" "2 replicas"
fi

halves="$out/halves.txt"
printf 'top = input(32)\nbottom = input(32)\na = dense32(top) relu\nb = dense32(bottom) relu\nc = concatenate(a, b)\nout = dense10(c)\n' >"$halves"
train halves "$devices" --model-file "$halves"
has "$out/halves.log" "model    layers input0 = input(32);input1 = input(32);dense0 = dense32(input0) relu;"
acc=$(sed -n 's/^done .*test accuracy \([0-9.]*\)%.*/\1/p' "$out/halves.log")
awk -v a="$acc" 'BEGIN { exit !(a > 85) }' || say "halves: test accuracy '$acc'%, expected > 85%"
grep -qa '"input_widths":"32,32"' "$out/halves.st" || say "the halves' file lacks its inputs"
"$tandem" predict --model "$out/halves.st" --data "$digits" --device "${devices%%,*}" \
  --output "$out/h.csv" >"$out/predict_halves.log" 2>&1 || say "predict halves: $(tail -n 2 "$out/predict_halves.log")"
has "$out/predict_halves.log" "predictions in $out/h.csv: accuracy"

bad="$out/bad.txt"
printf 'top = input(30)\nbottom = input(30)\nc = concatenate(top, bottom)\nout = dense10(c)\n' >"$bad"
refused widths "input_features is 64, but the 2 inputs' widths sum to 60" \
  "$tandem" train --devices "$devices" --model-file "$bad"
printf 'a = conv16k3(input) relu\nb = add(a, input)\nout = dense10(b)\n' >"$bad"
refused shapes "layer 1 (add) merges layer 0, 8 x 8 x 16, with the model's input, 8 x 8 x 1" \
  "$tandem" train --devices "$devices" --model-file "$bad"
printf 'a = conv16k3(input) relu\nb = gap(q)\n' >"$bad"
refused name "--model-file: $bad: line 2: 'q' is not a layer or input named above" \
  "$tandem" train --devices "$devices" --model-file "$bad"
printf 'a = dense16(input) relu\nb = dense16(input)\nout = dense10(a)\n' >"$bad"
refused dead "layer 1 (dense) is read by no later layer" \
  "$tandem" train --devices "$devices" --model-file "$bad"
printf 'a = dense16(input) relu\nout = dense3(a)\n' >"$bad"
refused outputs "its last layer has 3 outputs; the data has 10" \
  "$tandem" train --devices "$devices" --model-file "$bad"
refused both "--model-file and --layers exclude each other" \
  "$tandem" train --devices "$devices" --model-file "$graph" --layers 16
refused activation "--activation and --dropout are for --layers" \
  "$tandem" train --devices "$devices" --model-file "$graph" --activation tanh
refused missing "$out/none.txt: cannot be opened" \
  "$tandem" train --devices "$devices" --model-file "$out/none.txt"
exit $fail
