#!/bin/sh
# tandem train's strategies beside mirrored training, on two worker devices:
# --strategy parameter-server in one process keeps and updates the variables on the
# parameter devices and trains exactly like mirrored training, so the checkpoints of
# both runs are identical byte for byte; a run resumed from its second epoch ends like
# the whole run; --ps-devices without the strategy is refused. --eval-devices (an
# eval strategy on the other devices) scores every epoch like training's own.
# usage: cli_strategy_options.sh TANDEM WORKERS OTHER_DEVICES
set -eu
tandem=$1
workers=$2
ps=$3
out=$(mktemp -d "${TMPDIR:-/tmp}/tandem-cli-ps-XXXXXX")
trap 'rm -rf "$out"' EXIT
opts="--devices $workers --epochs 3 --dropout 0.1 --deterministic --no-progress"
served="--strategy parameter-server --ps-devices $ps"
"$tandem" train $opts --checkpoint-dir "$out/mirrored" >/dev/null
"$tandem" train $opts $served --checkpoint-dir "$out/served" >"$out/log"
grep -q "^  parameters 0: " "$out/log" || { cat "$out/log"; echo "no parameter device listed"; exit 1; }
last=$(ls "$out/mirrored" | grep '^ckpt-' | tail -n 1)
cmp "$out/mirrored/$last" "$out/served/$last" ||
  { echo "parameter-server checkpoint differs from the mirrored one"; exit 1; }
"$tandem" train $(echo "$opts" | sed 's/--epochs 3/--epochs 2/') $served \
  --checkpoint-dir "$out/cut" >/dev/null
"$tandem" train $opts $served --checkpoint-dir "$out/cut" --resume >"$out/log2"
grep -q '^resumed from global step' "$out/log2" || { cat "$out/log2"; echo "did not resume"; exit 1; }
cmp "$out/served/$last" "$out/cut/$last" || { echo "resumed run differs from the whole run"; exit 1; }
status=0
"$tandem" train --ps-devices "$ps" --epochs 1 >"$out/log3" 2>&1 || status=$?
[ $status -eq 2 ] && grep -q 'ps-devices is for --strategy parameter-server' "$out/log3" ||
  { cat "$out/log3"; echo "--ps-devices without the strategy: exit $status"; exit 1; }
"$tandem" train $opts --eval-devices "$ps" >"$out/log4"
grep -q "^evaluation on ${ps%%,*} " "$out/log4" || { cat "$out/log4"; echo "no eval device listed"; exit 1; }
grep '^epoch' "$out/log" | sed 's/.*test loss/test loss/' >"$out/scores"
grep '^epoch' "$out/log4" | sed 's/.*test loss/test loss/' >"$out/scores4"
cmp "$out/scores" "$out/scores4" || { paste "$out/scores" "$out/scores4"; echo "the eval strategy scores differently"; exit 1; }
echo "cli_strategy_options: ok (final $last identical to mirrored and to the resumed run; the eval strategy scores alike)"
