#!/bin/sh
# tandem train on the bundled digits reaches the bar (>= 96 % test accuracy within 30
# epochs) on the devices given, and writes its metrics (with the run) and plot; a CNN
# trains with its activations in f16 and says so; bad output paths and a one-device
# strategy over several devices stop it before it trains.
# usage: cli_train.sh TANDEM DEVICES EPOCHS
set -eu
tandem=$1
devices=$2
epochs=$3
out=$(mktemp -d "${TMPDIR:-/tmp}/tandem-cli-train-XXXXXX")
trap 'rm -rf "$out"' EXIT
"$tandem" train --devices "$devices" --epochs "$epochs" --no-progress \
  --metrics "$out/m.csv" --plot "$out/p.png" >"$out/log"
cat "$out/log"
fail=0
accuracy=$(sed -n 's/^done .*test accuracy \([0-9.]*\)%$/\1/p' "$out/log")
[ -n "$accuracy" ] || { echo "no summary line"; exit 1; }
awk -v a="$accuracy" 'BEGIN { exit !(a >= 96) }' || { echo "test accuracy $accuracy% < 96%"; fail=1; }
[ "$(grep -c '^epoch' "$out/log")" -eq "$epochs" ] || { echo "want $epochs epoch lines"; fail=1; }
[ "$(grep -vc '^#' "$out/m.csv")" -eq $((epochs + 1)) ] || { echo "want a header and a row per epoch in the metrics"; fail=1; }
grep -q "^# tandem [0-9]" "$out/m.csv" && grep -q "^# devices: ${devices%%,*} (" "$out/m.csv" &&
  grep -q "^# options: .* epochs=$epochs " "$out/m.csv" || { echo "the metrics lack the run"; fail=1; }
head -c 8 "$out/p.png" | od -An -c | grep -q 'P   N   G' || { echo "the plot is no PNG"; fail=1; }
"$tandem" train --devices "$devices" --epochs 1 --no-progress --f16-activations \
  --layers conv8k3,pool2,32 --metrics "$out/half.csv" >"$out/half"
grep -q "^model .*mixed precision (f16 products, f32 sums), f16 activations" "$out/half" &&
  grep -q "^# options: .*precision=mixed f16, f16 activations" "$out/half.csv" &&
  grep -q "^done .*test accuracy" "$out/half" || { cat "$out/half"; echo "want f16 activations"; fail=1; }
"$tandem" train --bogus >/dev/null 2>&1 && { echo "a bad option must fail"; fail=1; }
refused() { # REASON OPTIONS...: fails before the first epoch, saying why
  reason=$1
  shift
  if "$tandem" train --devices "$devices" --no-progress "$@" >"$out/refused" 2>&1 ||
     grep -q '^epoch' "$out/refused" || ! grep -q -- "$reason" "$out/refused"; then
    cat "$out/refused"; echo "want a refusal before training: $reason"; fail=1
  fi
}
refused "--plot: cannot write $out/none/p.png: No such file" --plot "$out/none/p.png"
refused "--metrics: cannot write $out: it is a directory" --metrics "$out"
refused "--save: cannot write $out/none/m.st" --save "$out/none/m.st"
case $devices in *,*)
  refused "one-device trains on one device, but --devices selects 2" --strategy one-device ;;
esac
[ $fail -eq 0 ] && echo "cli_train: ok ($accuracy%)"
exit $fail
