#!/bin/sh
# tandem conformance survives its drivers (docs/design/012-conformance-that-survives.md):
# a worker made to crash, abort or hang at one cell (TDM_CONFORMANCE_FAULT) costs that
# cell alone, recorded CRASH or TIMEOUT in the table and the JSON with how the worker
# ended; every other cell of the run keeps its verdict, the counts say so, and the exit
# status is 1. Runs on PoCL's two devices, on Linux and under Wine.
# usage: cli_conformance_isolation.sh TANDEM
set -eu
tandem=$1
out=$(mktemp -d "${TMPDIR:-/tmp}/tandem-isolation-XXXXXX")
trap 'rm -rf "$out"' EXIT
fail=0
say() { echo "FAIL: $*"; fail=1; }

# run NAME FAULT ARGS...: the table into NAME.txt, the JSON into NAME.json, the exit
# status into NAME.rc
run() {
    name=$1 fault=$2
    shift 2
    rc=0
    TDM_CONFORMANCE_FAULT=$fault "$tandem" conformance --device opencl "$@" \
        --json "$out/$name.json" >"$out/$name.txt" 2>"$out/$name.err" || rc=$?
    echo "$rc" >"$out/$name.rc"
    cat "$out/$name.txt"
}
want_rc() { [ "$(cat "$out/$1.rc")" = "$2" ] || say "$1: exit status $(cat "$out/$1.rc"), want $2"; }
# row NAME ROW CELLS...: the table's row ROW holds these cells, in order
row() {
    name=$1 label=$2
    shift 2
    line=$(grep "^$label " "$out/$name.txt" || true)
    for cell; do
        case $line in
        *"$cell"*) line=${line#*"$cell"} ;;
        *) say "$name: row '$label' lacks '$cell' where expected: $(grep "^$label " "$out/$name.txt")" ;;
        esac
    done
}
json_has() { grep -q -- "$2" "$out/$1.json" || say "$1: the JSON lacks $2"; }

# A kernel crashing on one device: that cell CRASH, the row's other device and the
# rows after it checked, the summary counting it.
run crash "relu@opencl:1:segv" --kernel copy,relu,sum --kernels-only
want_rc crash 1
row crash copy "PASS" "PASS"
row crash relu "PASS" "CRASH"
row crash sum "PASS" "PASS"
grep -q "^5 passed, 1 failed, 0 skipped (of the failed: 1 crashed, 0 timed out)$" "$out/crash.txt" ||
    say "crash: the summary line"
grep -q "^CRASH relu on opencl:1: the worker running it ended: .*, in case 1$" "$out/crash.txt" ||
    say "crash: the crash's line names how the worker ended and the case"
json_has crash '"status": "CRASH"'
json_has crash '"ended_in_case": 1'
json_has crash '"crashed": 1'
json_has crash '"passed": 5'
# Where no sanitizer catches the fault itself (AddressSanitizer's SEGV report, or
# UBSan's store to a null pointer, each ending the worker with exit status 1), how the
# worker ended is named: the signal, or on Windows the exception.
ended="CRASH SIGSEGV"
[ -n "${TDM_TEST_WINDOWS:-}" ] && ended="CRASH 0xC0000005"
grep -q "AddressSanitizer\|runtime error" "$out/crash.err" || row crash relu "PASS" "$ended"

# A gradient check aborting on one device.
run abort "relu_grad@opencl:0:abort" --kernel relu --grad
want_rc abort 1
row abort relu "PASS" "PASS"
row abort relu_grad "PASS" "CRASH" "PASS"
json_has abort '"check": "relu_grad"'
json_has abort '"crashed": 1'

# A hang past the case's time limit: TIMEOUT, and the run goes on, within a bound. The
# limit leaves a busy machine's compiler room (a loaded 2-core host once took more
# than 3 s to build the next cell's kernel).
start=$(date +%s)
run hang "sum@opencl:0:hang" --kernel copy,sum,relu --kernels-only --timeout 30
took=$(($(date +%s) - start))
want_rc hang 1
row hang sum "TIMEOUT after 30 s" "PASS"
row hang relu "PASS" "PASS"
json_has hang '"status": "TIMEOUT"'
json_has hang '"ended": "after 30 s"'
json_has hang '"timed_out": 1'
[ "$took" -lt 180 ] || say "hang: the run took $took s"

# A collective crashing: its algorithms run together, so all of them are lost; the
# other operations still run.
run collective "all-gather@opencl all:segv" --collectives --no-large
want_rc collective 1
row collective "opencl all       all-gather" "CRASH" "CRASH" "CRASH" "CRASH" "CRASH" "CRASH"
row collective "opencl all       all-reduce" "PASS" "PASS"
row collective "opencl all       broadcast" "PASS" "PASS"
grep -q "^CRASH all-gather on opencl all, every algorithm: the worker running them ended: " \
    "$out/collective.txt" || say "collective: one line for the lost algorithms"

# Nothing wrong: the same run passes, and --no-isolate gives the same verdicts.
run clean "" --kernel copy,relu,sum --kernels-only
want_rc clean 0
"$tandem" conformance --device opencl --kernel copy,relu,sum --kernels-only --no-isolate \
    >"$out/inproc.txt"
diff "$out/clean.txt" "$out/inproc.txt" >/dev/null || say "--no-isolate's table differs"
exit $fail
