#!/bin/sh
# Shaders take every binding, push-constant argument and work-group size from
# kernel_bindings.glsl, generated from the kernel table: none spells a binding
# number, a position in args (u[k], f[k], off[k]) or a group size, and each .comp
# declares the kernel it is named after (NAME_coopmat.comp: kernel NAME). kernel_args.glsl defines the macros that
# use the positions; fill_words.comp is the Vulkan backend's own fill, not a
# kernel of the table. Then checks that each rule catches a shader breaking it.
# usage: shader_names.sh SHADER_DIR
set -eu
dir=$1
positions='args\.(u|f|off)\[|binding *=|local_size_x *=|local_size_x_id|constant_id *= *0\b'

# Prints each breach in the shaders named; fails if there is one.
check() {
    fail=0
    for file in "$@"; do
        case ${file##*/} in kernel_args.glsl | fill_words.comp) continue ;; esac
        if grep -nE "$positions" "$file"; then
            echo "$file: spells a position; use the table's names (kernel_bindings.glsl)"
            fail=1
        fi
        case $file in
        *.comp)
            # NAME_coopmat.comp is a matrix-engine module of kernel NAME
            name=$(basename "$file" .comp)
            name=${name%_coopmat}
            if ! grep -q "^#define TDM_KERNEL_$name\$" "$file"; then
                echo "$file: does not define TDM_KERNEL_$name"
                fail=1
            fi
            ;;
        esac
    done
    return $fail
}

check "$dir"/*.comp "$dir"/*.glsl

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Fails unless the check rejects axpy.comp edited by the sed script $1.
caught() {
    sed "$1" "$dir/axpy.comp" >"$work/axpy.comp"
    if check "$work/axpy.comp" >/dev/null; then
        echo "the check misses: $1"
        exit 1
    fi
}
for breach in 'uint n = args.u[0];' 'float a = args.f[1];' 'uint o = args.off[2];' \
    'layout(set = 0, binding = 3) buffer B { float b[]; };' 'layout(local_size_x = 64) in;' \
    'layout(local_size_x_id = 0) in;'; do
    caught "\$a $breach"
done
caught 's/^#define TDM_KERNEL_axpy$/#define TDM_KERNEL_copy/'
