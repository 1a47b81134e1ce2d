/* Internal: the kernel table (kernels.def) as C data, and the launch of a kernel. */
#ifndef TDM_CORE_KERNEL_H
#define TDM_CORE_KERNEL_H

#include <stdint.h>

#include "tandem/buffer.h"
#include "tandem/tensor.h"

#define TDM_KERNEL_MAX_BUFFERS 8
#define TDM_KERNEL_MAX_UINTS 16
#define TDM_KERNEL_MAX_FLOATS 8
#define TDM_KERNEL_MAX_GROUPS 65535u /* the smallest maxComputeWorkGroupCount[0] */
/* The most loop iterations one item of a kernel may run on a device whose driver ends
 * long shader loops early, silently. lavapipe (Mesa 22.3's llvmpipe) ends an
 * invocation's loops after 65535 iterations in all, and runs each work-group as one
 * SIMD vector of 4 or 8 lanes (the Vulkan backend's group size for CPU drivers), so
 * that each invocation takes 8 or 16 of the items of a launch sized for groups of 64:
 * 16 items of 4000 iterations stay within the limit. */
#define TDM_KERNEL_LOOP_BUDGET 4000u

/* How the core sizes a launch; each kernel loops grid-stride over its items. */
typedef enum tdm_grid {
    TDM_GRID_N,      /* one item per element: u[0] = n */
    TDM_GRID_PAIRS,  /* one item per pair of elements (float16 packing): u[0] = n */
    TDM_GRID_CELLS,  /* one item per matrix cell: u[0] = rows, u[1] = cols */
    TDM_GRID_ROWS,   /* one item per row: u[0] = rows */
    TDM_GRID_COLS,   /* one item per column: the uint cols */
    TDM_GRID_CHUNKS, /* one work-group per chunk: u[0] = n, u[1] = chunk */
    TDM_GRID_TILES,  /* one work-group per 16 x 16 tile of a product (tdm_kernel_product) */
    TDM_GRID_OUTPUT, /* one item per element of the first buffer (convolution, pooling,
                        gather_rows_grad) */
    TDM_GRID_PLANES  /* one item per element of a plane of the kernel's Winograd buffer
                        (TX, TY or TF): a sixteenth of its extent */
} tdm_grid;

/* The table's kernels in its order, then their float16 twins (kernels.def's last
 * section). */
typedef enum tdm_kernel {
#define TDM_KERNEL(name, ...) TDM_KERNEL_##name,
#define TDM_HALF_TWIN(name) TDM_KERNEL_##name##_f16,
#include "kernel/kernels.def"
#undef TDM_KERNEL
#undef TDM_HALF_TWIN
    TDM_KERNEL_COUNT
} tdm_kernel;

typedef struct tdm_tolerance {
    unsigned ulps; /* units in the last place of the reference result */
    double rel;    /* times the magnitude scale (see kernels.def) */
    int linear;    /* the scale is the reference run on absolute values */
} tdm_tolerance;

/* Buffer extents, in elements of the buffer's type. */
typedef enum tdm_extent {
    TDM_EXTENT_N,
    TDM_EXTENT_P,
    TDM_EXTENT_R,
    TDM_EXTENT_C,
    TDM_EXTENT_RC,
    TDM_EXTENT_SC,
    TDM_EXTENT_GA,
    TDM_EXTENT_GB,
    TDM_EXTENT_GC,
    TDM_EXTENT_IM, /* an NHWC image: batch * h * w * c */
    TDM_EXTENT_OM, /* a convolution's output: batch * oh * ow * oc */
    TDM_EXTENT_PM, /* a pooling's output: batch * oh * ow * c */
    TDM_EXTENT_BC, /* a global pooling's output: batch * c */
    TDM_EXTENT_OC, /* a convolution's bias: oc */
    TDM_EXTENT_FL, /* an HWIO filter: kh * kw * c * oc */
    TDM_EXTENT_CL, /* im2col's matrix: batch * oh * ow * kh * kw * c */
    TDM_EXTENT_TX, /* Winograd's transformed input tiles: 16 planes of tiles * c, tiles =
                      batch * ceil(oh / 2) * ceil(ow / 2), tdm_winograd_stride apart */
    TDM_EXTENT_TY, /* and its products before the output transform: planes of tiles * oc */
    TDM_EXTENT_TF, /* a transformed 3x3 filter: planes of rows * cols */
    TDM_EXTENT_F3, /* a 3x3 HWIO filter of rows channels in, cols out: 9 * rows * cols */
    TDM_EXTENT_MA, /* rows of cols with leading dimension lda */
    TDM_EXTENT_MC  /* rows of cols with leading dimension ldc */
} tdm_extent;

/* The names a uint argument may have (kernel_uints.def), as ids. */
typedef enum tdm_uint_name {
#define TDM_UINT_NAME(name) TDM_UINT_##name,
#include "kernel/kernel_uints.def"
#undef TDM_UINT_NAME
    TDM_UINT_NAME_COUNT
} tdm_uint_name;

typedef struct tdm_kernel_buffer {
    const char *name;
    char type; /* 'f' float32, 'h' float16, 'u' uint32 */
    tdm_extent extent;
    int written;    /* TDM_W or TDM_RW */
    int read;       /* TDM_R or TDM_RW */
    int positive;   /* TDM_POSITIVE */
    int unit;       /* TDM_UNIT: values in [0, 1] */
    int labels;     /* TDM_LABELS: class labels in [0, cols), or -1 (masked) */
    int indices;    /* TDM_INDICES: row indices in [0, src_rows) */
    int optional;   /* TDM_OPTIONAL */
    int activation; /* TDM_ACT: float16 in the kernel's twin */
    int mask;       /* TDM_MASK: read for its sign alone */
} tdm_kernel_buffer;

/* A float argument and the range the conformance tool draws it from. */
typedef struct tdm_kernel_float {
    const char *name;
    float min, max;
} tdm_kernel_float;

/* One kernel, from its entry in kernels.def. */
typedef struct tdm_kernel_info {
    const char *name;
    tdm_kernel base; /* the kernel whose sources it runs: itself, or a twin's kernel */
    tdm_grid grid;
    unsigned wg;
    tdm_tolerance tolerance;
    unsigned buffer_count, uint_count, float_count;
    const tdm_kernel_buffer *buffers; /* [buffer_count] */
    const tdm_uint_name *uints;       /* [uint_count] */
    const tdm_kernel_float *floats;   /* [float_count] */
} tdm_kernel_info;

/* The table entry, compiled from kernels.def; a twin's is its kernel's with the
 * activations' type F16 and the name NAME_f16. */
const tdm_kernel_info *tdm_kernel_get(tdm_kernel kernel);

/* The kernel's float16 twin (kernels.def: TDM_HALF_TWIN), or TDM_KERNEL_COUNT. */
tdm_kernel tdm_kernel_half_twin(tdm_kernel kernel);

/* The kernel that applies activation `act` (a tdm_activation) as bias_act applies it
 * after the bias: relu, tanh, sigmoid or gelu, and bias_add for linear (y = x + b, as
 * z); TDM_KERNEL_COUNT for any other value. */
tdm_kernel tdm_activation_kernel(uint32_t act);

/* The tolerance a launch of the kernel with the uints u meets: the table's, or for a
 * kernel with an activation argument (bias_act and its twin) that activation's
 * kernel's, so that the fused kernel is as exact as its parts. */
const tdm_tolerance *tdm_kernel_tolerance(tdm_kernel kernel, const uint32_t *u);

/* The m x n of a TDM_GRID_TILES kernel's product: gemm's m and n, or a convolution's
 * as its implicit GEMM computes it (conv2d_implicit: the output's positions x oc; its
 * filter gradient: kh * kw * c x oc; its input gradient: the image's positions x c);
 * with k, the sum's length. Saturated at UINT32_MAX. */
void tdm_kernel_product(const tdm_kernel_info *info, const uint32_t *u, uint32_t *m, uint32_t *n,
                        uint32_t *k);

/* Whether callers fall back where a device lacks the kernel, so that lacking it costs
 * speed, never a feature: the implicit convolutions (a model lowers instead) and the
 * fused ones (a model runs their parts in launches of their own). */
int tdm_kernel_has_fallback(tdm_kernel kernel);

/* The kernel of that name, or TDM_KERNEL_COUNT. */
tdm_kernel tdm_kernel_find(const char *name);

/* The kernel's read-only buffers: the most its `inputs` may be. */
unsigned tdm_kernel_input_count(const tdm_kernel_info *info);
/* Its read-only buffers that are not optional: the fewest its `inputs` may be. */
unsigned tdm_kernel_required_input_count(const tdm_kernel_info *info);

/* Whether buffer b takes part in a call with the uints u: an optional buffer is the
 * k-th of the kernel's read-only buffers, used when k < inputs. */
int tdm_kernel_buffer_used(const tdm_kernel_info *info, const uint32_t *u, unsigned b);

/* Bytes per element of a buffer type. */
unsigned tdm_kernel_type_size(char type);

/* A uint argument's name as the table spells it. */
const char *tdm_kernel_uint_name(tdm_uint_name name);

/* Where the kernel's uint argument of that name sits in u, or -1 if it has none: for
 * code that serves many kernels (the code of one takes TDM_UINT_AT, kernel_args.h). */
int tdm_kernel_uint_place(const tdm_kernel_info *info, tdm_uint_name name);

/* The value of the kernel's uint argument of that name in u, or 0 if it has none. */
uint64_t tdm_kernel_uint(const tdm_kernel_info *info, const uint32_t *u, tdm_uint_name name);

/* Elements between the starts of two planes of a Winograd buffer holding plane
 * elements each: whole pages put the 16 planes' elements of a tile in one cache set
 * (PoCL's winograd_input at 64x14x14x32: 3.7 ms, against 0.9 ms at 30 channels), so
 * planes start 64 bytes past a multiple of 4096. */
uint64_t tdm_winograd_stride(uint64_t plane);

/* Elements in a plane of the Winograd kernel's transformed buffer (TX, TY or TF). */
uint64_t tdm_kernel_winograd_plane(const tdm_kernel_info *info, const uint32_t *u);

/* Elements an extent spans for the uint arguments u. */
uint64_t tdm_kernel_extent(const tdm_kernel_info *info, const uint32_t *u, tdm_extent extent);

/* A kernel launch as backends receive it. Unused buffer slots are NULL. */
typedef struct tdm_launch {
    tdm_kernel kernel;
    tdm_buffer *buffers[TDM_KERNEL_MAX_BUFFERS];
    uint32_t offsets[TDM_KERNEL_MAX_BUFFERS]; /* in elements of each buffer's type */
    uint32_t u[TDM_KERNEL_MAX_UINTS];
    float f[TDM_KERNEL_MAX_FLOATS];
    uint32_t groups; /* work-groups to launch, 1..TDM_KERNEL_MAX_GROUPS */
} tdm_launch;

/* A launch as callers describe it: the kernel, its views and scalars. The core
 * checks every view against the kernel's extents, sizes the grid, and splits the
 * launch where a device cannot bind a buffer that large in one piece. */
typedef struct tdm_kernel_call {
    tdm_kernel kernel;
    tdm_buffer_view views[TDM_KERNEL_MAX_BUFFERS]; /* offset and size in bytes */
    uint32_t u[TDM_KERNEL_MAX_UINTS];
    float f[TDM_KERNEL_MAX_FLOATS];
} tdm_kernel_call;

/* Makes the call its kernel's float16 twin where the activations are stored as
 * TDM_F16 (any other storage leaves it); a kernel without a twin becomes
 * TDM_KERNEL_COUNT, which tdm_kernel_run refuses. */
void tdm_kernel_store_as(tdm_kernel_call *call, tdm_dtype storage);

/* tdm_kernel_run of the call made its twin where the activations are stored as
 * TDM_F16. */
tdm_status tdm_kernel_run_as(tdm_device *dev, tdm_kernel_call call, tdm_dtype storage);

/* Whether dev's backend implements the kernel. */
int tdm_kernel_supported(const tdm_device *dev, tdm_kernel kernel);

/* Runs the kernel on dev, asynchronously (ordered like every other operation).
 * TDM_ERR_UNSUPPORTED when the device's backend lacks the kernel, or when the call
 * spans more of one buffer than the device binds at once and its grid cannot be
 * split (row, column and tile kernels). */
tdm_status tdm_kernel_run(tdm_device *dev, const tdm_kernel_call *call);

#endif
