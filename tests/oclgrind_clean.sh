#!/bin/sh
# Runs a command on Oclgrind with its checks on (set in the environment by the ctest
# row) and fails on anything it writes to stderr: Oclgrind reports every finding
# there, as glibc does a damaged heap at exit, and tandem's CLI writes nothing there
# when all goes well.
# usage: oclgrind_clean.sh COMMAND [ARGS...]
set -u
err=$(mktemp "${TMPDIR:-/tmp}/tandem-oclgrind-XXXXXX")
trap 'rm -f "$err"' EXIT
"$@" 2>"$err"
status=$?
if [ -s "$err" ]; then
    cat "$err"
    echo "stderr must be empty (Oclgrind findings or a crash above)"
    exit 1
fi
[ "$status" -eq 0 ] || { echo "exit status $status"; exit 1; }
