#!/bin/sh
# The progress bar in real terminals: in tmux panes of 60, 80 and 120 columns the
# screen ends with one line per epoch, each with its test accuracy, and no bar or
# copy of one that a redraw left behind.
# usage: cli_progress_tmux.sh TANDEM
set -eu
tandem=$1
command -v tmux >/dev/null || { echo "tmux is missing: skipped"; exit 77; }
. "$(dirname "$0")/time_limit.sh"
out=$(mktemp -d "${TMPDIR:-/tmp}/tandem-tmux-XXXXXX")
sock="tandem-progress-$$"
trap 'tmux -L "$sock" kill-server 2>/dev/null || true; rm -rf "$out"' EXIT
fail=0
for columns in 60 80 120; do
  # --batch 16: 90 steps an epoch, long enough for the bar to be redrawn.
  tmux -L "$sock" -f /dev/null new-session -d -s "w$columns" -x "$columns" -y 60 \
    "'$tandem' train --devices reference:0 --epochs 3 --batch 16 2>'$out/err'; \
     tmux -L '$sock' wait-for -S 'done$columns'; sleep 60"
  bounded 400 tmux -L "$sock" wait-for "done$columns"
  # The session stays until kill-server at exit: killing the server's last session
  # ends the server, and the next new-session could reach it while it was exiting
  # ("server exited unexpectedly").
  tmux -L "$sock" capture-pane -p -t "w$columns" >"$out/screen$columns"
  epochs=$(grep -c '^epoch' "$out/screen$columns" || true)
  finished=$(grep -c '^epoch .*test acc [0-9.]*%' "$out/screen$columns" || true)
  if [ "$epochs" -ne 3 ] || [ "$finished" -ne 3 ] || grep -q '\[[#.]*\]' "$out/screen$columns"; then
    echo "FAILED at $columns columns: $epochs epoch lines, $finished finished:"
    cat "$out/screen$columns" "$out/err"
    fail=1
  fi
done
[ $fail -eq 0 ] && echo "cli_progress_tmux: ok (60, 80 and 120 columns)"
exit $fail
