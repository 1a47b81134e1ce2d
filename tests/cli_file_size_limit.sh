#!/bin/sh
# Past the process's file-size limit (ulimit -f) every output of train and predict
# fails with EFBIG's words, naming the file, leaves no temporary file behind and makes
# the exit status non-zero, however many outputs meet the limit: the tool ignores
# SIGXFSZ, which would end it with no word (tdm_host_file_size_errors). On the
# reference device.
# usage: cli_file_size_limit.sh TANDEM DIGITS_CSV
set -eu
tandem=$1 digits=$2
out=$(mktemp -d "${TMPDIR:-/tmp}/tandem-fsize-XXXXXX")
trap 'rm -rf "$out"' EXIT
fail=0
say() { echo "FAIL: $*"; fail=1; }
train="train --data $digits --epochs 2 --layers 64 --no-progress --devices reference:0"

# limited NAME COMMAND...: runs COMMAND under an 8 KiB limit (sh counts 512-byte
# blocks, bash 1024: 16 blocks is 8 or 16 KiB, below every model's size here either
# way), its output into NAME.log outside the limit, its exit status into NAME.rc
limited() {
    name=$1
    shift
    rc=0
    (ulimit -f 16 && exec "$@") >"$out/$name.log" 2>&1 </dev/null || rc=$?
    echo "$rc" >"$out/$name.rc"
}
# refused NAME WHAT: the run failed (not a signal) and its log names WHAT too large
refused() {
    rc=$(cat "$out/$1.rc")
    if [ "$rc" -eq 0 ] || [ "$rc" -ge 128 ]; then
        say "$1: exit status $rc, want a failure, not a signal"
    fi
    grep -q "$2.*File too large" "$out/$1.log" || {
        cat "$out/$1.log"
        say "$1: no 'File too large' for $2"
    }
}
no_temporaries() {
    left=$(find "$out/$1" -name '.*.tmp-*' 2>/dev/null | head -n 1)
    [ -z "$left" ] || say "$1: a temporary file was left: $left"
}

mkdir "$out/save"
# shellcheck disable=SC2086 # the options are words on purpose
limited save "$tandem" $train --save "$out/save/model.safetensors"
refused save "model.safetensors"
[ ! -e "$out/save/model.safetensors" ] || say "save: a model file was left"
no_temporaries save

mkdir "$out/all"
# shellcheck disable=SC2086 # the options are words on purpose
limited all "$tandem" $train --save "$out/all/model.safetensors" --trace "$out/all/trace.json" \
    --checkpoint-dir "$out/all/ckpt" --metrics "$out/all/metrics.csv" --plot "$out/all/plot.png"
refused all "all/"
no_temporaries all

# predict's output past the limit, from a model written without one
mkdir "$out/predict"
# shellcheck disable=SC2086 # the options are words on purpose
"$tandem" $train --save "$out/predict/model.safetensors" >/dev/null
limited predict "$tandem" predict --model "$out/predict/model.safetensors" --data "$digits" \
    --output "$out/predict/predictions.csv" --device reference:0
refused predict "predictions.csv"
no_temporaries predict
exit $fail
