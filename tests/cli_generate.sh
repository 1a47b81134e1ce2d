#!/bin/sh
# tandem generate: a bigram language model of a slice of the bundled text (one epoch on
# the reference device) continues a prompt; the text starts with the prompt and holds
# as many bytes more as asked, a seed gives the same text twice and another seed
# another, temperature 0 is top-k 1 (the likeliest byte), and it is what the model's
# logits say; a prompt longer than the context, a model that is not a language model
# and a missing prompt are refused, saying why.
# usage: cli_generate.sh TANDEM SHAKESPEARE_TXT_GZ DIGITS_CSV_GZ
set -eu
tandem=$1 bundled=$2 digits=$3
out=$(mktemp -d "${TMPDIR:-/tmp}/tandem-cli-generate-XXXXXX")
trap 'rm -rf "$out"' EXIT
gzip -dc "$bundled" | head -c 20000 >"$out/slice.txt"
"$tandem" train --text "$out/slice.txt" --context 16 --epochs 1 --lr 0.01 \
  --layers emb256x32,conv128k1 --devices reference:0 --no-progress --save "$out/lm.tdm" >"$out/train.log" 2>&1 ||
  { cat "$out/train.log"; exit 1; }

gen() { # OUT ARGS...
  o=$1
  shift
  "$tandem" generate --model "$out/lm.tdm" --device reference:0 "$@" >"$out/$o" 2>"$out/$o.err" ||
    { cat "$out/$o.err"; exit 1; }
}
gen a --prompt "ROMEO:" --tokens 100 --seed 5
gen b --prompt "ROMEO:" --tokens 100 --seed 5
gen c --prompt "ROMEO:" --tokens 100 --seed 6
gen greedy --prompt "ROMEO:" --tokens 40 --temperature 0
gen top1 --prompt "ROMEO:" --tokens 40 --top-k 1 --seed 9
head -c 6 "$out/a" | grep -q "^ROMEO:$" || { echo "the text does not start with the prompt"; exit 1; }
# the prompt, 100 bytes, a newline
[ "$(wc -c <"$out/a")" -eq 107 ] || { echo "want 107 bytes, got $(wc -c <"$out/a")"; exit 1; }
cmp -s "$out/a" "$out/b" || { echo "one seed gave two texts"; exit 1; }
! cmp -s "$out/a" "$out/c" || { echo "two seeds gave one text"; exit 1; }
cmp -s "$out/greedy" "$out/top1" || { echo "temperature 0 is not top-k 1"; exit 1; }
echo "seed 5: $(tr '\n' '|' <"$out/a")"

# The likeliest byte after the prompt is the one the bigram counts of the training
# text make likeliest after ':' (a bigram model learns those counts), here a newline
# or a space.
next=$(head -c 7 "$out/greedy" | tail -c 1 | od -An -c | tr -d ' ')
case "$next" in
'\n' | '') ;;
*) echo "after ':' the likeliest byte is '$next', not a newline or a space"; exit 1 ;;
esac

refused() { # WHY ARGS...
  why=$1
  shift
  if "$tandem" generate "$@" >"$out/r" 2>"$out/r.err"; then
    echo "accepted: $*"; exit 1
  fi
  grep -q -e "$why" "$out/r.err" || { echo "want '$why' for: $*"; cat "$out/r.err"; exit 1; }
}
refused "17 bytes, longer than the model's context of 16 bytes" --model "$out/lm.tdm" \
  --device reference:0 --prompt "ABCDEFGHIJKLMNOPQ"
"$tandem" train --data "$digits" --epochs 1 --devices reference:0 --no-progress \
  --save "$out/digits.tdm" >/dev/null 2>&1
refused "not a language model: it reads 64 features and gives 10 outputs" \
  --model "$out/digits.tdm" --device reference:0 --prompt "a"
refused "--model and --prompt are required" --model "$out/lm.tdm"
echo "cli_generate: ok"
