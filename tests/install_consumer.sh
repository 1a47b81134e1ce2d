#!/bin/sh
# Installs tandem into a scratch prefix and builds against it, as a user's project
# would: tests/consumer three ways (pkg-config, CMake's tandem::tandem and
# tandem::tandem_static) and examples/train_mlp.c through pkg-config and through
# find_package, running each. The installed tandem finds its bundled data under its
# own prefix, not in the build or source tree. Neither package file requires the
# OpenCL, CLBlast or Vulkan loader. The build tree's own tandem.pc and
# tandemConfig.cmake build the consumer before any install. The man page and the
# shell completions are installed.
# usage: install_consumer.sh BUILD_DIR CONSUMER_DIR EXAMPLES_DIR [CFLAGS]; CFLAGS
# holds the sanitizers of a sanitizer build, which its consumers must be built with.
set -eu
build=$1 source=$2 examples=$3 flags=${4:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix="$work/prefix"
cmake --install "$build" --prefix "$prefix" >/dev/null
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
# The GPU loaders are opened at run time: neither package file may require them.
if cat "$prefix/lib/pkgconfig/tandem.pc" "$prefix/lib/cmake/tandem/tandemConfig.cmake" |
    grep -v '^ *#' | grep -iE 'opencl|clblast|vulkan'; then
    echo "install_consumer: the package files require a GPU loader"
    exit 1
fi
cc -std=c11 -Wall -Wextra -Werror $flags "$source/main.c" $(pkg-config --cflags --libs tandem) \
   -Wl,-rpath,"$prefix/lib" -o "$work/main_pc"
"$work/main_pc"
cc -std=c11 -Wall -Wextra -Werror $flags "$examples/train_mlp.c" $(pkg-config --cflags --libs tandem) \
   -pthread -Wl,-rpath,"$prefix/lib" -o "$work/train_mlp_pc"
"$work/train_mlp_pc" "$prefix/share/tandem/digits.csv.gz" "$work/pc.safetensors"
cmake -S "$source" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$prefix" \
      -DTANDEM_EXAMPLES="$examples" -DCMAKE_C_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" \
      >/dev/null
cmake --build "$work/consumer" >/dev/null
"$work/consumer/main_cmake"
"$work/consumer/main_static"
"$work/consumer/train_mlp" "$prefix/share/tandem/digits.csv.gz" "$work/cmake.safetensors"

for file in share/man/man1/tandem.1 share/bash-completion/completions/tandem \
            share/zsh/site-functions/_tandem; do
  [ -s "$prefix/$file" ] || { echo "install_consumer: $file is not installed"; exit 1; }
done
"$prefix/bin/tandem" train --devices reference:0 --epochs 1 --no-progress >"$work/log"
grep -q "^data     $prefix/bin/../share/tandem/digits.csv.gz: 1797 examples" "$work/log" ||
  { cat "$work/log"; echo "the installed tandem must train on the digits under its prefix"; exit 1; }
# The build tree's package files: its libraries, the source tree's headers.
export PKG_CONFIG_PATH="$build"
cc -std=c11 -Wall -Wextra -Werror $flags "$source/main.c" $(pkg-config --cflags --libs tandem) \
   -Wl,-rpath,"$(pkg-config --variable=libdir tandem)" -o "$work/main_build_pc"
"$work/main_build_pc"
cmake -S "$source" -B "$work/consumer_build" -Dtandem_DIR="$build" \
      -DTANDEM_EXAMPLES="$examples" -DCMAKE_C_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" \
      >/dev/null
cmake --build "$work/consumer_build" --target main_cmake main_static >/dev/null
"$work/consumer_build/main_cmake"
"$work/consumer_build/main_static"
echo "install_consumer: ok"
