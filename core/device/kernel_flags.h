/* Internal: the words kernels.def's entries spell a buffer with, for the code that
 * expands the entries (the table, the GLSL bindings generator). */
#ifndef TDM_CORE_KERNEL_FLAGS_H
#define TDM_CORE_KERNEL_FLAGS_H

/* A buffer's flags: its access, then what the conformance tool draws into it. */
enum {
    TDM_R = 1,
    TDM_W = 2,
    TDM_RW = TDM_R | TDM_W,
    TDM_POSITIVE = 4,
    TDM_LABELS = 8,
    TDM_INDICES = 16,
    TDM_OPTIONAL = 32,
    TDM_ACT = 64 /* an activation: float16 in the kernel's TDM_HALF_TWIN */
};

/* A buffer's type as the table's char for it. */
#define TDM_TYPE_F32 'f'
#define TDM_TYPE_F16 'h'
#define TDM_TYPE_U32 'u'

#endif
