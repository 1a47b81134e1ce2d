#!/bin/sh
# Installs tandem into a scratch prefix and builds tests/consumer against it three
# ways: pkg-config (shared), CMake's tandem::tandem and tandem::tandem_static.
set -eu
build=$1 source=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
export PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig"
cc -std=c11 -Wall -Wextra -Werror "$source/main.c" $(pkg-config --cflags --libs tandem) \
   -Wl,-rpath,"$work/prefix/lib" -o "$work/main_pc"
"$work/main_pc"
cmake -S "$source" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/consumer" >/dev/null
"$work/consumer/main_cmake"
"$work/consumer/main_static"
echo "install_consumer: ok"
