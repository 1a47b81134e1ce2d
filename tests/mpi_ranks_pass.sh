#!/bin/sh
# mpi_ranks_pass.sh NP MPIEXEC PROGRAM ARGS...: runs PROGRAM on NP processes and
# passes when the ranks expected to survive each print "rank R: PASS" (for kill,
# stall and the lost_* modes, every rank but the one that dies). mpirun's own status is not used: with a rank killed on
# purpose it reports that rank's death.
np=$1 mpiexec=$2
shift 2
mode=$(eval echo "\${$#}")
. "$(dirname "$0")/time_limit.sh"
out=$(bounded 400 "$mpiexec" --allow-run-as-root --oversubscribe --enable-recovery \
      -np "$np" "$@" 2>&1)
echo "$out"
expected=$np
case $mode in kill|stall|lost_server|lost_worker) expected=$((np - 1)) ;; esac
passed=$(echo "$out" | grep -c '^rank [0-9]*: PASS')
skipped=$(echo "$out" | grep -c '^rank [0-9]*: SKIP')
[ "$skipped" -gt 0 ] && exit 0
[ "$passed" -ge "$expected" ] || { echo "FAIL: $passed of $expected ranks passed"; exit 1; }
