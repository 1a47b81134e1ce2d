# Sourced by the shell tests: bounded SECONDS COMMAND... runs COMMAND under timeout,
# SECONDS scaled by TDM_TEST_TIME_SCALE (ctest sets it: 1, or more in a sanitizer
# build, whose processes run several times slower), so that a sanitizer does not
# fail a case that would pass. A command that runs out is named, with the time it
# had, before the test fails with timeout's status.
time_scale=${TDM_TEST_TIME_SCALE:-1}

bounded() {
  limit=$(($1 * time_scale))
  base=$1
  shift
  bounded_status=0
  # --kill-after: mpirun passes the TERM on to its ranks; one that ignores it goes too.
  timeout --kill-after=10 "$limit" "$@" || bounded_status=$?
  if [ "$bounded_status" -eq 124 ] || [ "$bounded_status" -eq 137 ]; then
    echo "TIMEOUT: stopped after $limit s ($base s x TDM_TEST_TIME_SCALE $time_scale): $*" >&2
  fi
  return "$bounded_status"
}

# until_epoch FILE N PID: waits until FILE (a chief's stdout) shows epoch N, polling
# for up to 240 s (scaled): 0, or 1 after saying why (PID, the job, ended first, or
# the time ran out).
until_epoch() {
  tries=0
  until grep -q "^epoch *$2/" "$1" 2>/dev/null; do
    kill -0 "$3" 2>/dev/null || { echo "the job ended before epoch $2"; return 1; }
    tries=$((tries + 1))
    [ $tries -lt $((4800 * time_scale)) ] || { echo "no epoch $2 within $((240 * time_scale)) s"; return 1; }
    sleep 0.05
  done
}
