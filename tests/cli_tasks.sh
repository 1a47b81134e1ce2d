#!/bin/sh
# tandem train and predict for every task: a regression (the diabetes data), a binary
# classifier (the breast cancer data), several label columns; each run repeats byte
# for byte; the metrics follow the task; labels that do not fit are refused, naming
# the reason.
# usage: cli_tasks.sh TANDEM DATA_DIR DEVICES
set -u
tandem=$1
data=$2
devices=$3
out=$(mktemp -d "${TMPDIR:-/tmp}/tandem-cli-tasks-XXXXXX")
trap 'rm -rf "$out"' EXIT
. "$(dirname "$0")/cli_checks.sh"
train() { # NAME OPTIONS...: trains, saving the model and the metrics
  name=$1
  shift
  "$tandem" train --devices "$devices" --deterministic --no-progress --layers 32 \
    --save "$out/$name.st" --metrics "$out/$name.csv" "$@" >"$out/$name.log" 2>&1 ||
    say "$name: exit $?: $(tail -n 3 "$out/$name.log")"
}

# A regression: one float target named by the header; the errors and R^2 per epoch.
regression="--data $data/diabetes.csv.gz --header --label-column progression --loss mse"
train diabetes $regression --epochs 60 --lr 0.1
has "$out/diabetes.log" "1 target: 353 examples for training, 89 held out for testing"
has "$out/diabetes.csv" "epoch,train_loss,test_loss,test_mae,test_rmse,test_r2,seconds"
r2=$(sed -n 's/^done .*R^2 \([-0-9.]*\)$/\1/p' "$out/diabetes.log")
awk -v r="$r2" 'BEGIN { exit !(r > 0.25) }' || say "diabetes: R^2 '$r2', expected > 0.25"
train diabetes_again $regression --epochs 60 --lr 0.1
cmp -s "$out/diabetes.st" "$out/diabetes_again.st" || say "a regression repeated saved other bytes"
"$tandem" predict --model "$out/diabetes.st" --data "$data/diabetes.csv.gz" --header \
  --label-column progression --device "${devices%%,*}" --output "$out/values.csv" \
  >"$out/predict.log" 2>&1 || say "predict (regression): $(tail -n 2 "$out/predict.log")"
has "$out/values.csv" "y0"
has "$out/predict.log" "done     442 predictions in $out/values.csv: RMSE"
[ "$(wc -l <"$out/values.csv")" -eq 443 ] || say "values.csv has $(wc -l <"$out/values.csv") lines"

# A binary classifier: scikit-learn's count line skipped, 0/1 labels read as floats.
binary="--data $data/breast_cancer.csv.gz --skip-rows 1 --loss binary_crossentropy"
train cancer $binary --epochs 20
has "$out/cancer.csv" "epoch,train_loss,test_loss,test_accuracy,seconds"
acc=$(sed -n 's/^done .*test accuracy \([0-9.]*\)%$/\1/p' "$out/cancer.log")
awk -v a="$acc" 'BEGIN { exit !(a > 85) }' || say "cancer: accuracy '$acc' %, expected > 85"
train cancer_again $binary --epochs 20
cmp -s "$out/cancer.st" "$out/cancer_again.st" || say "a binary classifier repeated saved other bytes"
"$tandem" predict --model "$out/cancer.st" --data "$data/breast_cancer.csv.gz" --skip-rows 1 \
  --device "${devices%%,*}" --output "$out/p.csv" >"$out/predict.log" 2>&1 ||
  say "predict (binary): $(tail -n 2 "$out/predict.log")"
has "$out/predict.log" ": binary accuracy"
awk -F, 'NR == 1 { if ($0 != "p0") bad = 1; next } $1 < 0 || $1 > 1 { bad = 1 }
         END { exit bad }' "$out/p.csv" || say "p.csv holds no probabilities: $(head -n 3 "$out/p.csv")"

# Several label columns by name: two targets of one regression.
awk 'BEGIN { srand(7); print "a,b,c,y1,y2"
             for (i = 0; i < 300; i++) { a = rand(); b = rand(); c = rand()
                                         printf "%.5f,%.5f,%.5f,%.5f,%.5f\n", a, b, c,
                                                2 * a - b, b * c + 0.5 } }' >"$out/two_targets.csv"
train two --data "$out/two_targets.csv" --header --label-columns y1,y2 --loss mae --epochs 20 --lr 0.01
has "$out/two.log" "2 labels in columns y1,y2"
has "$out/two.log" "2 targets:"

# Labels that do not fit the loss, and bad targets.
refused mae_on_idx "--loss mae reads float targets, and --labels' IDX labels are class indices" \
  "$tandem" train --data "$out/x.idx" --labels "$out/y.idx" --loss mae
refused delta_alone "--huber-delta is for --loss huber" \
  "$tandem" train --huber-delta 2
refused unknown_loss "mse" "$tandem" train --loss msle
refused out_of_range "label column 5 is out of range: lines have 5 columns (0 to 4)" \
  "$tandem" train --devices "$devices" --data "$out/two_targets.csv" --header --label-columns 0,5 --loss mse
refused names_need_header "--label-columns y1,y2: column names need --header" \
  "$tandem" train --data "$out/two_targets.csv" --label-columns y1,y2 --loss mse
sed '3s/^\([^,]*,[^,]*,[^,]*\),[^,]*/\1,nan/' "$out/two_targets.csv" >"$out/nan_targets.csv"
refused nan_target "nan_targets.csv:3:4: label 'nan' is not a finite float32" \
  "$tandem" train --devices "$devices" --data "$out/nan_targets.csv" --header --label-columns y1,y2 --loss mse
refused float_classes "is not a class index (an integer >= 0)" \
  "$tandem" train --devices "$devices" --data "$out/two_targets.csv" --header --label-column y1

[ $fail -eq 0 ] && echo "cli_tasks: ok (diabetes R^2 $r2, breast cancer $acc %)"
exit $fail
