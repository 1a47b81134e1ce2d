#!/bin/sh
# Copies a checkout's files as they are now, committed or not, without what git
# ignores (its build trees, tool environments), into a new folder.
# usage: copy_checkout.sh SOURCE_DIR TARGET_DIR
set -eu
source=$1 target=$2
mkdir -p "$target"
git -C "$source" ls-files -z --cached --others --exclude-standard |
  (cd "$source" && xargs -0 tar -cf - --no-recursion --ignore-failed-read 2>/dev/null) |
  tar -xf - -C "$target"
