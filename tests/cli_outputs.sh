#!/bin/sh
# Every output of tandem train (--save, --trace, --metrics, --plot) and of tandem
# predict (--output) against every kind of target, all made in a temporary folder
# (never the system's): a regular file is replaced whole; a symbolic link is
# followed, its target replaced and the link kept (a chain of two, and a dangling
# one that names a new file); a character device (a null device made with mknod) and
# a full device are written in place and stay what they were; a FIFO is written in
# place for the streams (--trace, --metrics, predict --output), the run saying so
# where it waits for its reader, and refused before any training for the whole files
# (--save, --plot); a directory is refused before any training. A file written is
# said on stderr.
# usage: cli_outputs.sh TANDEM
set -eu
tandem=$1
out=$(mktemp -d "${TMPDIR:-/tmp}/tandem-cli-outputs-XXXXXX")
reader=
trap '[ -n "$reader" ] && kill $reader 2>/dev/null; rm -rf "$out"' EXIT
fail=0
check() { # MESSAGE COMMAND...
  message=$1
  shift
  "$@" || { echo "FAILED: $message"; fail=1; }
}
train() { "$tandem" train --devices reference:0 --layers 8 --epochs 1 --no-progress "$@"; }

# A character device: mknod needs root (CAP_MKNOD), which the suite runs as; without
# it the device cases are skipped and said so.
devices=1
mknod "$out/null" c 1 3 2>/dev/null && mknod "$out/full" c 1 7 2>/dev/null || devices=0
[ $devices = 1 ] || echo "mknod is not allowed here: the device cases are skipped"

for option in --save --trace --metrics --plot; do
  name=${option#--}
  # A regular file: replaced whole.
  echo old >"$out/$name.regular"
  check "$option: a regular file written" train "$option" "$out/$name.regular" >/dev/null \
    2>"$out/err"
  # Each output but the trace (the library's) says on stderr that it was written.
  [ $option = --trace ] ||
    check "$option: 'wrote' said" grep -qxF "tandem train: wrote $out/$name.regular ($option)" \
      "$out/err"
  check "$option: the old content replaced" sh -c "! grep -qx old '$out/$name.regular'"
  # A link, and a link to a link: followed, the file they name replaced, links kept.
  echo old >"$out/$name.real"
  ln -s "$name.real" "$out/$name.link"
  ln -s "$out/$name.link" "$out/$name.link2"
  check "$option: through two links" train "$option" "$out/$name.link2" >/dev/null
  check "$option: the links stay links" test -L "$out/$name.link" -a -L "$out/$name.link2"
  check "$option: the file they name replaced" sh -c "[ -s '$out/$name.real' ] && ! grep -qx old '$out/$name.real'"
  # A dangling link names the file to create.
  ln -s "$name.new" "$out/$name.dangling"
  check "$option: a dangling link" train "$option" "$out/$name.dangling" >/dev/null
  check "$option: the link kept, its file made" test -L "$out/$name.dangling" -a -s "$out/$name.new"
  mkfifo "$out/$name.fifo"
  case $option in
  --trace | --metrics)
    # A stream into a FIFO: written in place, its reader gets the whole output.
    cat "$out/$name.fifo" >"$out/$name.read" &
    reader=$!
    check "$option: a FIFO" train "$option" "$out/$name.fifo" >/dev/null
    wait $reader || true
    reader=
    check "$option: its reader got the output" test -s "$out/$name.read"
    # With no reader yet, the run says it waits for one, and goes on when one comes.
    rm -f "$out/$name.read"
    train "$option" "$out/$name.fifo" >/dev/null 2>"$out/err" &
    writer=$!
    said="tandem train: $option: waiting for a process to read the FIFO $out/$name.fifo"
    tries=0 # the message comes before training, however slow the machine: up to a minute
    while ! grep -qxF "$said" "$out/err" && [ $tries -lt 300 ]; do
      sleep 0.2
      tries=$((tries + 1))
    done
    check "$option: the wait said" grep -qxF "$said" "$out/err"
    cat "$out/$name.fifo" >"$out/$name.read"
    check "$option: the run went on once read" wait $writer
    check "$option: the late reader got the output" test -s "$out/$name.read"
    ;;
  *)
    # A whole file into a FIFO: refused before training, and nothing waits.
    if train "$option" "$out/$name.fifo" >"$out/log" 2>"$out/err"; then
      echo "FAILED: $option into a FIFO must be refused"; fail=1
    fi
    check "$option: the FIFO refused, named" grep -q \
      "cannot write $out/$name.fifo: it is a FIFO or socket, and this output is a whole file" \
      "$out/err"
    check "$option: refused before training" sh -c "! grep -q '^epoch' '$out/log'"
    ;;
  esac
  check "$option: still a FIFO" test -p "$out/$name.fifo"
  # A directory: refused before training.
  mkdir "$out/$name.dir"
  if train "$option" "$out/$name.dir" >"$out/log" 2>"$out/err"; then
    echo "FAILED: $option into a directory must be refused"; fail=1
  fi
  check "$option: the directory named" grep -q "cannot write $out/$name.dir: it is a directory" "$out/err"
  check "$option: refused before training" sh -c "! grep -q '^epoch' '$out/log'"
  if [ $devices = 1 ]; then
    check "$option: a null device" train "$option" "$out/null" >/dev/null
    check "$option: still a character device" test -c "$out/null"
    if train "$option" "$out/full" >/dev/null 2>"$out/err"; then
      echo "FAILED: $option into a full device must fail"; fail=1
    fi
    check "$option: the full device's error said" grep -q "No space left on device" "$out/err"
    check "$option: still a character device" test -c "$out/full"
  fi
done
# The same file through a link and directly: byte for byte the same model.
train --save "$out/direct.st" >/dev/null
check "a model saved through a link is the model saved directly" cmp -s "$out/direct.st" "$out/save.real"
check "no temporary file left" sh -c "! ls -a '$out' | grep -q tmp"

# predict --output: the same kinds of target.
"$tandem" train --devices reference:0 --layers 8 --epochs 1 --no-progress \
  --save "$out/m.st" >/dev/null
zcat -f "$(dirname "$0")/../data/digits.csv.gz" | head -n 50 >"$out/d.csv"
predict() { "$tandem" predict --model "$out/m.st" --data "$out/d.csv" --device reference:0 "$@"; }
predict --output "$out/p.csv" >/dev/null 2>"$out/err"
check "predict: 'wrote' said" grep -qxF "tandem predict: wrote $out/p.csv (--output)" "$out/err"
ln -s p2.csv "$out/p.link"
check "predict: through a link" predict --output "$out/p.link" >/dev/null 2>&1
check "predict: the link kept, the same predictions" sh -c "[ -L '$out/p.link' ] && cmp -s '$out/p.csv' '$out/p2.csv'"
if [ $devices = 1 ]; then
  check "predict: a null device" predict --output "$out/null" >/dev/null 2>&1
  check "predict: still a character device" test -c "$out/null"
fi
mkfifo "$out/p.fifo" # predictions stream: a FIFO's reader gets them
cat "$out/p.fifo" >"$out/p.read" &
reader=$!
check "predict: a FIFO" predict --output "$out/p.fifo" >/dev/null 2>&1
wait $reader || true
reader=
check "predict: the FIFO's reader got the predictions" cmp -s "$out/p.csv" "$out/p.read"
mkdir "$out/p.dir"
if predict --output "$out/p.dir" >/dev/null 2>"$out/err"; then
  echo "FAILED: predict into a directory must be refused"; fail=1
fi
check "predict: the directory named" grep -q "it is a directory" "$out/err"
[ $fail = 0 ] && echo "cli_outputs: every output and every kind of target passed"
exit $fail
