#!/bin/sh
# module_boundaries.sh CC INCLUDE MODULES_DIR: each core module's object library sees
# the internal headers of the modules below it and of no other (tdm_module_root); model,
# the optimizer, the parameter service, the train op and the monitor see some modules
# through narrow headers alone. For every library root: a
# private header of each module it may use compiles, and one of each module it may not
# is an error. The allowed sets are docs/ARCHITECTURE.md's; every root holds the
# platform room besides, which sees no other. Backends include of the core the door
# (device/backend_api.h) and the kernel table alone.
set -eu
cc=$1 include=$2 roots=$3
probe=$(mktemp --suffix=.c)
trap 'rm -f "$probe"' EXIT
header() { # a header of module $1
  case $1 in
    base) echo base/error.h ;; kernel) echo kernel/kernel.h ;; device) echo device/device_impl.h ;; ops) echo ops/ops_check.h ;;
    collective) echo collective/collective_impl.h ;; input) echo input/dataset_impl.h ;;
    distribute) echo distribute/strategy_impl.h ;; checkpoint) echo checkpoint/checkpoint_files.h ;;
    model) echo model/model_impl.h ;; platform) echo platform/tdm_thread.h ;;
    optimizer) echo optimizer/optimizer_impl.h ;; ps) echo ps/ps_protocol.h ;;
    train_op) echo train_op/train_op_impl.h ;; monitor) echo monitor/monitor_impl.h ;;
    summary) echo summary/event_record.h ;;
  esac
}
failed=0
check() { # library, module, expected (yes: compiles, no: refused)
  printf '#include "%s"\n' "$(header "$2")" > "$probe"
  if "$cc" -fsyntax-only -D_GNU_SOURCE -I"$include" -I"$roots/$1" "$probe" 2>/dev/null; then
    got=yes
  else
    got=no
  fi
  if [ "$got" != "$3" ]; then
    echo "FAIL: $1 including $(header "$2"): expected $3, got $got"
    failed=1
  fi
}
all="platform base kernel device collective ops input distribute checkpoint summary model optimizer ps train_op monitor"
for entry in "tandem_platform:platform" "tandem_base:base" "tandem_kernel:base kernel" "tandem_device:base kernel device" \
             "tandem_collective:base kernel device collective" "tandem_ops:base kernel device ops" \
             "tandem_input:base kernel device input" \
             "tandem_distribute:base kernel device collective input distribute" \
             "tandem_checkpoint:base checkpoint" "tandem_summary:base summary" \
             "tandem_model:base kernel device checkpoint model" \
             "tandem_optimizer:base kernel device optimizer" "tandem_ps:base kernel device optimizer ps" \
             "tandem_train_op:base kernel device checkpoint optimizer ps train_op" \
             "tandem_monitor:base kernel device checkpoint optimizer train_op monitor" \
             "tandem_training:base" \
             "tandem_backend_reference:base kernel device" \
             "tandem_backend_opencl:base kernel device" "tandem_backend_vulkan:base kernel device"; do
  lib=${entry%%:*} allowed="${entry#*:} platform"
  [ -d "$roots/$lib" ] || continue
  for module in $all; do
    case " $allowed " in *" $module "*) check "$lib" "$module" yes ;; *) check "$lib" "$module" no ;; esac
  done
done
# model, the optimizer, the parameter service, the train op and the monitor see
# other modules through their narrow headers alone.
narrow() { # library, headers
  lib=$1
  shift
  printf '#include "%s"\n' "$@" > "$probe"
  "$cc" -fsyntax-only -D_GNU_SOURCE -I"$include" -I"$roots/$lib" "$probe" ||
    { echo "FAIL: $lib cannot include its narrow headers"; failed=1; }
}
narrow tandem_model input/standardize.h ops/ops_images.h ops/ops_mixed.h
for lib in tandem_optimizer tandem_ps tandem_train_op tandem_monitor; do
  narrow $lib distribute/variable_access.h collective/collectives.h
done
# Backends come in through one door (device/backend_api.h) and the kernel table they
# expand (kernel/kernels.def); of the core nothing else, the public headers aside.
others=$(grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"([a-z_]+/)*(core|platform|base|kernel|device|collective|ops|input|distribute|checkpoint|summary|model|optimizer|ps|train_op|monitor|training)/' \
           --include='*.c' --include='*.h' "$include/../backends" |
         grep -vE '"(device/backend_api\.h|kernel/kernels\.def)"' || true)
if [ -n "$others" ]; then
  echo "FAIL: backends include core headers besides device/backend_api.h:"
  echo "$others"
  failed=1
fi
# The transport contract stands alone: the public headers and nothing of the core.
printf '#include "rank_transport.h"\n' > "$probe"
"$cc" -fsyntax-only -I"$include" -I"$include/../transports" "$probe" ||
  { echo "FAIL: transports/rank_transport.h needs more than the public headers"; failed=1; }
[ "$failed" = 0 ] && echo "every module sees the modules below it and no other"
exit "$failed"
