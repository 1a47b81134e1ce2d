#!/bin/sh
# docs/PYTHON.md's install, as written: its first shell block run line by line in a
# copy of the checkout (the examples write their models where they run) with the
# python3 on PATH (whichever it is), into a home of its own, against this build's
# libtandem. The block ends with the example jobs, mpirun's
# included, so each must exit 0.
# usage: python_docs.sh SOURCE_DIR BUILD_DIR WORK_DIR
set -eu
source=$1 build=$2 work=$3
rm -rf "$work"
mkdir -p "$work/home"
"$(dirname "$0")/copy_checkout.sh" "$source" "$work/checkout"
awk '/^```sh$/ { inside = 1; next } inside && /^```$/ { exit } inside' \
  "$source/docs/PYTHON.md" > "$work/install.sh"
grep -q "pip install ./python" "$work/install.sh"
grep -q "^mpirun " "$work/install.sh"
cd "$work/checkout"
HOME="$work/home" TANDEM_BUILD_DIR="$build" TANDEM_DIGITS="$source/data/digits.csv.gz" \
  sh -ex "$work/install.sh"
