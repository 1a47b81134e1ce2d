/* The reference's kernels of the table, by X-macro, so a kernel missing here fails to
 * compile. Below the twins, which run their kernels through it on float copies. */
#include "ref_kernels.h"

#include "reference_launch.h"

void tdm_reference_run(const tdm_launch *launch, void *const *memory)
{
    switch (launch->kernel) {
#define TDM_KERNEL(name, ...)                                                                      \
    case TDM_KERNEL_##name: {                                                                      \
        const ref_##name##_args args = ref_##name##_unpack(launch, memory);                        \
        ref_##name(&args);                                                                         \
        break;                                                                                     \
    }
#define TDM_HALF_TWIN(name) case TDM_KERNEL_##name##_f16:
#include "kernel/kernels.def"
#undef TDM_KERNEL
#undef TDM_HALF_TWIN
    case TDM_KERNEL_COUNT: break; /* a twin is tdm_reference_half_twin's */
    }
}
