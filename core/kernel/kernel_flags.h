/* Internal: the words kernels.def's entries spell a buffer with, and the names of an
 * activation argument's values, for the code that expands the entries (the table, the
 * GLSL bindings generator, the OpenCL signature). */
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
    TDM_ACT = 64,   /* an activation: float16 in the kernel's TDM_HALF_TWIN */
    TDM_UNIT = 128, /* values in [0, 1]: a cross-entropy's targets */
    TDM_MASK = 256  /* read for its sign alone (a ReLU's input): see kernels.def */
};

/* A buffer's type as the table's char for it. */
#define TDM_TYPE_F32 'f'
#define TDM_TYPE_F16 'h'
#define TDM_TYPE_U32 'u'

/* The values of a kernel's activation argument (bias_act's): tdm_activation's
 * (tandem/nn.h), which the kernels' sources name TDM_ACT_<name> as the enum does,
 * defined by the backends' generated preludes. */
#define TDM_KERNEL_ACTIVATIONS(X) X(LINEAR) X(RELU) X(TANH) X(SIGMOID) X(GELU)

#endif
