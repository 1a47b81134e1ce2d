#!/bin/sh
# Installs tandem into a scratch prefix and builds tests/consumer against it three
# ways: pkg-config (shared), CMake's tandem::tandem and tandem::tandem_static.
# usage: install_consumer.sh BUILD SOURCE [CFLAGS]; CFLAGS holds the sanitizers of a
# sanitizer build, which its consumers must be built with too.
set -eu
build=$1 source=$2 flags=${3:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
export PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig"
cc -std=c11 -Wall -Wextra -Werror $flags "$source/main.c" $(pkg-config --cflags --libs tandem) \
   -Wl,-rpath,"$work/prefix/lib" -o "$work/main_pc"
"$work/main_pc"
cmake -S "$source" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$work/prefix" \
      -DCMAKE_C_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" >/dev/null
cmake --build "$work/consumer" >/dev/null
"$work/consumer/main_cmake"
"$work/consumer/main_static"
echo "install_consumer: ok"
