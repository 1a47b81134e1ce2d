/* The CPU flushing denormal operands and results to zero, as a GPU compiling with
 * flush-to-zero does between a kernel's operations (NVIDIA's Vulkan compiler turns
 * (x - mean) * inv_std with inv_std = FLT_MIN into 0 before gamma = -FLT_MAX scales
 * it): x86's MXCSR DAZ and FTZ bits. Elsewhere the mode is left as it is and only
 * the inputs of the flushed answer are flushed. */
#include "conformance.h"

#if defined(__x86_64__) || defined(__SSE2_MATH__) /* float maths in SSE registers */
#include <xmmintrin.h>

enum { MXCSR_DAZ = 0x0040, MXCSR_FTZ = 0x8000 };

unsigned conf_flushing_begin(void)
{
    unsigned old = _mm_getcsr();
    _mm_setcsr(old | MXCSR_DAZ | MXCSR_FTZ);
    return old;
}

void conf_flushing_end(unsigned old)
{
    _mm_setcsr(old);
}

int conf_flushing_available(void)
{
    return 1;
}
#else
unsigned conf_flushing_begin(void)
{
    return 0;
}

void conf_flushing_end(unsigned old)
{
    (void)old;
}

int conf_flushing_available(void)
{
    return 0;
}
#endif
