/* Internal: OpenBLAS's kernels for the CPU it runs on. A DYNAMIC_ARCH build (Debian's)
 * picks its kernels by the CPU's model number when it loads, and a model newer than
 * the build falls back to its oldest x86-64 kernels: Debian 12's 0.3.21 takes an
 * Intel Xeon of model 207 for a Prescott and multiplies with SSE3 at a quarter of
 * what its AVX-512 kernels reach there (docs/KERNELS.md). */
#ifndef TDM_OPENCL_OPENBLAS_CORE_H
#define TDM_OPENCL_OPENBLAS_CORE_H

#include "device/backend_api.h"

/* In lib's resolve, right after it opened OpenBLAS: where the kernels it chose use
 * no AVX2 though the CPU has AVX2 and FMA, OpenBLAS is opened again with
 * OPENBLAS_CORETYPE naming the kernels the CPU's vectors fit (SkylakeX with AVX-512,
 * else Haswell), the variable set only while it loads. Not where the variable is
 * already set (the user's choice). Where the program had loaded OpenBLAS before
 * (numpy in Python), in a copy of tandem's own, so that its products have the bits
 * and speed they have in the CLI; that copy failing, the program's stays in use.
 * Appends the kernels in use to lib->note. 0 where OpenBLAS would not open again
 * (lib->note says why), else 1. */
int tdm_openblas_choose_core(tdm_library *lib);

#endif
