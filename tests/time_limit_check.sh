#!/bin/sh
# tests/time_limit.sh: ctest hands every test its time scale; a bounded command
# that runs out fails with timeout's status and is named with the time it had; a
# larger scale gives it that many times as long.
set -eu
[ -n "${TDM_TEST_TIME_SCALE:-}" ] || { echo "ctest set no TDM_TEST_TIME_SCALE"; exit 1; }
. "$(dirname "$0")/time_limit.sh"
err=$(mktemp "${TMPDIR:-/tmp}/tandem-time-limit-XXXXXX")
trap 'rm -f "$err"' EXIT

time_scale=1
status=0
bounded 1 sleep 30 2>"$err" || status=$?
[ "$status" -eq 124 ] || { echo "a command that ran out: status $status, not 124"; exit 1; }
grep -qx 'TIMEOUT: stopped after 1 s (1 s x TDM_TEST_TIME_SCALE 1): sleep 30' "$err" ||
  { cat "$err"; echo "the command that ran out was not named with its time"; exit 1; }

time_scale=4
bounded 1 sleep 2 2>"$err" || { cat "$err"; echo "scale 4 did not give 1 s four times"; exit 1; }
[ ! -s "$err" ] || { cat "$err"; echo "a command within its bound said something"; exit 1; }
bounded 1 false 2>"$err" && { echo "a failing command passed"; exit 1; }
[ ! -s "$err" ] || { cat "$err"; echo "a command that failed was called a timeout"; exit 1; }
echo "time_limit: ok (scale ${TDM_TEST_TIME_SCALE} here)"
