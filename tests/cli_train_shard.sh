#!/bin/sh
# tandem train --shard-optimizer saves the same model file, byte for byte, as the
# same run without it, and says so in its metrics.
# usage: cli_train_shard.sh TANDEM DEVICES
set -eu
tandem=$1
devices=$2
out=$(mktemp -d "${TMPDIR:-/tmp}/tandem-cli-shard-XXXXXX")
trap 'rm -rf "$out"' EXIT
run() { # NAME OPTIONS...
  name=$1
  shift
  "$tandem" train --devices "$devices" --epochs 2 --optimizer adam --deterministic \
    --no-progress --save "$out/$name.st" --metrics "$out/$name.csv" "$@" >"$out/$name.log"
}
run mirrored
run sharded --shard-optimizer
fail=0
cmp "$out/mirrored.st" "$out/sharded.st" || { echo "the sharded run saved other bytes"; fail=1; }
grep -q "^# options: .*optimizer-state=sharded" "$out/sharded.csv" ||
  { echo "the metrics do not say the state was sharded"; fail=1; }
[ $fail -eq 0 ] && echo "cli_train_shard: ok ($(sed -n 's/^done //p' "$out/sharded.log"))"
exit $fail
