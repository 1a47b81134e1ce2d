/* The kernel table compiled from kernels.def. Each entry's lists become static
 * arrays ended by a sentinel (so that an empty list needs no empty initializer),
 * and its counts are their lengths. A misspelt type, extent, flag or uint name is
 * an undeclared identifier. The float16 twins are derived from their kernels'
 * entries once, at the first look-up. */
#include <string.h>

#include "kernel/kernel.h"
#include "kernel/kernel_flags.h"
#include "platform/tdm_thread.h"
#include "tandem/nn.h"

#define TDM_BUFFERS(...) __VA_ARGS__
#define TDM_UINTS(...) __VA_ARGS__
#define TDM_FLOATS(...) __VA_ARGS__
#define TDM_BUF(name, type, extent, flags)                                                         \
    {#name,                                                                                        \
     TDM_TYPE_##type,                                                                              \
     TDM_EXTENT_##extent,                                                                          \
     ((flags)&TDM_W) != 0,                                                                         \
     ((flags)&TDM_R) != 0,                                                                         \
     ((flags)&TDM_POSITIVE) != 0,                                                                  \
     ((flags)&TDM_UNIT) != 0,                                                                      \
     ((flags)&TDM_LABELS) != 0,                                                                    \
     ((flags)&TDM_INDICES) != 0,                                                                   \
     ((flags)&TDM_OPTIONAL) != 0,                                                                  \
     ((flags)&TDM_ACT) != 0,                                                                       \
     ((flags)&TDM_MASK) != 0},
#define TDM_U(name) TDM_UINT_##name,
#define TDM_F(name, min, max) {#name, min, max},
#define LENGTH(array) (sizeof array / sizeof array[0] - 1) /* without the sentinel */

#define TDM_KERNEL(name, grid, wg, tolerance, buffers, uints, floats)                              \
    static const tdm_kernel_buffer buffers_##name[] = {buffers{0}};                                \
    static const tdm_uint_name uints_##name[] = {uints TDM_UINT_NAME_COUNT};                       \
    static const tdm_kernel_float floats_##name[] = {floats{0}};                                   \
    _Static_assert(LENGTH(buffers_##name) >= 1 &&                                                  \
                       LENGTH(buffers_##name) <= TDM_KERNEL_MAX_BUFFERS,                           \
                   #name ": 1 to TDM_KERNEL_MAX_BUFFERS buffers");                                 \
    _Static_assert(LENGTH(uints_##name) <= TDM_KERNEL_MAX_UINTS,                                   \
                   #name ": at most TDM_KERNEL_MAX_UINTS uints");                                  \
    _Static_assert(LENGTH(floats_##name) <= TDM_KERNEL_MAX_FLOATS,                                 \
                   #name ": at most TDM_KERNEL_MAX_FLOATS floats");
#include "kernel/kernels.def"
#undef TDM_KERNEL

#define TDM_TOL(ulps, rel, linear)                                                                 \
    {                                                                                              \
        ulps, rel, linear                                                                          \
    }
static const tdm_kernel_info infos[] = {
#define TDM_KERNEL(name, grid, wg, tolerance, buffers, uints, floats)                              \
    [TDM_KERNEL_##name] = {#name,                                                                  \
                           TDM_KERNEL_##name,                                                      \
                           grid,                                                                   \
                           wg,                                                                     \
                           tolerance,                                                              \
                           LENGTH(buffers_##name),                                                 \
                           LENGTH(uints_##name),                                                   \
                           LENGTH(floats_##name),                                                  \
                           buffers_##name,                                                         \
                           uints_##name,                                                           \
                           floats_##name},
#include "kernel/kernels.def"
#undef TDM_KERNEL
};
#define KERNELS (sizeof infos / sizeof infos[0])
#define TWINS (TDM_KERNEL_COUNT - KERNELS)

/* The twins follow every kernel (kernels.def's last section), in the enum's order. */
#define TDM_KERNEL(...)
#define TDM_HALF_TWIN(name)                                                                        \
    _Static_assert(TDM_KERNEL_##name##_f16 >= KERNELS, #name ": twins come after the kernels");
#include "kernel/kernels.def"
#undef TDM_HALF_TWIN

static const tdm_kernel twin_bases[] = {
#define TDM_HALF_TWIN(name) TDM_KERNEL_##name,
#include "kernel/kernels.def"
#undef TDM_HALF_TWIN
};
static const char *const twin_names[] = {
#define TDM_HALF_TWIN(name) #name "_f16",
#include "kernel/kernels.def"
#undef TDM_HALF_TWIN
};
#undef TDM_KERNEL

static tdm_kernel_info twins[TWINS];
static tdm_kernel_buffer twin_buffers[TWINS][TDM_KERNEL_MAX_BUFFERS];
static tdm_once twins_once = TDM_ONCE_INIT;

static void derive_twins(void)
{
    for (size_t t = 0; t < TWINS; t++) {
        const tdm_kernel_info *base = &infos[twin_bases[t]];
        twins[t] = *base;
        twins[t].name = twin_names[t];
        for (unsigned b = 0; b < base->buffer_count; b++) {
            twin_buffers[t][b] = base->buffers[b];
            if (base->buffers[b].activation)
                twin_buffers[t][b].type = TDM_TYPE_F16;
        }
        twins[t].buffers = twin_buffers[t];
    }
}

const tdm_kernel_info *tdm_kernel_get(tdm_kernel kernel)
{
    if (kernel < KERNELS)
        return &infos[kernel];
    if (kernel >= TDM_KERNEL_COUNT)
        return NULL;
    tdm_once_run(&twins_once, derive_twins);
    return &twins[kernel - KERNELS];
}

tdm_kernel tdm_kernel_half_twin(tdm_kernel kernel)
{
    for (size_t t = 0; t < TWINS; t++)
        if (twin_bases[t] == kernel)
            return (tdm_kernel)(KERNELS + t);
    return TDM_KERNEL_COUNT;
}

void tdm_kernel_store_as(tdm_kernel_call *call, tdm_dtype storage)
{
    if (storage == TDM_F16)
        call->kernel = tdm_kernel_half_twin(call->kernel);
}

tdm_kernel tdm_activation_kernel(uint32_t act)
{
    switch (act) {
    case TDM_ACT_LINEAR: return TDM_KERNEL_bias_add;
    case TDM_ACT_RELU: return TDM_KERNEL_relu;
    case TDM_ACT_TANH: return TDM_KERNEL_tanh;
    case TDM_ACT_SIGMOID: return TDM_KERNEL_sigmoid;
    case TDM_ACT_GELU: return TDM_KERNEL_gelu;
    }
    return TDM_KERNEL_COUNT;
}

const tdm_tolerance *tdm_kernel_tolerance(tdm_kernel kernel, const uint32_t *u)
{
    const tdm_kernel_info *info = tdm_kernel_get(kernel);
    int place = tdm_kernel_uint_place(info, TDM_UINT_activation);
    tdm_kernel part = place < 0 ? TDM_KERNEL_COUNT : tdm_activation_kernel(u[place]);
    return part == TDM_KERNEL_COUNT ? &info->tolerance : &tdm_kernel_get(part)->tolerance;
}

tdm_kernel tdm_kernel_find(const char *name)
{
    for (int k = 0; k < TDM_KERNEL_COUNT; k++)
        if (strcmp(tdm_kernel_get((tdm_kernel)k)->name, name) == 0)
            return (tdm_kernel)k;
    return TDM_KERNEL_COUNT;
}

unsigned tdm_kernel_type_size(char type)
{
    return type == 'h' ? 2 : 4;
}

static const char *const uint_names[] = {
#define TDM_UINT_NAME(name) #name,
#include "kernel/kernel_uints.def"
#undef TDM_UINT_NAME
};

const char *tdm_kernel_uint_name(tdm_uint_name name)
{
    return uint_names[name];
}

int tdm_kernel_uint_place(const tdm_kernel_info *info, tdm_uint_name name)
{
    for (unsigned i = 0; i < info->uint_count; i++)
        if (info->uints[i] == name)
            return (int)i;
    return -1;
}

uint64_t tdm_kernel_uint(const tdm_kernel_info *info, const uint32_t *u, tdm_uint_name name)
{
    int place = tdm_kernel_uint_place(info, name);
    return place < 0 ? 0 : u[place];
}

unsigned tdm_kernel_input_count(const tdm_kernel_info *info)
{
    unsigned n = 0;
    for (unsigned b = 0; b < info->buffer_count; b++)
        n += !info->buffers[b].written;
    return n;
}

unsigned tdm_kernel_required_input_count(const tdm_kernel_info *info)
{
    unsigned n = 0;
    for (unsigned b = 0; b < info->buffer_count; b++)
        n += !info->buffers[b].written && !info->buffers[b].optional;
    return n;
}

int tdm_kernel_buffer_used(const tdm_kernel_info *info, const uint32_t *u, unsigned b)
{
    if (!info->buffers[b].optional)
        return 1;
    unsigned k = 0; /* b's place among the read-only buffers */
    for (unsigned i = 0; i < b; i++)
        k += !info->buffers[i].written;
    return k < tdm_kernel_uint(info, u, TDM_UINT_inputs);
}

static uint64_t ceil_div(uint64_t a, uint64_t b)
{
    return b ? (a + b - 1) / b : 0;
}

/* Elements a stored row-major matrix of rows x cols with leading dimension ld spans. */
static uint64_t matrix_span(uint64_t rows, uint64_t cols, uint64_t ld)
{
    return rows && cols ? (rows - 1) * ld + cols : 0;
}

/* a * b * c * d, saturated: image extents of four uint32 factors can pass 2^64, and a
 * wrapped extent would pass a buffer too small. */
static uint64_t product4(uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
    uint64_t p = a * b; /* both below 2^32 */
    uint64_t q = c * d;
    return q && p > UINT64_MAX / q ? UINT64_MAX : p * q;
}

/* Elements in a plane of a Winograd extent. */
static uint64_t winograd_plane(const tdm_kernel_info *info, const uint32_t *u, tdm_extent extent)
{
#define U(name) tdm_kernel_uint(info, u, TDM_UINT_##name)
    if (extent == TDM_EXTENT_TF)
        return (uint64_t)U(rows) * U(cols);
    uint64_t tiles = product4(U(batch), ceil_div(U(oh), 2), ceil_div(U(ow), 2), 1);
    uint64_t channels = extent == TDM_EXTENT_TX ? U(c) : U(oc);
    return channels && tiles > UINT64_MAX / channels ? UINT64_MAX : tiles * channels;
#undef U
}

uint64_t tdm_winograd_stride(uint64_t plane)
{
    return (plane + 1023) / 1024 * 1024 + 16;
}

uint64_t tdm_kernel_winograd_plane(const tdm_kernel_info *info, const uint32_t *u)
{
    for (unsigned b = 0; b < info->buffer_count; b++) {
        tdm_extent e = info->buffers[b].extent;
        if (e == TDM_EXTENT_TX || e == TDM_EXTENT_TY || e == TDM_EXTENT_TF)
            return winograd_plane(info, u, e);
    }
    return 0;
}

uint64_t tdm_kernel_extent(const tdm_kernel_info *info, const uint32_t *u, tdm_extent extent)
{
#define U(name) tdm_kernel_uint(info, u, TDM_UINT_##name)
    uint64_t n = U(n), rows = U(rows), cols = U(cols), m = U(m), k = U(k);
    int ta = U(trans_a) != 0, tb = U(trans_b) != 0;
    switch (extent) {
    case TDM_EXTENT_N: return n;
    case TDM_EXTENT_P: return ceil_div(n, U(chunk));
    case TDM_EXTENT_R: return rows;
    case TDM_EXTENT_C: return cols;
    case TDM_EXTENT_RC: return rows * cols;
    case TDM_EXTENT_SC: return U(src_rows) * cols;
    case TDM_EXTENT_GA: return matrix_span(ta ? k : m, ta ? m : k, U(lda));
    case TDM_EXTENT_GB: return matrix_span(tb ? n : k, tb ? k : n, U(ldb));
    case TDM_EXTENT_GC: return matrix_span(m, n, U(ldc));
    case TDM_EXTENT_IM: return product4(U(batch), U(h), U(w), U(c));
    case TDM_EXTENT_OM: return product4(U(batch), U(oh), U(ow), U(oc));
    case TDM_EXTENT_PM: return product4(U(batch), U(oh), U(ow), U(c));
    case TDM_EXTENT_BC: return product4(U(batch), U(c), 1, 1);
    case TDM_EXTENT_OC: return U(oc);
    case TDM_EXTENT_FL: return product4(U(kh), U(kw), U(c), U(oc));
    case TDM_EXTENT_CL: {
        uint64_t positions = product4(U(batch), U(oh), U(ow), 1);
        uint64_t window = product4(U(kh), U(kw), U(c), 1);
        return window && positions > UINT64_MAX / window ? UINT64_MAX : positions * window;
    }
    case TDM_EXTENT_TX:
    case TDM_EXTENT_TY:
    case TDM_EXTENT_TF: {
        uint64_t plane = winograd_plane(info, u, extent);
        return plane > UINT64_MAX / 32 ? UINT64_MAX : 15 * tdm_winograd_stride(plane) + plane;
    }
    case TDM_EXTENT_F3: return 9u * rows * cols;
    case TDM_EXTENT_MA: return matrix_span(rows, cols, U(lda));
    case TDM_EXTENT_MC: return matrix_span(rows, cols, U(ldc));
    }
    return 0;
#undef U
}

static uint32_t saturated(uint64_t v)
{
    return v < UINT32_MAX ? (uint32_t)v : UINT32_MAX;
}

void tdm_kernel_product(const tdm_kernel_info *info, const uint32_t *u, uint32_t *m, uint32_t *n,
                        uint32_t *k)
{
#define U(name) tdm_kernel_uint(info, u, TDM_UINT_##name)
    uint64_t out = product4(U(batch), U(oh), U(ow), 1), in = product4(U(batch), U(h), U(w), 1);
    uint64_t window = U(kh) * U(kw);
    uint64_t dims[3] = {U(m), U(n), U(k)};
    switch (info->base) {
    case TDM_KERNEL_conv2d_implicit:
    case TDM_KERNEL_conv2d_implicit_bias_relu:
        dims[0] = out, dims[1] = U(oc), dims[2] = window * U(c);
        break;
    case TDM_KERNEL_conv2d_implicit_grad_filter:
    case TDM_KERNEL_conv2d_implicit_grad_filter_bias:
        dims[0] = window * U(c), dims[1] = U(oc), dims[2] = out;
        break;
    case TDM_KERNEL_conv2d_implicit_grad_input:
        dims[0] = in, dims[1] = U(c), dims[2] = window * U(oc);
        break;
    default: break;
    }
    *m = saturated(dims[0]);
    *n = saturated(dims[1]);
    *k = saturated(dims[2]);
#undef U
}

int tdm_kernel_has_fallback(tdm_kernel kernel)
{
    return kernel == TDM_KERNEL_conv2d_implicit || kernel == TDM_KERNEL_conv2d_implicit_bias_relu ||
           kernel == TDM_KERNEL_conv2d_implicit_grad_filter ||
           kernel == TDM_KERNEL_conv2d_implicit_grad_filter_bias ||
           kernel == TDM_KERNEL_conv2d_implicit_grad_input;
}
